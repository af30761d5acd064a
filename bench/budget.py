"""Benchmark: what a token budget trims, in the peer setting (see bench/tokens.py).

Plays the peer games with ``ContextPolicy(token_budget=B)`` for each budget asked for, and the same
seeds without a budget, and prints for every budget B (``name_B=value``): the median and 90th
percentile prompt tokens (the prompt's text) with and without it, the share of prompts it trimmed,
the share of calls over it as billed (the messages with their roles, the schema and tools) once
nothing trimmable was left (frozen, cold, task and own facts are never trimmed), and how often each
kind of trim was made.
``--seeds N`` plays fewer games; ``--budgets`` picks the budgets (default 1500 and 2000).

Then the ``layered`` policy at its budget of 1,500 (``layered_*``), over the peer games and house
games at 12 and 16 seats, the 16-seat ones running to the round cap, and games with adversarial
seats, which re-ask and search with long queries. The budget bounds every call (first asks,
re-asks, recall exchanges) as billed: ``prompt_tokens + schema_tokens``, the messages with their
roles, and the answer schema and the recall tool as the provider bills them. Printed: the share of
calls within the budget, and of calls whose messages' text alone (``context_tokens``) is; the calls
over it with their logged reasons; the largest call each way and the largest schema and tools; the
share of the engine facts present in the prompts (``mafia.arena.reads.fact_presence``), and how
many prompts left their oldest days (or their ballots) to recall, the only trim that drops facts
from a prompt.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP
from fakes.peer_model import PeerModel
from mafia.arena.reads import fact_presence
from mafia.context.policy import ContextPolicy, policy_by_name
from mafia.game.events import EventBase, parse_event
from mafia.models.house import HouseModel
from mafia.play.runner import run_game
from tokens import PEER_ROLES, SUMMARISER, play

JSON = dict[str, Any]
SEEDS = 8
BUDGETS = (1500, 2000)
# The prefixes of the trim notes (``context.builder._Hot``), oldest hot material first.
KINDS = {
    "compressed day": "compress_day",
    "oldest reasoning": "drop_reasoning",
    "recent events": "drop_recent",
    "speech of": "trim_speech",
    "earlier days by seat number": "days_by_seat",
    "task's history": "history_once",
    "speaking order by seat": "order_by_seat",
    "trimmed speeches by seat": "speeches_by_seat",
    "suspicions at 0": "quiet_suspicions",
    "tie's ballots": "tie_ballots_once",
    "night lists grouped": "nights_grouped",
    "players' words cut": "cut_words",
    "role advice": "drop_advice",
    "over budget": "over_budget",
}
# The layered games: (label, seats, seeds, round cap); the house at 16 seats plays long games.
LAYERED_GAMES = (("house12", 12, (0, 1, 2, 3), None), ("house16", 16, (1, 2), 20))
LAYERED_QUICK = (("house8", 8, (3,), None),)
# Adversarial seats under ``layered``: re-asks (unencodable notes) and long recall queries, the
# calls a budget on prompts alone did not cover. (seats, seeds)
LAYERED_ADVERSARIAL = ((7, (0, 1)), (12, (0,)))
LAYERED_ADVERSARIAL_QUICK = ((7, (0,)),)
QUICK_ROUND_CAP = 3  # quick mode's adversarial game: its players stall to the 20-round cap otherwise


def prompt_tokens(games: Sequence[list[JSON]]) -> list[int]:
    return [int(r["total_tokens"]) for g in games for r in g]


def percentile(values: Sequence[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def report(games: Sequence[list[JSON]], budget: int) -> None:
    records = [r for g in games for r in g]
    kinds: Counter[str] = Counter()
    for record in records:
        for note in record["trimmed"]:
            kinds[next(v for k, v in KINDS.items() if note.startswith(k))] += 1
    values = prompt_tokens(games)
    print(f"budget{budget}_median_prompt_tokens={statistics.median(values):.0f}")
    print(f"budget{budget}_p90_prompt_tokens={percentile(values, 0.9):.0f}")
    print(f"budget{budget}_trimmed_share={sum(bool(r['trimmed']) for r in records) / len(records):.3f}")
    billed = [int(a["prompt_tokens"]) + int(a["schema_tokens"]) for r in records for a in r["attempts"]]
    print(f"budget{budget}_over_budget_share={sum(v > budget for v in billed) / len(billed):.3f}")
    for kind in KINDS.values():
        print(f"budget{budget}_{kind}_per_game={kinds[kind] / len(games):.1f}")


def layered_game(model: Any, config: JSON, policy: ContextPolicy) -> tuple[list[EventBase], list[JSON]]:
    """The events and prompt records of one game under ``policy``."""
    records: list[JSON] = []
    final = run_game(config, model=model, policy=policy, summariser=SUMMARISER, on_prompt=records.append)
    return [parse_event(e) for e in final["events"]], records


Games = list[tuple[list[EventBase], list[JSON]]]


def layered_games(peer_seeds: int, quick: bool, policy: ContextPolicy) -> Games:
    """The peer games, the house games of ``LAYERED_GAMES`` and the adversarial ones under ``policy``."""
    games: Games = []
    for seed in range(peer_seeds):
        config: JSON = {"seed": seed, "players": 8, "roles": PEER_ROLES}
        games.append(layered_game(PeerModel(seed=seed), config, policy))
    for _, seats, seeds, cap in LAYERED_QUICK if quick else LAYERED_GAMES:
        for seed in seeds:
            config = {"seed": seed, "players": seats}
            if cap is not None:
                config["round_cap"] = cap
            games.append(layered_game(HouseModel(seed=seed), config, policy))
    from fakes.adversarial import AdversarialPlayer  # tests/, on the path once benchlib is loaded

    for seats, seeds in LAYERED_ADVERSARIAL_QUICK if quick else LAYERED_ADVERSARIAL:
        for seed in seeds:
            config = {"seed": seed, "players": seats} | ({"round_cap": QUICK_ROUND_CAP} if quick else {})
            games.append(layered_game(AdversarialPlayer(seed=seed), config, policy))
    return games


def facts_present(games: Games) -> float:
    """The share of the engine facts due in the games' prompts that they hold."""
    present = due = 0
    for events, records in games:
        for tally in fact_presence(events, records)["by_age"].values():
            present, due = present + tally[0], due + tally[1]
    return present / due


