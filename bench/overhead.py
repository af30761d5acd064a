"""Engine time per model call, with and without SQLite checkpoints, and checkpoint growth.

Engine time of a game = wall time - time spent in model calls, divided by the number of calls.
A model call is measured where the engine hands over to the model: the structured-output
``invoke`` of the seat's chat model (LangChain's own wrapper included, since the engine cannot
change it for a given model). ``engine_ms_per_call_generate=`` also counts that wrapper as engine
time (only the house model's ``_generate`` is model time), for comparison.

Prints the median over the games as ``engine_ms_per_call=`` (no checkpointer) and
``engine_ms_per_call_sqlite=``, then ``checkpoint_growth=``: SQLite checkpoint bytes per event of
16-seat games over those of 7-seat games (1.0 = linear growth with the game).
"""

from __future__ import annotations

import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path

from benchlib import TimedHouseModel, quick, time_structured_calls
from mafia.play.runner import run_game, sqlite_checkpointer

SEEDS = range(1, 2) if quick() else range(1, 7)
SIZES = (5, 7) if quick() else (7, 16)  # the checkpoint growth compares the larger to the smaller


class CallClock:
    """Adds up the time spent inside the engine's structured model calls."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.lock = threading.Lock()
        time_structured_calls(self.add)

    def add(self, seconds: float) -> None:
        with self.lock:
            self.seconds += seconds

    def reset(self) -> float:
        with self.lock:
            seconds, self.seconds = self.seconds, 0.0
        return seconds


CLOCK = CallClock()


def engine_ms(players: int, seed: int, db: Path | None) -> tuple[float, float, int, int]:
    """(engine ms per call, same counting LangChain's wrapper as engine, events, stored bytes)."""
    model = TimedHouseModel(seed=seed)
    CLOCK.reset()
    start = time.perf_counter()
    if db is None:
        state = run_game({"seed": seed, "players": players}, model=model)
        stored = 0
    else:
        with sqlite_checkpointer(db) as saver:
            state = run_game({"seed": seed, "players": players}, model=model, checkpointer=saver)
        stored = stored_bytes(db)
    wall = time.perf_counter() - start
    calls, generate_seconds = model.reset()
    boundary = (wall - CLOCK.reset()) * 1000 / calls
    return boundary, (wall - generate_seconds) * 1000 / calls, len(state["events"]), stored


def stored_bytes(db: Path) -> int:
    """Bytes of checkpoint, metadata and write blobs in a SQLite checkpoint file."""
    with sqlite3.connect(db) as conn:
        cp = conn.execute("select sum(length(checkpoint)) + sum(length(metadata)) from checkpoints")
        writes = conn.execute("select sum(length(value)) from writes")
        return int(cp.fetchone()[0] or 0) + int(writes.fetchone()[0] or 0)


def main() -> None:
    if not quick():
        run_game({"seed": 0}, model=TimedHouseModel(seed=0))  # warm up imports and caches
    small, large = SIZES
    plain = [engine_ms(small, s, None) for s in SEEDS]
    print("no checkpointer, ms per call:", " ".join(f"{x[0]:.2f}" for x in plain))
    with tempfile.TemporaryDirectory() as tmp:
        sqlite: list[float] = []
        per_event: dict[int, list[float]] = {small: [], large: []}
        for players in SIZES:
            for seed in SEEDS:
                ms, _, events, stored = engine_ms(players, seed, Path(tmp) / f"{players}-{seed}.sqlite")
                if players == small:
                    sqlite.append(ms)
                per_event[players].append(stored / events)
        print("sqlite, ms per call:", " ".join(f"{x:.2f}" for x in sqlite))
        for players, values in per_event.items():
            print(f"{players} seats: checkpoint bytes per event {statistics.mean(values):.0f}")
    print(f"engine_ms_per_call_generate={statistics.median(x[1] for x in plain):.2f}")
    print(f"engine_ms_per_call={statistics.median(x[0] for x in plain):.2f}")
    print(f"engine_ms_per_call_sqlite={statistics.median(sqlite):.2f}")
    growth = statistics.mean(per_event[large]) / statistics.mean(per_event[small])
    print(f"checkpoint_growth={growth:.2f}")


if __name__ == "__main__":
    main()
