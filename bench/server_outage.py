"""An arena queued on a LangGraph server (``mafia serve``, two processes on one PostgreSQL and one
Redis) through the faults of its own infrastructure: Redis is stopped and started again once while
games play, PostgreSQL once, and one server process is killed (SIGKILL). Nothing is queued again
by hand unless a game stops for good; the games are collected and compared with the same arena
played locally.

Prints ``games=`` (the arena's), ``games_identical=`` (collected with logs byte-identical to the
local arena's), ``games_lost=`` (never finished), ``games_twice=`` (a game some step of which two
runs played: two checkpoints on one parent in its thread's history), ``manual_requeues=`` (games
that stopped and had to be queued again by hand), ``retries_logged=`` (runs taken up again, as
the server processes logged them: the keeper's retries and the runtime's sweeps of a killed
process's runs), each cause's share (``retries_redis=``, ``retries_postgres=``, ``retries_swept=``)
and the time of each fault, ``<fault>_at_s=``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP
from mafia.arena import run_arena
from mafia.arena.queued import QUEUE_FILE, Progress, collect

DOWN_S = 4.0  # how long Redis and PostgreSQL stay down
LIMIT_S = 1800.0  # the whole arena, on a busy two-core machine
QUICK_LIMIT_S = 300.0  # each wait of the quick mode's four small games


def _progress(arena: Path) -> Progress:
    """Where the games stand (nothing written)."""
    return collect(arena, write=False)


def _until(done: Callable[[], bool], what: str, limit_s: float = LIMIT_S) -> None:
    deadline = time.monotonic() + limit_s
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting until {what}")
        time.sleep(0.5)


def _safe(look: Callable[[], bool]) -> Callable[[], bool]:
    """``look`` where a server that does not answer for a moment (a component down) is a no."""

    def safe() -> bool:
        try:
            return look()
        except Exception:
            return False

    return safe


def _settled(progress: Progress) -> bool:
    """Whether no game is left for the servers to play: each finished or stopped for good."""
    return progress.finished + len(progress.stopped) == progress.total


def _playing(log: str) -> bool:
    """Whether a server process's log shows a run started and not yet ended."""
    started = log.count("Starting background run")
    ended = log.count("Background run succeeded") + log.count("Background run failed")
    return started > ended


def games_twice(arena: Path) -> int:
    """Games some checkpoint of which has two children in its thread's history: a step played by
    two runs."""
    from langgraph_sdk import get_sync_client

    record = json.loads((arena / QUEUE_FILE).read_text())
    client = get_sync_client(url=record["server"])
    twice = 0
    for game in record["games"]:
        history = client.threads.get_history(game["thread"], limit=1000)
        parents = Counter(
            dict(h["parent_checkpoint"] or {}).get("checkpoint_id")
            for h in history
            if not dict(h["checkpoint"] or {}).get("checkpoint_ns")
        )
        twice += any(count > 1 for parent, count in parents.items() if parent is not None)
    return twice


def identical(arena: Path, local: Path) -> tuple[int, int]:
    """Games whose two logs are byte-identical to the local arena's; games finished here."""
    from arena_helpers import LOGS

    same = finished = 0
    for folder in sorted((arena / "games").glob("*/*/seed-*")):
        if not (folder / "result.json").exists():
            continue
        finished += 1
        twin = local / folder.relative_to(arena)
        same += all(
            (folder / name).read_bytes() == (twin / name).read_bytes()
            for name in LOGS
            if (twin / name).exists()
        ) and all((twin / name).exists() for name in LOGS)
    return same, finished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2, help="games each server process plays at once")
    parser.add_argument("--keep", type=Path, help="a folder to keep the arenas and the servers' logs in")
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    from server_cluster import cluster, unavailable

    if (why := unavailable()) is not None:
        print(f"server_outage_bench=unavailable  # {why}")
        return
    limit_s = LIMIT_S
    if args.quick:
        args.games, args.players = 4, 5
        limit_s = QUICK_LIMIT_S
    ask: dict[str, Any] = {"games": args.games, "players": args.players, "arena_id": "outage"}
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        arena = work / "queued" / "arena-outage"
        faults: dict[str, float] = {}
        manual = 0
        # A PostgreSQL that keeps what it acknowledged: its outage below is a crash.
        with cluster(work / "serve", processes=2, workers=args.workers, durable=True) as made:
            start = time.monotonic()
            run_arena(**ask, server=made.processes[0].url, queue=True, out=work / "queued")
            # Redis first, while the first games play.
            _until(_safe(lambda: _progress(arena).running >= 2), "two games play", limit_s)
            made.redis.halt()
            time.sleep(DOWN_S)
            made.redis.start()
            faults["redis_restart_at_s"] = time.monotonic() - start
            # PostgreSQL once some games have finished and others play.
            _until(
                _safe(lambda: _progress(arena).finished >= max(1, args.games // 4)),
                "a quarter finish",
                limit_s,
            )
            made.pg.halt()
            time.sleep(DOWN_S)
            made.pg.start()
            faults["postgres_restart_at_s"] = time.monotonic() - start
            # A server process killed mid-game: the second one (the games were queued on the first).
            # A short arena (--quick) may finish before that process takes a game: it is killed
            # then all the same, and the wait ends with the arena instead of running out; a game
            # stopped for good ends it too, to be queued again by hand below (and counted).
            doomed = made.processes[1]
            _until(
                lambda: _playing(doomed.log()) or _safe(lambda: _settled(_progress(arena)))(),
                "the second server process plays a game or no game is left to play",
                limit_s,
            )
            doomed.kill()
            faults["process_killed_at_s"] = time.monotonic() - start

            def all_collected() -> bool:
                nonlocal manual
                progress = collect(arena)
                if progress.stopped:  # a game the server will not take up again: queued by hand
                    manual += len(progress.stopped)
                    run_arena(**ask, server=made.processes[0].url, queue=True, out=work / "queued")
                return progress.finished == progress.total

            _until(_safe(all_collected), "every game is collected", limit_s)
            wall = time.monotonic() - start
            twice = games_twice(arena)
            logs = "\n".join(p.log_path.read_text(errors="replace") for p in made.processes)
        retries = {
            "redis": logs.count("ended by Redis; taken up again"),
            "postgres": logs.count("ended by PostgreSQL; taken up again"),
            "swept": logs.count("'event': 'Swept stale run'"),
        }
        run_arena(**ask, out=work / "local")
        same, finished = identical(arena, work / "local" / "arena-outage")
    print(f"games={args.games}")
    print(f"games_identical={same}")
    print(f"games_lost={args.games - finished}")
    print(f"games_twice={twice}")
    print(f"manual_requeues={manual}")
    print(f"retries_logged={sum(retries.values())}")
    for cause, count in retries.items():
        print(f"retries_{cause}={count}")
    for name, at in faults.items():
        print(f"{name}={at:.1f}")
    print(f"wall_s={wall:.1f}")


if __name__ == "__main__":
    main()
