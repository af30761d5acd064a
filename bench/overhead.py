"""Engine time per model call, with and without SQLite checkpoints, and checkpoint growth.

Engine time of a game = wall time - time spent inside the house model; divided by the number of
model calls. Prints the median over the games as ``engine_ms_per_call=`` (no checkpointer) and
``engine_ms_per_call_sqlite=``, then ``checkpoint_growth=``: SQLite checkpoint bytes per event of
16-seat games over those of 7-seat games (1.0 = linear growth with the game).
"""

from __future__ import annotations

import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from benchlib import TimedHouseModel
from mafia.runner import run_game, sqlite_checkpointer

SEEDS = range(1, 7)


def engine_ms(players: int, seed: int, db: Path | None) -> tuple[float, int, int]:
    """(engine ms per call, events, checkpoint bytes) of one game."""
    model = TimedHouseModel(seed=seed)
    start = time.perf_counter()
    if db is None:
        state = run_game({"seed": seed, "players": players}, model=model)
        stored = 0
    else:
        with sqlite_checkpointer(db) as saver:
            state = run_game({"seed": seed, "players": players}, model=model, checkpointer=saver)
        stored = stored_bytes(db)
    wall = time.perf_counter() - start
    calls, model_seconds = model.reset()
    return (wall - model_seconds) * 1000 / calls, len(state["events"]), stored


def stored_bytes(db: Path) -> int:
    """Bytes of checkpoint, metadata and write blobs in a SQLite checkpoint file."""
    with sqlite3.connect(db) as conn:
        cp = conn.execute("select sum(length(checkpoint)) + sum(length(metadata)) from checkpoints")
        writes = conn.execute("select sum(length(value)) from writes")
        return int(cp.fetchone()[0] or 0) + int(writes.fetchone()[0] or 0)


def main() -> None:
    run_game({"seed": 0}, model=TimedHouseModel(seed=0))  # warm up imports and caches
    plain = [engine_ms(7, s, None)[0] for s in SEEDS]
    print("no checkpointer, ms per call:", " ".join(f"{x:.2f}" for x in plain))
    with tempfile.TemporaryDirectory() as tmp:
        sqlite, per_event = [], {7: [], 16: []}
        for players in (7, 16):
            for seed in SEEDS:
                ms, events, stored = engine_ms(players, seed, Path(tmp) / f"{players}-{seed}.sqlite")
                if players == 7:
                    sqlite.append(ms)
                per_event[players].append(stored / events)
        print("sqlite, ms per call:", " ".join(f"{x:.2f}" for x in sqlite))
        for players, values in per_event.items():
            print(f"{players} seats: checkpoint bytes per event {statistics.mean(values):.0f}")
    print(f"engine_ms_per_call={statistics.median(plain):.2f}")
    print(f"engine_ms_per_call_sqlite={statistics.median(sqlite):.2f}")
    growth = statistics.mean(per_event[16]) / statistics.mean(per_event[7])
    print(f"checkpoint_growth={growth:.2f}")


if __name__ == "__main__":
    main()