def left_to_recall(games: Games) -> int:
    """The prompts that left some of their oldest days (or their ballots) to recall."""
    return sum(any("left to recall" in n for n in r["trimmed"]) for _, g in games for r in g)


def layered_report(peer_seeds: int, quick: bool) -> None:
    """The ``layered_*`` figures over ``layered_games``."""
    layered = policy_by_name("layered")
    games = layered_games(peer_seeds, quick, layered)
    budget = layered.token_budget or 0
    attempts = [(r, a) for _, g in games for r in g for a in r["attempts"]]
    billed = [int(a["prompt_tokens"]) + int(a["schema_tokens"]) for _, a in attempts]
    sizes = [int(a.get("context_tokens", r["total_tokens"])) for r, a in attempts]
    over = [a for (_, a), size in zip(attempts, billed, strict=True) if size > budget]
    reasons = Counter(str(a.get("over_budget", "unlogged")).split(":")[0].split(" brought")[0] for a in over)
    print(f"layered_games={len(games)}")
    print(f"layered_rounds_max={max(int(r['round']) for _, g in games for r in g)}")
    print(f"layered_calls={len(sizes)}")
    print(f"layered_reasks={sum(1 for _, a in attempts if a.get('kind') not in (None, 'recall'))}")
    print(f"layered_recall_calls={sum(1 for _, a in attempts if a.get('kind') == 'recall')}")
    print(f"layered_budget{budget}_calls_within_share={sum(x <= budget for x in billed) / len(billed):.3f}")
    print(f"layered_budget{budget}_messages_within_share={sum(x <= budget for x in sizes) / len(sizes):.3f}")
    print(f"layered_calls_over_budget={len(over)}")
    print(f"layered_calls_over_budget_logged={sum(1 for a in over if a.get('over_budget'))}")
    for reason, count in sorted(reasons.items()):
        print(f"# over budget: {count} x {reason}")
    print(f"layered_max_call_tokens={max(billed)}")
    print(f"layered_max_call_message_tokens={max(sizes)}")
    print(f"layered_max_schema_tokens={max(int(a['schema_tokens']) for _, a in attempts)}")
    roles = [int(a["prompt_tokens"]) - size for (_, a), size in zip(attempts, sizes, strict=True)]
    print(f"layered_max_message_role_tokens={max(roles)}")
    print(f"layered_fact_presence={facts_present(games):.4f}")
    print(f"layered_prompts={sum(len(g) for _, g in games)}")
    print(f"layered_prompts_with_days_left_to_recall={left_to_recall(games)}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=SEEDS, help=f"peer games (default {SEEDS})")
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS), help="token budgets")
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.budgets = 1, args.budgets[:1]
    if args.seeds < 1 or any(b < 1 for b in args.budgets):
        parser.error("--seeds and every budget must be positive")
    free = [play(seed, 8) for seed in range(args.seeds)]
    values = prompt_tokens(free)
    print(f"games={args.seeds}")
    print(f"unbudgeted_median_prompt_tokens={statistics.median(values):.0f}")
    print(f"unbudgeted_p90_prompt_tokens={percentile(values, 0.9):.0f}")
    for budget in args.budgets:
        report(
            [play(seed, 8, policy=ContextPolicy(token_budget=budget)) for seed in range(args.seeds)], budget
        )
    layered_report(args.seeds, args.quick)


if __name__ == "__main__":
    main()
