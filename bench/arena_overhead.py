"""How well an arena overlaps its games: arena wall time against the games' own wall times.

Every seat is the house model behind a simulated 200 ms model call (``TimedHouseModel``: it sleeps,
then answers as the house model does), so the figure measures the arena's concurrency, not a
model's CPU time. The same seeds are played twice through ``run_arena``: one game at a time (each
game's own wall time, uncontended, from its result.json), then CONCURRENCY at once.

Prints ``solo_wall_s=`` (the games one at a time), ``arena_wall_s=`` (at concurrency 8),
``game_slowdown=`` (a game's wall time inside the arena over its own, median), ``calls=``, and
``arena_speedup=`` (the sum of the games' own wall times / the arena's wall time; 8 would mean the
games overlap perfectly and cost the engine nothing).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from benchlib import QUICK_FLAG, QUICK_HELP, TimedHouseModel
from mafia.arena import run_arena
from mafia.arena.spec import Contestant

DELAY = 0.2
CONCURRENCY = 8


def walls(summary: dict[str, object]) -> dict[int, float]:
    """Each game's own wall time (from its result.json), by seed."""
    folder = Path(str(summary["run"]["folder"]))  # type: ignore[index]
    out = {}
    for path in folder.glob("games/*/*/seed-*/result.json"):
        result = json.loads(path.read_text())
        out[result["seed"]] = result["wall_s"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=16, help="seeds played (default 16)")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    delay = DELAY
    if args.quick:
        args.games, args.players, delay = 1, 5, 0.005
    model = TimedHouseModel(seed=0, delay=delay)
    contestant = Contestant("house-200ms", model)
    with tempfile.TemporaryDirectory() as tmp:
        if not args.quick:
            run_arena(games=1, players=5, models=[Contestant("warm", TimedHouseModel(seed=0))], out=tmp)
        common = {"games": args.games, "players": args.players, "models": [contestant], "out": tmp}
        solo = run_arena(**common, concurrency=1, arena_id="solo")
        calls, _ = model.reset()
        arena = run_arena(**common, concurrency=CONCURRENCY, arena_id="concurrent")
        own, inside = walls(solo), walls(arena)
    assert not solo["run"]["unfinished"] and not arena["run"]["unfinished"]
    solo_sum = sum(own.values())
    arena_wall = arena["run"]["wall_s"]
    slowdown = statistics.median(inside[seed] / own[seed] for seed in own)
    print(f"games={args.games} players={args.players} delay={delay}s concurrency={CONCURRENCY}")
    sys.stdout.flush()
    print(f"solo_wall_s={solo_sum:.2f}")
    print(f"arena_wall_s={arena_wall:.2f}")
    print(f"game_slowdown={slowdown:.3f}")
    print(f"calls={calls}")
    print(f"arena_speedup={solo_sum / arena_wall:.2f}")


if __name__ == "__main__":
    main()
