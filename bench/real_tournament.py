"""A tournament of two real local models with the two weaker offline ones: SmolLM2-135M-Instruct and
Gemma 3 270M, each on its own ``llama-server`` with the ``grammar`` schema dialect, at one table with
``random-legal`` and ``house-sloppy``.

Opt-in (it finds or builds ``llama-server`` and the model files, see ``tests/support/local_llama.py``). It
runs ``mafia tournament`` (5 seats, 12 games by default: three deals, each played once per model,
so the games of a deal are paired) into ``--out``; running the same command again resumes it, the
servers being started on the same ports (the tournament's ask holds their URLs). The machine's
one-minute load average is sampled every 5 s into ``OUT/load.tsv`` across runs. With ``--report
DIR`` it then writes the tournament's report, page included (``DIR/index.html``). ``--figures``
prints the figures of the tournament in ``--out`` as it stands (finished games only) and plays
nothing.

Prints ``games=``, ``finished=``, ``wall_s=`` (this run), ``load_average_mean=`` and ``_max=``
(every run), and per model ``LABEL_calls=``, ``_reasks_per_call=``, ``_fallbacks=``,
``_server_seconds_per_call=`` (llama.cpp's own time: prompt evaluation and generation),
``_rating=``, ``_rating_low=`` and ``_rating_high=`` (a ``-`` of a label printed as ``_``).
``--quick`` plays 4 one-round games with a fake OpenAI-compatible server in place of both
models, a smoke test of the script.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from benchlib import QUICK_FLAG, QUICK_HELP
from fakes.openai_server import openai_server
from local_llama import gemma3_gguf, serve, smollm2_gguf
from mafia.tournament.results import load_tournament
from mafia.tournament.standings import standings

TOURNAMENT_ID = "real"
# Label, model file, port: fixed ports, so a resumed run's servers have the URLs its ask recorded.
REAL_MODELS = (("smollm2", smollm2_gguf, 18431), ("gemma3", gemma3_gguf, 18432))
OFFLINE = ("random-legal", "house-sloppy")

MODEL_FILE = """\
[model]
model = "openai:{label}"
base_url = "{url}"
schema = "grammar"
timeout = 1800
max_tokens = {max_tokens}
temperature = 0.7
seed = 1
max_concurrent = {parallel}
extra_body = {{ repeat_penalty = 1.15 }}
"""


@contextlib.contextmanager
def sampling_load(path: Path, every: float = 5.0) -> Iterator[None]:
    """Append the one-minute load average to ``path`` (``unix time<TAB>load``) every ``every``
    seconds while the block runs, and once at its start."""
    stop = threading.Event()

    def sample() -> None:
        with path.open("a", encoding="utf-8") as out:
            while True:
                out.write(f"{time.time():.0f}\t{os.getloadavg()[0]:.2f}\n")
                out.flush()
                if stop.wait(every):
                    return

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@contextlib.contextmanager
def model_servers(args: argparse.Namespace, folder: Path) -> Iterator[dict[str, str]]:
    """Each real model's label and the base URL of its server: a ``llama-server`` apiece, or in
    quick mode one fake OpenAI-compatible server (the house model behind the same HTTP path)."""
    with contextlib.ExitStack() as stack:
        if args.quick:
            url = stack.enter_context(openai_server()).base_url
            yield {label: url for label, _, _ in REAL_MODELS}
            return
        urls = {}
        for label, gguf, port in REAL_MODELS:
            urls[label] = stack.enter_context(
                serve(
                    args.parallel,
                    context=args.context,
                    log=folder / f"{label}-server.log",
                    threads=args.threads,
                    model=gguf(),
                    port=port,
                )
            )
        yield urls


def tournament_command(args: argparse.Namespace, folder: Path, urls: dict[str, str]) -> list[str]:
    """The ``mafia tournament`` command of the bench, writing each real model's file beside it."""
    models = []
    for label, url in urls.items():
        path = folder / f"{label}.toml"
        path.write_text(
            MODEL_FILE.format(label=label, url=url, max_tokens=args.max_tokens, parallel=args.parallel),
            encoding="utf-8",
        )
        models += ["--model", f"{label}={path}"]
    models += [arg for spec in OFFLINE for arg in ("--model", spec)]
    command = [str(Path(sys.executable).parent / "mafia"), "tournament", *models]
    command += ["--games", str(args.games), "--players", str(args.players), "--id", TOURNAMENT_ID]
    command += ["--concurrency", str(args.concurrency), "--out", str(folder), "--quiet"]
    if args.round_cap is not None:
        command += ["--round-cap", str(args.round_cap)]
    return command


