"""How close a game runs to its critical path when every model call takes 50 ms.

The players are the test suite's random-legal model (``tests/fakes/__init__.py``) with a 50 ms wait per
call, so the figure measures the engine and its parallelism, not a model's own CPU time.

Prints ``critical_path_ratio=`` (game wall time / (critical-path calls x 50 ms); 1.0 would mean
simultaneous turns cost one call and the engine costs nothing) and ``calls_per_game=``.
"""

from __future__ import annotations

import statistics
import sys
import time

from benchlib import critical_path_calls, quick
from fakes import RandomLegalModel
from mafia.play.runner import run_game

DELAY = 0.005 if quick() else 0.05
GAMES = [(5, 1)] if quick() else [(7, 1), (7, 2), (10, 3), (16, 4)]


def main() -> None:
    if not quick():
        run_game({"seed": 0}, model=RandomLegalModel(seed=0))  # warm up imports and caches
    ratios, calls = [], []
    for players, seed in GAMES:
        model = RandomLegalModel(seed=seed, delay=DELAY)
        start = time.perf_counter()
        state = run_game({"seed": seed, "players": players}, model=model)
        wall = time.perf_counter() - start
        n_calls = model.calls
        critical = critical_path_calls(state["events"])
        ratio = wall / (critical * DELAY)
        ratios.append(ratio)
        calls.append(n_calls)
        print(
            f"players={players} seed={seed} wall={wall:.2f}s calls={n_calls} "
            f"critical={critical} ratio={ratio:.3f}"
        )
    sys.stdout.flush()
    print(f"calls_per_game={statistics.mean(calls):.1f}")
    print(f"critical_path_ratio={max(ratios):.3f}")


if __name__ == "__main__":
    main()
