"""What LangSmith tracing costs a game: CPU with tracing to a local endpoint over CPU without, and
the run JSON a game uploads.

A fake LangSmith endpoint (``tests/fakes/langsmith_endpoint.py``, the real service's multipart ingestion
with zstd compression) runs in its own process, so receiving the uploads is not counted. Each mode
plays the same 16-seat house games in its own process (the ``langsmith`` client reads its
environment once): ``plain`` with tracing off, ``turns`` (the default detail) and ``graph``
(LangGraph's own runs) with tracing on. A process warms up on a 7-seat game, then times each game
with ``time.process_time`` (every thread of the process: the client compresses and sends on its
own threads) from its start to the end of the flush that sends its last traces.

Prints ``tracing_cpu_ratio=`` (turns over plain), ``trace_mb_per_game=`` and ``trace_runs_per_game=``
(uncompressed run JSON and runs received per game), and the same for ``graph`` detail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

QUICK = "--quick" in sys.argv[1:]  # one 5-seat game per mode, no warm-up (as benchlib.quick)
SEEDS = (1,) if QUICK else (1, 2, 3, 4)
PLAYERS = 5 if QUICK else 16
ROOT = Path(__file__).resolve().parent.parent
API_KEY = "lsv2_pt_bench-not-a-real-key"


def received(url: str) -> dict[str, int]:
    """Bytes and runs the endpoint has received so far."""
    with urllib.request.urlopen(f"{url}/_received", timeout=10) as reply:
        data: dict[str, int] = json.load(reply)
    return data


def child(mode: str, url: str) -> None:
    """Play the games in this process and print one JSON line per game: CPU, bytes, runs."""
    from mafia.play.runner import run_game
    from mafia.run import tracing

    if not QUICK:
        run_game({"players": 7, "seed": 0})
        tracing.flush(60)
    for seed in SEEDS:
        before = received(url)
        start = time.process_time()
        run_game({"players": PLAYERS, "seed": seed})
        if not tracing.flush(60):
            raise SystemExit("traces were left unsent")
        cpu = time.process_time() - start
        after = received(url)
        line = {"cpu": cpu, "bytes": after["bytes"] - before["bytes"], "runs": after["runs"] - before["runs"]}
        print(json.dumps({"mode": mode, "seed": seed, **line}), flush=True)


def run_mode(mode: str, url: str) -> list[dict[str, float]]:
    env = {
        **os.environ,
        "LANGSMITH_TRACING": "false" if mode == "plain" else "true",
        "LANGSMITH_ENDPOINT": url,
        "LANGSMITH_API_KEY": API_KEY,
        "LANGSMITH_PROJECT": "mafia-bench",
        "MAFIA_TRACE_DETAIL": "graph" if mode == "graph" else "turns",
    }
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, url, *sys.argv[1:]],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fakes" / "langsmith_endpoint.py")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        results = {mode: run_mode(mode, url) for mode in ("plain", "turns", "graph")}
    finally:
        server.kill()
        server.wait()
    plain = sum(r["cpu"] for r in results["plain"])
    for mode in ("turns", "graph"):
        rows = results[mode]
        print(
            f"{mode}: cpu per game "
            + " ".join(f"{r['cpu']:.2f}" for r in rows)
            + f" (plain {plain / len(SEEDS):.2f})"
        )
    suffix = {"turns": "", "graph": "_graph"}
    for mode, tail in suffix.items():
        rows = results[mode]
        print(f"tracing_cpu_ratio{tail}={sum(r['cpu'] for r in rows) / plain:.2f}")
        print(f"trace_mb_per_game{tail}={sum(r['bytes'] for r in rows) / len(rows) / 1e6:.1f}")
        print(f"trace_runs_per_game{tail}={sum(r['runs'] for r in rows) / len(rows):.0f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
