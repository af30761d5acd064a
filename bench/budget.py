"""Benchmark: what a token budget trims, in the peer setting (see bench/tokens.py).

Plays the peer games with ``ContextPolicy(token_budget=B)`` for each budget asked for, and the same
seeds without a budget, and prints for every budget B (``name_B=value``): the median and 90th
percentile prompt tokens (messages only: the budget does not cover the schema) with and without
it, the share of prompts it trimmed, the share still over budget once nothing trimmable was left
(frozen, cold, task and own facts are never trimmed), and how often each kind of trim was made.
``--seeds N`` plays fewer games; ``--budgets`` picks the budgets (default 1500 and 2000).
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP
from mafia.context.policy import ContextPolicy
from tokens import play

JSON = dict[str, Any]
SEEDS = 8
BUDGETS = (1500, 2000)
# The prefixes of the trim notes (``context.builder._Hot``), oldest hot material first.
KINDS = {
    "compressed day": "compress_day",
    "oldest reasoning": "drop_reasoning",
    "recent events": "drop_recent",
    "speech of": "trim_speech",
    "over budget": "over_budget",
}


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
    print(f"budget{budget}_over_budget_share={sum(v > budget for v in values) / len(values):.3f}")
    for kind in KINDS.values():
        print(f"budget{budget}_{kind}_per_game={kinds[kind] / len(games):.1f}")


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


if __name__ == "__main__":
    main()
