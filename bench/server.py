"""Games per minute on a LangGraph server with Postgres and Redis (``mafia serve``), beside the local
arena on the same games, with a fake provider that answers after 200 ms.

Every seat is an ``openai:`` model whose server (a process of its own, so its CPU is no engine's)
answers with the house model after ``DELAY``. The same arena is queued on one server process taking
1, 2 and 4 games at once, and on two processes taking 2 each (each after a warm-up game per worker),
then played locally 2 at once. Engine CPU is the serving processes' own (user + system, from /proc)
or, locally, this process's.

Prints ``games_per_minute_1w=``, ``games_per_minute_2w=``, ``games_per_minute_4w=``,
``games_per_minute_2proc=``, ``local_games_per_minute=``, ``engine_cpu_seconds_per_game_<run>=``
and the peak resident memory of every process, ``peak_rss_mb_<run>_p<n>=`` for each server
process (its VmHWM) and ``peak_rss_mb_local=`` (this process's ru_maxrss), and ``two_workers_speedup=``
(2w over 1w) and ``server_cpu_over_local=`` (2w's CPU per game over local's).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP
from mafia.arena import run_arena
from mafia.arena.queued import collect
from mafia.models.settings import ModelSettings

DELAY = 0.2
TICKS = os.sysconf("SC_CLK_TCK")
RUNS = {"1w": (1, 1), "2w": (1, 2), "4w": (1, 4), "2proc": (2, 2)}  # name: (processes, workers each)


def provider(delay: float) -> None:
    """Serve the fake provider until killed, its URL on the first line."""
    from fakes.openai_server import OpenAIServer

    class Slow(OpenAIServer):
        def completion(self, body: dict[str, Any]) -> dict[str, Any]:
            time.sleep(delay)
            return super().completion(body)

    server = Slow()
    print(server.base_url, flush=True)
    server.httpd.serve_forever()


def cpu_s(pid: int) -> float:
    """A process's CPU seconds so far (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_mb(pid: int) -> float:
    """A process's peak resident memory so far, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def on_server(work: Path, name: str, processes: int, workers: int, ask: dict[str, Any]) -> dict[str, float]:
    """The arena queued on ``processes`` server processes of ``workers`` games each, collected to
    the end: games per minute, engine CPU seconds per game, the largest peak memory."""
    from server_cluster import cluster

    with cluster(work / f"serve-{name}", processes=processes, workers=workers) as made:
        # A warm-up arena first, a game for every worker: a fresh process loads the engine at its
        # first game, which is no game's cost.
        warm = {**ask, "games": processes * workers, "players": 5, "arena_id": "warm"}
        _played(run_arena(**warm, server=made.processes[0].url, queue=True, out=work / f"warm-{name}"))
        pids = [p.proc.pid for p in made.processes]
        cpu_before = sum(cpu_s(pid) for pid in pids)
        start = time.perf_counter()
        games = _played(run_arena(**ask, server=made.processes[0].url, queue=True, out=work / name))
        wall = time.perf_counter() - start
        cpu = sum(cpu_s(pid) for pid in pids) - cpu_before
        peaks = {f"_p{i}": peak_mb(pid) for i, pid in enumerate(pids)}
    return {"gpm": games * 60 / wall, "cpu": cpu / games, **peaks}


def _played(summary: dict[str, Any]) -> int:
    """Collect a queued arena's games until all have finished; how many."""
    folder = Path(summary["run"]["folder"])
    while True:
        progress = collect(folder)
        if progress.stopped:
            raise SystemExit(f"{folder.name}: games stopped on the server: {progress.stopped}")
        if progress.finished == progress.total:
            return progress.total
        time.sleep(0.5)


def local(work: Path, ask: dict[str, Any]) -> dict[str, float]:
    """The same arena in this process, two games at once."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    summary = run_arena(**ask, concurrency=2, out=work / "local")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    games = int(summary["finished"])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"gpm": games * 60 / wall, "cpu": cpu / games, "": after.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=8, help="seeds played (default 8)")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--provider", type=float, help=argparse.SUPPRESS)
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.provider is not None:
        provider(args.provider)
        return
    from server_cluster import unavailable

    if (why := unavailable()) is not None:
        print(f"server_bench=unavailable  # {why}")
        return
    delay, runs = DELAY, RUNS
    if args.quick:
        args.games, args.players, delay, runs = 1, 5, 0.005, {"2w": RUNS["2w"]}
    fake = subprocess.Popen(
        [sys.executable, __file__, "--provider", str(delay)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert fake.stdout is not None
        url = fake.stdout.readline().strip()
        model = ModelSettings(model="openai:fake-200ms", base_url=url)
        ask = {"games": args.games, "players": args.players, "models": {"fake": model}, "arena_id": "bench"}
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            figures = {name: on_server(work, name, *shape, ask) for name, shape in runs.items()}
            figures["local"] = local(work, ask)
    finally:
        fake.kill()
        fake.wait()
    for name, got in figures.items():
        print(
            f"{'local_games_per_minute' if name == 'local' else f'games_per_minute_{name}'}={got['gpm']:.2f}"
        )
        print(f"engine_cpu_seconds_per_game_{name}={got['cpu']:.3f}")
        for process, peak in got.items():
            if process not in ("gpm", "cpu"):
                print(f"peak_rss_mb_{name}{process}={peak:.0f}")
    if "1w" in figures:
        print(f"two_workers_speedup={figures['2w']['gpm'] / figures['1w']['gpm']:.2f}")
    print(f"server_cpu_over_local={figures['2w']['cpu'] / figures['local']['cpu']:.2f}")


if __name__ == "__main__":
    main()
