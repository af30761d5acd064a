"""Benchmark: the tokens a provider bills for a game, in the setting peer engines were measured in.

Peer games: 8 seats (2 Mafia, Detective, Doctor, 4 Town) played by the peer-setting scripted model
(tests/fakes/peer_model.py: 60-word speeches, 30-word reasoning fields, a suspicion for every other living
player, random legal choices), one game per seed. Every call counts the messages and the
response-format schema as sent (``mafia.models.billing``); billed tokens follow its prefix-cache model.

Long games: every ballot "skip" and every kill skipped, so nobody leaves, to the round cap of 10, at
8 and 16 seats. The growth of a prompt is the least-squares slope of the median call's tokens per
round over rounds 3-10. The same long games are played again with the full transcript
(``ContextPolicy(full_transcript=True)``) for the paired ratios of tokens sent and billed.

Prints ``name=value`` lines, the goals last: tokens_per_game (<= 120000), billed_tokens_per_game
(<= 60000), round1_median_tokens (<= 2000), and over both long-game sizes the worse of
long_growth_per_round (<= 40), window_vs_full (<= 0.5) and billed_window_vs_full (<= 0.7).
Game lengths vary with the random choices, so the per-call figures are printed too, and where the
uncached tokens come from: calls no cache serves at all (their shared prefix is under 1,024
tokens: a day's first speech, Day 1's early speakers) and the tail of the others.
``--seeds N`` and ``--long-seeds N`` run a smaller sample; ``--policy NAME`` plays a registered
context policy (``mafia.context.policy.POLICIES``) instead of the default window, and
``--verbatim-rounds``, ``--reasonings`` and ``--plans`` change its window and memory. Under a
policy with summaries the house model writes them (its calls are billed with the game's); under a
token budget, ``calls_within_budget`` is the share of calls (peer and long games) within it.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP, quick
from fakes.peer_model import PeerModel
from mafia.context.policy import DEFAULT_POLICY, POLICIES, ContextPolicy
from mafia.context.summary import SUMMARISER as SUMMARY_RECORDS
from mafia.play.runner import run_game

JSON = dict[str, Any]
PEER_SEEDS = 40
LONG_SEEDS = 3
PEER_ROLES = {"mafia": 2, "detective": 1, "doctor": 1}
LONG_ROUNDS = 4 if quick() else 10  # quick mode: short long games
LONG_SIZES = (8,) if quick() else (8, 16)
SUMMARISER = "house"
GROWTH_FROM = 3
BREAKDOWN_ROUND = 4


def play(
    seed: int, players: int, *, passive: bool = False, policy: ContextPolicy | None = None
) -> list[JSON]:
    """The prompt records of one game in their written order, billed by the run's log."""
    config: JSON = {"seed": seed, "players": players}
    if players == 8:
        config["roles"] = PEER_ROLES
    if passive:
        config["round_cap"] = LONG_ROUNDS
    records: list[JSON] = []
    model = PeerModel(seed=seed, passive=passive)
    # The peer model writes no summaries: a policy with summaries has the house model write them.
    run_game(config, model=model, policy=policy, summariser=SUMMARISER, on_prompt=records.append)
    return records


def sent(call: JSON) -> int:
    """Input tokens of one call: the messages and the schema."""
    return int(call["prompt_tokens"]) + int(call["schema_tokens"])


def calls(records: Iterable[JSON]) -> list[tuple[int, JSON]]:
    """Every call of the records (each attempt is one), with its round."""
    return [(int(r["round"]), a) for r in records for a in r["attempts"]]


