"""Win rates of the house model in the default 7-seat game over 500 seeds, with 95% intervals.

Prints ``town_win_rate=`` and ``mafia_win_rate=`` (fractions of all games; draws are neither).
Games run in a process pool, one per core.
"""

from __future__ import annotations

import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from benchlib import wilson
from mafia.runner import run_game

GAMES = 500


def winner(seed: int) -> str:
    state = run_game({"seed": seed})
    return str(state["winner"])


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else GAMES
    with ProcessPoolExecutor() as pool:
        results = Counter(pool.map(winner, range(games), chunksize=10))
    for side in ("town", "mafia", "draw"):
        low, high = wilson(results[side], games)
        print(f"{side}: {results[side]}/{games} (95% interval {low:.3f}-{high:.3f})")
    print(f"town_win_rate={results['town'] / games:.3f}")
    print(f"mafia_win_rate={results['mafia'] / games:.3f}")


if __name__ == "__main__":
    main()
