"""Whole games with every seat on a real small model: SmolLM2-135M-Instruct on llama.cpp's server.

Opt-in (it builds or finds ``llama-server`` and the model file, see ``tests/support/local_llama.py``): each
game runs through ``mafia play --config`` with every seat on the ``openai:`` route, so it meets what
a real server sends (prose where a name belongs, answers cut at the token limit, invalid JSON).
One game is played per schema dialect asked (``--schema``, by default ``grammar`` and ``stable``),
the same seed and table, all at once, each on its own server (``--threads`` compute threads each),
so the dialects are compared side by side under the same load. Each figure is printed as
``DIALECT_name=value``: whether the game finished, calls, re-asks and fallbacks by kind, output
tokens and seconds per call, the machine's load average meanwhile, and the prompt tokens the
server reports it served from its cache beside the billing cache model's figure for the same
calls. ``--keep DIR`` keeps the logs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchlib import QUICK_FLAG, QUICK_HELP
from fakes.openai_server import openai_server
from local_llama import serve
from mafia.records.call_kinds import kinds_of

DIALECTS = ("grammar", "stable")

GAME_FILE = """\
seed = {seed}
players = {players}
max_retries = {max_retries}
out = "{out}"
{round_cap}
[model]
model = "openai:smollm2"
base_url = "{url}"
{schema}timeout = 900
max_tokens = {max_tokens}
temperature = 0.7
seed = {seed}
max_concurrent = {parallel}
extra_body = {{ repeat_penalty = 1.15 }}
"""


@contextlib.contextmanager
def load_sampler(every: float = 5.0) -> Iterator[list[float]]:
    """The machine's one-minute load average, sampled every ``every`` seconds while the block runs
    (once at its start too)."""
    samples = [os.getloadavg()[0]]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(every):
            samples.append(os.getloadavg()[0])

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield samples
    finally:
        stop.set()
        thread.join()


@contextlib.contextmanager
def _server(args: argparse.Namespace, folder: Path) -> Iterator[str]:
    """llama-server with the model; in quick mode the test suite's fake OpenAI-compatible server,
    which answers at once (the same CLI and HTTP path, no model)."""
    if args.quick:
        with openai_server() as fake:
            yield fake.base_url
        return
    with serve(args.parallel, log=folder / "llama-server.log", threads=args.threads) as url:
        yield url


def play_local_game(
    args: argparse.Namespace, folder: Path, schema: str | None = None, url: str | None = None
) -> dict[str, Any]:
    """Play one game through the CLI into ``folder`` with the answer schema in dialect ``schema``
    (None: the one inferred for the server), on the server at ``url`` (one is started when none
    is given); the figures of the game."""
    folder.mkdir(parents=True, exist_ok=True)
    if url is None:
        with _server(args, folder) as started:
            return play_local_game(args, folder, schema, started)
    out = folder / "runs"
    game_file = folder / "game.toml"
    game_file.write_text(
        GAME_FILE.format(
            seed=args.seed,
            players=args.players,
            round_cap="" if args.round_cap is None else f"round_cap = {args.round_cap}\n",
            max_retries=args.max_retries,
            out=out,
            url=url,
            schema="" if schema is None else f'schema = "{schema}"\n',
            max_tokens=args.max_tokens,
            parallel=args.parallel,
        ),
        encoding="utf-8",
    )
    mafia = Path(sys.executable).parent / "mafia"
    with load_sampler() as load:
        start = time.perf_counter()
        done = subprocess.run(
            [str(mafia), "play", "--config", str(game_file), "--quiet"],
            capture_output=True,
            text=True,
            env={**os.environ, "LANGSMITH_TRACING": "false"},
        )
        seconds = time.perf_counter() - start
    return {
        "exit_code": done.returncode,
        "stderr": done.stderr[-2000:],
        "seconds": seconds,
        "load": load,
        **read_logs(out),
    }


def read_logs(out: Path) -> dict[str, Any]:
    """The events and the figures of the games logged under ``out``."""
    runs = sorted(out.glob("*/"))
    events = [json.loads(line) for run in runs for line in _lines(run / "events.jsonl")]
    prompts = [json.loads(line) for run in runs for line in _lines(run / "prompts.jsonl")]
    return {"events": events, **figures(events, prompts)}


def read_kept(folder: Path) -> dict[str, Any]:
    """The figures of a game kept in ``folder`` (``--keep``), finished or stopped, read back from
    its logs: its time runs from the game file's writing to the prompts log's last line, and no
    load average was sampled."""
    logs = sorted((folder / "runs").glob("*/prompts.jsonl"))
    seconds = max((f.stat().st_mtime for f in logs), default=0.0) - (folder / "game.toml").stat().st_mtime
    return {"exit_code": 0, "seconds": seconds, "load": [], **read_logs(folder / "runs")}


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def figures(events: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> dict[str, Any]:
    """What a game's logs say: the end, calls, re-asks and fallbacks by kind, output tokens (the
    server's count where it reports one, else o200k), and the cache as served and as modelled."""
    attempts = [attempt for record in prompts for attempt in record.get("attempts", [])]
    usages = [a.get("provider_usage") for a in attempts]
    reported = [u for u in usages if isinstance(u, dict)]
    complete = bool(attempts) and len(reported) == len(attempts)
    return {
        "finished": any(e.get("type") == "game_over" for e in events),
        "winner": next((e.get("winner") for e in events if e.get("type") == "game_over"), None),
        "rounds": max((int(e.get("round", 0)) for e in events), default=0),
        "turns": len(prompts),
        "calls": len(attempts),
        "reasks": kinds_of(prompts).reasks,
        "dialects": Counter(str(a.get("schema")) for a in attempts),
        "rejected": Counter(str(a.get("kind")) for a in attempts if a.get("error")),
        "fallbacks": Counter(str(e.get("kind")) for e in events if e.get("type") == "fallback"),
        "unkinded": sum(1 for e in events if e.get("type") == "fallback" and not e.get("kind"))
        + sum(1 for a in attempts if a.get("error") and not a.get("kind")),
        "output_tokens_o200k": sum(int(a.get("output_tokens", 0)) for a in attempts),
        "output_tokens_server": (
            sum(int(u.get("completion_tokens") or 0) for u in reported) if complete else None
        ),
        "server_cache": _server_cache(reported) if complete else None,
        "usage_missing": len(attempts) - len(reported),
        "model_cached": sum(int(a.get("cached_tokens", 0)) for a in attempts),
        "model_prompt": sum(
            int(a.get("prompt_tokens", 0)) + int(a.get("schema_tokens", 0)) for a in attempts
        ),
    }