def totals(games: Sequence[list[JSON]]) -> JSON:
    """Per-game means and shares over ``games``."""
    every = [calls(g) for g in games]
    inputs = [sum(sent(c) for _, c in g) for g in every]
    cached = [sum(int(c["cached_tokens"]) for _, c in g) for g in every]
    round1 = [sent(c) for g in every for n, c in g if n == 1]
    unserved = [sent(c) for g in every for _, c in g if not c["cached_tokens"]]
    tails = [sent(c) - int(c["cached_tokens"]) for g in every for _, c in g if c["cached_tokens"]]
    return {
        "games": len(games),
        "calls_per_game": statistics.mean(len(g) for g in every),
        "tokens_per_game": statistics.mean(inputs),
        "billed_tokens_per_game": statistics.mean(
            sum(float(c["billed_tokens"]) for _, c in g) for g in every
        ),
        "output_tokens_per_game": statistics.mean(sum(int(c["output_tokens"]) for _, c in g) for g in every),
        "uncached_tokens_per_game": statistics.mean(i - c for i, c in zip(inputs, cached, strict=True)),
        "cached_share": sum(cached) / sum(inputs),
        "round1_median_tokens": statistics.median(round1) if round1 else 0.0,
        "unserved_calls_per_game": len(unserved) / len(games),
        "unserved_tokens_per_game": sum(unserved) / len(games),
        "uncached_tail_per_served_call": statistics.mean(tails) if tails else 0.0,
    }


def round_medians(games: Sequence[list[JSON]]) -> dict[int, float]:
    """The median call's input tokens in each round, over all ``games``."""
    by_round: dict[int, list[int]] = defaultdict(list)
    for game in games:
        for n, call in calls(game):
            by_round[n].append(sent(call))
    return {n: statistics.median(v) for n, v in sorted(by_round.items())}


