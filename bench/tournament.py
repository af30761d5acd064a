"""Throughput of a tournament: games per minute and the process's peak memory at concurrency 8.

Plays one tournament of the three offline models (``house``, ``house-sloppy``, ``random-legal``)
at 8 seats through ``run_tournament``, eight games at once, into a temporary folder, then rates
it; the figures cover the whole call (games, logs, checkpoints, ratings). The offline models answer
in well under a millisecond, so this measures the engine's own cost per game, not a provider's.

Prints ``games=``, ``players=``, ``concurrency=``, ``wall_s=``, ``games_per_minute=``,
``calls_per_second=`` and ``peak_rss_mb=`` (the process's peak resident memory). ``--quick`` plays
6 games at 5 seats, a smoke test of the script.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time

import benchlib  # noqa: F401  (turns tracing off before LangChain loads)
from mafia.tournament import run_tournament

MODELS = ["house", "house-sloppy", "random-legal"]
CONCURRENCY = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=48, help="games in all, a multiple of 3 (default 48)")
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="6 games at 5 seats: a smoke test")
    args = parser.parse_args()
    games, players = (6, 5) if args.quick else (args.games, args.players)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        summary = run_tournament(
            games=games, models=MODELS, players=players, concurrency=CONCURRENCY, out=tmp
        )
        wall = time.perf_counter() - start
    if summary["finished"] != games or summary["run"]["unfinished"]:
        sys.exit(f"only {summary['finished']} of {games} games finished: {summary['run']['unfinished']}")
    calls = sum(c["calls"] * c["games"] for c in summary["costs"].values())
    # ru_maxrss is in kilobytes on Linux.
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"games={games}")
    print(f"players={players}")
    print(f"concurrency={CONCURRENCY}")
    print(f"wall_s={wall:.2f}")
    print(f"games_per_minute={60 * games / wall:.1f}")
    print(f"calls_per_second={calls / wall:.1f}")
    print(f"peak_rss_mb={peak_mb:.1f}")


if __name__ == "__main__":
    main()
