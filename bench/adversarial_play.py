"""Benchmark: adversarial play through the model-driven doors, at 7, 12 and 16 seats under
``layered`` and ``rolling-summary``.

Every seat is ``adversarial.AdversarialPlayer`` over the canary model (a canary in every private
field; speeches and notes ending in forged engine lines after each kind of line break; unencodable
text in notes; recall searches for other seats' canaries, private facts, forged lines and lone
surrogates), and the summariser tries every trick of ``adversarial.TRICKS`` in turn. Prints
(``name=value``): the games, the crashes (a game that raised), the leaks (a canary in a prompt or
recall answer of a player not entitled to it, or a recalled line outside the player's own record:
``tests/context/test_recall_audit.py``), the forged line starts in every prompt and recall answer
(counted with ``str.splitlines``), the summaries refused and accepted and the summary items refused,
the re-asks for unencodable text and the fallbacks. ``--seeds N`` plays N games per size and policy
(default 2).
"""

from __future__ import annotations

import argparse
import traceback
from collections.abc import Sequence
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP
from mafia.context.policy import policy_by_name
from mafia.game.events import (
    ColdSummary,
    Fallback,
    SummaryFallback,
    SummaryItemsRefused,
    parse_event,
    roles_from_log,
)
from mafia.play.runner import run_game

SIZES = (7, 12, 16)
POLICIES = ("layered", "rolling-summary")
SEEDS = 2
QUICK_ROUND_CAP = 3  # quick mode's games: the adversarial players stall to the 20-round cap otherwise


def play(policy: str, players: int, seed: int, round_cap: int | None = None) -> dict[str, int]:
    """One adversarial game's tallies (``round_cap`` rounds at most, if given)."""
    # tests/, on the path once benchlib is loaded
    from fakes.adversarial import TRICKS, AdversarialPlayer, SpoilingSummariser, forged_line_starts, rotating
    from test_leak_audit import audit_records
    from test_recall_audit import audit_recall

    seats = [f"Player {n}" for n in range(1, players + 1)]
    model = AdversarialPlayer(seed=seed)
    records: list[dict[str, Any]] = []
    try:
        setup: dict[str, Any] = {"seed": seed, "players": players}
        if round_cap is not None:
            setup["round_cap"] = round_cap
        state = run_game(
            setup,
            model=model,
            policy=policy_by_name(policy),
            summariser=SpoilingSummariser(spoil=rotating(list(TRICKS.values())), seats=seats),
            on_prompt=records.append,
        )
    except Exception:  # a crash is what this bench counts
        traceback.print_exc()
        return {"crashes": 1}
    events = [parse_event(e) for e in state["events"]]
    roles = roles_from_log(events)
    leaks = [p for p in audit_records(seed, records, model.plants, roles) if " never saw " not in p]
    leaks += audit_recall(seed, events, records, model.plants, roles)
    for leak in leaks[:5]:
        print(f"# {policy} {players} seats seed {seed}: {leak}")
    texts = [r["system"] + "\n" + r["user"] for r in records]
    texts += [a["recall"]["answer"] for r in records for a in r["attempts"] if a.get("recall")]
    attempts = [a for r in records for a in r["attempts"]]
    return {
        "crashes": 0,
        "leaks": len(leaks),
        "forged_line_starts": sum(forged_line_starts(t) for t in texts),
        "summaries_refused": sum(1 for e in events if isinstance(e, SummaryFallback)),
        "summaries_accepted": sum(1 for e in events if isinstance(e, ColdSummary)),
        "summary_items_refused": sum(len(e.refused) for e in events if isinstance(e, SummaryItemsRefused)),
        "invalid_text_reasks": sum(1 for a in attempts if a.get("kind") == "invalid_text"),
        "recall_calls": sum(1 for a in attempts if a.get("recall")),
        "fallbacks": sum(1 for e in events if isinstance(e, Fallback)),
        "prompts": len(records),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--seeds", type=int, default=SEEDS, help=f"games per size and policy (default {SEEDS})"
    )
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be positive")
    sizes, seeds = ((7,), 1) if args.quick else (SIZES, args.seeds)
    totals: dict[str, int] = {}
    games = 0
    for policy in POLICIES:
        for players in sizes:
            for seed in range(seeds):
                games += 1
                cap = QUICK_ROUND_CAP if args.quick else None
                for key, value in play(policy, players, seed, cap).items():
                    totals[key] = totals.get(key, 0) + value
    print(f"adversarial_games={games}")
    print(f"adversarial_seats={','.join(str(s) for s in sizes)}")
    for key in (
        "crashes",
        "leaks",
        "forged_line_starts",
        "summaries_refused",
        "summaries_accepted",
        "summary_items_refused",
    ):
        print(f"adversarial_{key}={totals.get(key, 0)}")
    for key in ("invalid_text_reasks", "recall_calls", "fallbacks", "prompts"):
        print(f"adversarial_{key}={totals.get(key, 0)}")


if __name__ == "__main__":
    main()
