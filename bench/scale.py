"""Many games in one process: memory and throughput at scale.

Two parts, each in a fresh process of its own (so neither inherits the other's heap):

- ``--concurrent`` games (200) of the house model at once, one thread each, checkpointed in one
  SQLite file and logged under a temporary folder as ``mafia play --out`` does: the process's peak
  resident memory (``peak_rss_mb=``, the kernel's high-water mark) and ``games_per_minute=``.
- ``--sequential`` games (500) one after another, each with new player names, played the same
  way: the resident memory gained per game after ``--warmup`` games (``rss_growth_kb_per_game=``,
  measured after a garbage collection at both ends). A cache that keeps something of every game
  shows here; one that is bounded fills during the warm-up (the largest, by design, within about
  250 games of new names) and then stays flat. The resident memory every 50 games is printed too.

    .venv/bin/python bench/scale.py                      # both parts, the figures last
    .venv/bin/python bench/scale.py --concurrent 20 --sequential 0
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP, quick
from mafia.models.house import HouseModel
from mafia.play.runner import run_game, sqlite_checkpointer

NAMES = ("Ada", "Bram", "Cleo", "Dario", "Esme", "Felix", "Greta", "Hugo", "Ines", "Jonas")


QUICK = quick()


def rss_kb() -> int:
    """Resident memory of this process now, in kB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() // 1024


def concurrent(games: int, players: int) -> dict[str, float]:
    """``games`` games at once; their peak memory and throughput."""
    with (
        tempfile.TemporaryDirectory(prefix="mafia-scale-") as tmp,
        sqlite_checkpointer(Path(tmp) / "checkpoints.sqlite") as saver,
    ):

        def play(seed: int) -> str | None:
            config = {"seed": seed, "players": players}
            state = run_game(config, model=HouseModel(seed=seed), checkpointer=saver, out_dir=tmp)
            return state["winner"]

        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=games) as pool:
            winners = list(pool.map(play, range(games)))
        seconds = time.perf_counter() - start
    finished = sum(w is not None for w in winners)
    return {
        "games": games,
        "finished": finished,
        "seconds": round(seconds, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "games_per_minute": round(finished / seconds * 60, 1),
    }


def sequential(games: int, warmup: int, players: int) -> dict[str, Any]:
    """``games`` games one after another, new names each game; memory gained per game after ``warmup``."""
    base = 0
    trace: list[int] = []  # resident MB every 50 games: where the bounded caches fill up
    with (
        tempfile.TemporaryDirectory(prefix="mafia-scale-") as tmp,
        sqlite_checkpointer(Path(tmp) / "checkpoints.sqlite") as saver,
    ):
        start = time.perf_counter()
        for game in range(games):
            names = [f"{NAMES[seat % len(NAMES)]} {game}-{seat}" for seat in range(players)]
            run_game(
                {"seed": game, "names": names}, model=HouseModel(seed=game), checkpointer=saver, out_dir=tmp
            )
            if game + 1 == warmup:
                gc.collect()
                base = rss_kb()
            if (game + 1) % 50 == 0:
                trace.append(rss_kb() // 1024)
        seconds = time.perf_counter() - start
        gc.collect()
        end = rss_kb()
    return {
        "games": games,
        "warmup": warmup,
        "rss_after_warmup_mb": round(base / 1024, 1),
        "rss_end_mb": round(end / 1024, 1),
        "seconds": round(seconds, 1),
        "rss_mb_every_50_games": trace,
        "rss_growth_kb_per_game": round((end - base) / (games - warmup), 1),
    }


def in_child(*args: str) -> dict[str, Any]:
    """Run one part in a fresh process and read its figures (in this one in quick mode, whose
    figures mean little anyway)."""
    if QUICK:
        kind, *numbers = args
        values = [int(n) for n in numbers]
        return concurrent(*values) if kind == "concurrent" else sequential(*values)
    done = subprocess.run(
        [sys.executable, __file__, "--part", *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"the part {args[0]} failed:\n{done.stderr}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--concurrent", type=int, default=200, help="games at once (0: skip)")
    parser.add_argument("--sequential", type=int, default=500, help="games one after another (0: skip)")
    parser.add_argument(
        "--warmup", type=int, default=300, help="sequential games before the growth is measured"
    )
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--part", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.concurrent, args.sequential, args.warmup, args.players = 2, 3, 1, 5
    if args.part:  # a child: one part, its figures as one JSON line
        kind, *numbers = args.part
        values = [int(n) for n in numbers]
        figures = concurrent(*values) if kind == "concurrent" else sequential(*values)
        print(json.dumps(figures))
        return
    if args.sequential and not 0 < args.warmup < args.sequential:
        parser.error("--warmup must be more than 0 and fewer than --sequential")
    lines: list[str] = []
    if args.concurrent:
        figures = in_child("concurrent", str(args.concurrent), str(args.players))
        print(f"concurrent: {figures}", flush=True)
        lines += [f"peak_rss_mb={figures['peak_rss_mb']}", f"games_per_minute={figures['games_per_minute']}"]
    if args.sequential:
        figures = in_child("sequential", str(args.sequential), str(args.warmup), str(args.players))
        print(f"sequential: {figures}", flush=True)
        lines.append(f"rss_growth_kb_per_game={figures['rss_growth_kb_per_game']}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