def figures(folder: Path, wall: float) -> list[str]:
    """The ``name=value`` lines of the tournament in ``folder`` (its finished games, read from its
    logs, so a tournament still playing has figures too) and its load samples; ``wall`` is this
    run's seconds (0: none played, no ``wall_s``)."""
    summary = standings(load_tournament(folder / f"tournament-{TOURNAMENT_ID}"))
    loads = [float(line.split("\t")[1]) for line in (folder / "load.tsv").read_text().splitlines()]
    lines = [
        f"games={summary['games']}",
        f"finished={summary['finished']}",
        *([f"wall_s={wall:.0f}"] if wall else []),
        f"load_average_mean={sum(loads) / len(loads):.2f}",
        f"load_average_max={max(loads):.2f}",
    ]
    for model in summary["models"]:
        cost = summary["costs"][model]
        per_call = cost["per_call"]
        label = model.replace("-", "_")
        lines += [
            f"{label}_calls={cost['calls'] * cost['games']:.0f}",
            f"{label}_reasks_per_call={per_call['reasks']:.3f}",
            f"{label}_fallbacks={cost['fallbacks'] * cost['games']:.0f}",
        ]
        if per_call["server_seconds"] is not None:
            lines.append(f"{label}_server_seconds_per_call={per_call['server_seconds']:.2f}")
        rating = summary["ratings"]["overall"].get(model)
        if rating is not None:
            lines += [f"{label}_rating={rating['mu']:.1f}"]
            lines += [f"{label}_rating_low={rating['low']:.1f}", f"{label}_rating_high={rating['high']:.1f}"]
    return lines


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=None, help="where the tournament goes (default: a temporary folder)"
    )
    parser.add_argument("--games", type=int, default=12, help="a multiple of 4 (default 12)")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--round-cap", type=int, default=None, help="default: the game's own")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--parallel", type=int, default=2, help="each server's slots (default 2)")
    parser.add_argument("--context", type=int, default=16384, help="each server's context, all slots")
    parser.add_argument("--threads", type=int, default=1, help="each server's compute threads")
    parser.add_argument("--max-tokens", type=int, default=512, help="output limit of an answer")
    parser.add_argument("--report", type=Path, default=None, help="write the report (page included) here")
    parser.add_argument(
        "--figures", action="store_true", help="print the figures of the tournament in --out, and play none"
    )
    parser.add_argument(QUICK_FLAG, action="store_true", help=QUICK_HELP)
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    if args.quick:
        args.games, args.round_cap = 4, 1
    if args.figures:
        if args.out is None:
            sys.exit("--figures: give the tournament's --out folder")
        print("\n".join(figures(args.out, 0.0)), flush=True)
        return
    with contextlib.ExitStack() as stack:
        folder = args.out or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        with sampling_load(folder / "load.tsv"), model_servers(args, folder) as urls:
            command = tournament_command(args, folder, urls)
            print("# " + " ".join(command), flush=True)
            env = {**os.environ, "LANGSMITH_TRACING": "false"}
            done = subprocess.run(command, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"mafia tournament exited with {done.returncode}:\n{done.stderr[-3000:]}")
        print("\n".join(figures(folder, wall)), flush=True)
        if args.report is not None:
            mafia = str(Path(sys.executable).parent / "mafia")
            report = [mafia, "tournament", "report", str(folder / f"tournament-{TOURNAMENT_ID}")]
            report += ["--out", str(args.report), "--html", str(args.report / "index.html")]
            print("# " + " ".join(report), flush=True)
            subprocess.run(report, check=True, env=env)


if __name__ == "__main__":
    main()