def slope(points: Sequence[tuple[float, float]]) -> float:
    """The ordinary least-squares slope of y on x."""
    mean_x = statistics.mean(x for x, _ in points)
    mean_y = statistics.mean(y for _, y in points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def growth(games: Sequence[list[JSON]]) -> float:
    """Tokens a round adds to the median call, from round ``GROWTH_FROM`` to the cap."""
    medians = round_medians(games)
    return slope([(n, m) for n, m in medians.items() if GROWTH_FROM <= n <= LONG_ROUNDS])


def breakdown(games: Sequence[list[JSON]], number: int) -> JSON | None:
    """The median record of round ``number`` (by its first call's input tokens), or None."""
    records = sorted(
        (r for g in games for r in g if r["round"] == number and r["attempts"]),
        key=lambda r: (sent(r["attempts"][0]), r.get("game_id", ""), r["id"]),  # the summariser's has none
    )
    return records[(len(records) - 1) // 2] if records else None


def within_budget(games: Sequence[list[JSON]], budget: int) -> float:
    """The share of calls whose text (the prompt, and any recall exchange) is within ``budget``."""
    sizes = [int(a.get("context_tokens", r["total_tokens"])) for g in games for r in g for a in r["attempts"]]
    return sum(size <= budget for size in sizes) / len(sizes)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=PEER_SEEDS, help="peer games (default 40)")
    parser.add_argument("--long-seeds", type=int, default=LONG_SEEDS, help="long games per size (default 3)")
    parser.add_argument(
        "--policy",
        default=DEFAULT_POLICY,
        choices=list(POLICIES),
        help=f"context policy (default {DEFAULT_POLICY})",
    )
    # The policy's memory and window knobs, to measure leaner variants than the registered ones.
    parser.add_argument("--verbatim-rounds", type=int, help="rounds in full (policy's own by default)")
    parser.add_argument("--reasonings", type=int, help="own last reasonings kept verbatim")
    parser.add_argument("--plans", type=int, help="plans kept in the strategy summary")
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.long_seeds = 1, 1
    if args.seeds < 1 or args.long_seeds < 1:
        parser.error("--seeds and --long-seeds must be 1 or more")

    policy = POLICIES[args.policy]
    knobs = {
        "verbatim_rounds": args.verbatim_rounds,
        "recent_reasonings": args.reasonings,
        "summary_plans": args.plans,
    }
    changed = {name: value for name, value in knobs.items() if value is not None}
    if changed:
        try:
            policy = dataclasses.replace(policy, name="", **changed)
        except ValueError as exc:
            parser.error(str(exc))
    peer = [play(seed, 8, policy=policy) for seed in range(args.seeds)]
    seeds = range(args.long_seeds)
    long = {n: [play(seed, n, passive=True, policy=policy) for seed in seeds] for n in LONG_SIZES}
    full_policy = ContextPolicy(full_transcript=True)
    full = {n: [play(seed, n, passive=True, policy=full_policy) for seed in seeds] for n in LONG_SIZES}

    for n in LONG_SIZES:
        for number, median in round_medians(long[n]).items():
            print(f"long{n}_round{number}_median_tokens={median:.0f}")
    source, record = "peer", breakdown(peer, BREAKDOWN_ROUND)
    if record is None:
        source, record = "long8", breakdown(long[8], BREAKDOWN_ROUND)
    if record is not None:
        first = record["attempts"][0]
        print(f"breakdown_round{BREAKDOWN_ROUND}_source={source}")
        print(f"breakdown_action={record['action']}")
        for name, tokens in record["tokens"].items():
            print(f"breakdown_{name}={tokens}")
        print(f"breakdown_schema={first['schema_tokens']}")
        print(f"breakdown_total={sent(first)}")

    figures = totals(peer)
    calls_per_game = figures["calls_per_game"]
    print(f"policy={policy.name}")
    print(f"games={figures['games']}")
    print(f"long_games_per_size={args.long_seeds}")
    print(f"calls_per_game={calls_per_game:.1f}")
    print(f"tokens_per_call={figures['tokens_per_game'] / calls_per_game:.0f}")
    print(f"billed_tokens_per_call={figures['billed_tokens_per_game'] / calls_per_game:.0f}")
    print(f"uncached_tokens_per_call={figures['uncached_tokens_per_game'] / calls_per_game:.0f}")
    print(f"unserved_calls_per_game={figures['unserved_calls_per_game']:.1f}")
    print(f"unserved_tokens_per_game={figures['unserved_tokens_per_game']:.0f}")
    print(f"uncached_tail_per_served_call={figures['uncached_tail_per_served_call']:.0f}")
    print(f"output_tokens_per_game={figures['output_tokens_per_game']:.0f}")
    print(f"cached_share={figures['cached_share']:.3f}")
    summaries = [r for g in peer for r in g if r["player"] == SUMMARY_RECORDS]
    print(f"summary_calls_per_game={len(summaries) / len(peer):.2f}")
    if policy.token_budget is not None:
        games = [*peer, *(game for n in LONG_SIZES for game in long[n])]
        print(f"calls_within_budget={within_budget(games, policy.token_budget):.3f}")
    growths, sent_ratios, billed_ratios = [], [], []
    for n in LONG_SIZES:
        window, whole = totals(long[n]), totals(full[n])
        growths.append(growth(long[n]))
        sent_ratios.append(ratio(window["tokens_per_game"], whole["tokens_per_game"]))
        billed_ratios.append(ratio(window["billed_tokens_per_game"], whole["billed_tokens_per_game"]))
        uncached = ratio(window["uncached_tokens_per_game"], whole["uncached_tokens_per_game"])
        print(f"long_cached_share_window_{n}={window['cached_share']:.3f}")
        print(f"long_cached_share_full_{n}={whole['cached_share']:.3f}")
        print(f"uncached_window_vs_full_{n}={uncached:.3f}")
        print(f"window_vs_full_{n}={sent_ratios[-1]:.3f}")
        print(f"billed_window_vs_full_{n}={billed_ratios[-1]:.3f}")
        print(f"long_growth_per_round_{n}={growths[-1]:.1f}")
    # The goals (long-game figures: the worse of the two sizes).
    print(f"tokens_per_game={figures['tokens_per_game']:.0f}")
    print(f"billed_tokens_per_game={figures['billed_tokens_per_game']:.0f}")
    print(f"round1_median_tokens={figures['round1_median_tokens']:.0f}")
    print(f"long_growth_per_round={max(growths):.1f}")
    print(f"window_vs_full={max(sent_ratios):.3f}")
    print(f"billed_window_vs_full={max(billed_ratios):.3f}")


if __name__ == "__main__":
    main()