def _server_cache(usages: list[dict[str, Any]]) -> tuple[int, int] | None:
    """(prompt tokens the server served from its cache, prompt tokens in all) from llama.cpp's
    ``timings`` (``cache_n`` reused, ``prompt_n`` evaluated), or None if a call lacks them."""
    if any(u.get("cache_n") is None or u.get("prompt_n") is None for u in usages):
        return None
    cached = sum(int(u["cache_n"]) for u in usages)
    return cached, cached + sum(int(u["prompt_n"]) for u in usages)


def report(name: str, result: dict[str, Any]) -> list[str]:
    """The ``name_figure=value`` lines of one game (and ``#`` notes where a figure is missing)."""
    calls = max(result["calls"], 1)
    lines = [
        f"{name}_winner={result['winner']}",
        f"{name}_rounds={result['rounds']}",
        f"{name}_turns={result['turns']}",
        f"{name}_calls={result['calls']}",
    ]
    lines += [f"{name}_rejected_{kind}={n}" for kind, n in sorted(result["rejected"].items())]
    lines += [f"{name}_fallback_{kind}={n}" for kind, n in sorted(result["fallbacks"].items())]
    lines += [
        f"{name}_fallbacks={sum(result['fallbacks'].values())}",
        f"{name}_unlogged_kinds={result['unkinded']}",
        f"{name}_reasks_per_call={result['reasks'] / calls:.3f}",
    ]
    if result["output_tokens_server"] is not None:
        lines.append(f"{name}_output_tokens_per_call={result['output_tokens_server'] / calls:.1f}")
    else:
        lines.append(f"# {name}: the server's output token counts are unavailable; o200k counts follow")
    lines.append(f"{name}_output_tokens_per_call_o200k={result['output_tokens_o200k'] / calls:.1f}")
    lines.append(f"{name}_seconds_per_call={result['seconds'] / calls:.2f}")
    load = result["load"]
    if load:
        lines.append(f"{name}_load_average_mean={sum(load) / len(load):.2f}")
        lines.append(f"{name}_load_average_max={max(load):.2f}")
    else:
        lines.append(f"# {name}: no load average was sampled (figures read back from kept logs)")
    model_share = result["model_cached"] / max(result["model_prompt"], 1)
    lines.append(f"{name}_model_cached_share={model_share:.3f}")
    if result["server_cache"] is not None:
        cached, total = result["server_cache"]
        lines.append(f"{name}_server_cached_share={cached / max(total, 1):.3f}")
        lines.append(f"{name}_server_cached_tokens_per_call={cached / calls:.1f}")
    else:
        why = (
            f"{result['usage_missing']} of {result['calls']} attempts carry no provider_usage"
            if result["usage_missing"]
            else "the server reported no timings.cache_n / prompt_n"
        )
        lines.append(f"# {name}: server cache figures unavailable: {why}")
        lines.append(f"{name}_server_cached_share=unavailable")
    lines.append(f"{name}_local_game_finished={int(result['finished'] and result['exit_code'] == 0)}")
    return lines


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--round-cap", type=int, default=None, help="default: the game's own")
    parser.add_argument("--max-retries", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=768)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1, help="llama-server's compute threads")
    parser.add_argument(
        "--schema", action="append", choices=DIALECTS, help="a dialect to play (repeatable; default: both)"
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep the logs in this folder")
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        help="print the figures of games kept in this folder, and play none",
    )
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    if args.quick:
        args.round_cap = 1
    dialects = args.schema or list(DIALECTS)
    if args.report is not None:
        for dialect in dialects:
            if (args.report / dialect / "game.toml").exists():
                print("\n".join(report(dialect, read_kept(args.report / dialect))), flush=True)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        # The dialects play at the same time, each on its own server: both meet the same load.
        with ThreadPoolExecutor(len(dialects)) as pool:
            results = list(pool.map(lambda d: play_local_game(args, folder / d, d), dialects))
    for dialect, result in zip(dialects, results, strict=True):
        if result["exit_code"] != 0:
            print(result["stderr"], file=sys.stderr)
        print("\n".join(report(dialect, result)), flush=True)


if __name__ == "__main__":
    main()
