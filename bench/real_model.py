"""A whole game with every seat on a real small model: SmolLM2-135M-Instruct on llama.cpp's server.

Opt-in (it builds or finds ``llama-server`` and the model file, see ``tests/local_llama.py``): the
game runs through ``mafia play --config`` with every seat on the ``openai:`` route, so it meets what
a real server sends (prose where a name belongs, answers cut at the token limit, invalid JSON).
Prints ``local_game_finished=1`` when the game reached its end, the calls made, fallbacks by kind
and seconds per call. ``--keep DIR`` keeps the logs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP
from local_llama import serve
from openai_server import openai_server

GAME_FILE = """\
seed = {seed}
players = {players}
round_cap = {round_cap}
max_retries = {max_retries}
out = "{out}"

[model]
model = "openai:smollm2"
base_url = "{url}"
timeout = 900
max_tokens = {max_tokens}
temperature = 0.7
seed = {seed}
max_concurrent = {parallel}
extra_body = {{ repeat_penalty = 1.15 }}
"""


@contextmanager
def _server(args: argparse.Namespace, folder: Path) -> Iterator[str]:
    """llama-server with the model; in quick mode the test suite's fake OpenAI-compatible server,
    which answers at once (the same CLI and HTTP path, no model)."""
    if args.quick:
        with openai_server() as fake:
            yield fake.base_url
        return
    with serve(parallel=args.parallel, log=folder / "llama-server.log") as url:
        yield url


def play_local_game(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Serve the model, play one game through the CLI into ``folder``; the figures of the game."""
    out = folder / "runs"
    with _server(args, folder) as url:
        game_file = folder / "game.toml"
        game_file.write_text(
            GAME_FILE.format(
                seed=args.seed,
                players=args.players,
                round_cap=args.round_cap,
                max_retries=args.max_retries,
                out=out,
                url=url,
                max_tokens=args.max_tokens,
                parallel=args.parallel,
            ),
            encoding="utf-8",
        )
        mafia = Path(sys.executable).parent / "mafia"
        start = time.perf_counter()
        done = subprocess.run(
            [str(mafia), "play", "--config", str(game_file), "--quiet"],
            capture_output=True,
            text=True,
            env={**os.environ, "LANGSMITH_TRACING": "false"},
        )
        seconds = time.perf_counter() - start
    events_files = sorted(out.glob("*/events.jsonl"))
    events = [json.loads(line) for f in events_files for line in f.read_text(encoding="utf-8").splitlines()]
    prompts = [
        json.loads(line)
        for f in sorted(out.glob("*/prompts.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
    ]
    calls = sum(len(record.get("attempts", [])) or 1 for record in prompts)
    rejected = Counter(
        str(attempt.get("kind"))
        for record in prompts
        for attempt in record.get("attempts", [])
        if attempt.get("error")
    )
    fallbacks = Counter(str(e.get("kind")) for e in events if e.get("type") == "fallback")
    return {
        "exit_code": done.returncode,
        "stderr": done.stderr[-2000:],
        "finished": any(e.get("type") == "game_over" for e in events),
        "winner": next((e.get("winner") for e in events if e.get("type") == "game_over"), None),
        "turns": len(prompts),
        "calls": calls,
        "rejected": rejected,
        "fallbacks": fallbacks,
        "unkinded": sum(1 for e in events if e.get("type") == "fallback" and not e.get("kind"))
        + sum(
            1
            for record in prompts
            for attempt in record.get("attempts", [])
            if attempt.get("error") and not attempt.get("kind")
        ),
        "seconds": seconds,
        "events": events,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--round-cap", type=int, default=3)
    parser.add_argument("--max-retries", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=768)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--keep", type=Path, default=None, help="keep the logs in this folder")
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    if args.quick:
        args.round_cap = 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        result = play_local_game(args, folder)
    if result["exit_code"] != 0:
        print(result["stderr"], file=sys.stderr)
    print(f"winner={result['winner']}")
    print(f"turns={result['turns']}")
    print(f"calls={result['calls']}")
    for kind, count in sorted(result["rejected"].items()):
        print(f"rejected_{kind}={count}")
    for kind, count in sorted(result["fallbacks"].items()):
        print(f"fallback_{kind}={count}")
    print(f"fallbacks={sum(result['fallbacks'].values())}")
    print(f"unlogged_kinds={result['unkinded']}")
    print(f"seconds_per_call={result['seconds'] / max(result['calls'], 1):.2f}")
    print(f"local_game_finished={int(result['finished'] and result['exit_code'] == 0)}")


if __name__ == "__main__":
    main()
