"""Every Python and shell example of README.md and the docs pages runs, offline.

A page's blocks run in order in one fresh folder, as a reader following the page would run them:
shell blocks in bash (``set -euo pipefail``) and Python blocks in this environment's interpreter,
with ``.venv`` and ``examples/`` of this checkout at hand, tracing off, and any OpenAI-compatible
model pointed at a local fake server that answers with the house model (``tests/fakes/openai_server.py``;
the docs' own server addresses are replaced by its, ``doc_blocks.SUBSTITUTIONS``). Standard input
answers ``1`` to every question, so a seat played by a person plays on. A block that exits with an
error fails the test, naming the page and line. The blocks that are not run are listed, with the
reason, in ``doc_blocks.SKIPPED``; ``toml`` blocks are loaded as game files.

The default tier runs the README's Python examples (each an offline game of seconds) and loads
the game-file blocks; every page in full, which plays dozens of games, runs with the slow tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from doc_blocks import LANGUAGES, ROOT, RUN, SKIPPED, SUBSTITUTIONS, Block, blocks, pages, skip_reason
from fakes.openai_server import openai_server
from mafia.run.game_file import parse_game_file

ANSWERS = "1\n" * 5000


def test_every_block_names_a_known_language() -> None:
    bad = [f"{b.where} ```{b.lang}" for p in pages() for b in blocks(p) if b.lang not in LANGUAGES]
    assert bad == [], f"blocks must be one of {LANGUAGES}: {bad}"


def test_each_skipped_block_is_listed_once_and_exists() -> None:
    every = [b for p in pages() for b in blocks(p)]
    for (page, needle), reason in SKIPPED.items():
        matched = [b.where for b in every if b.page == page and needle in b.code]
        assert len(matched) == 1, f"{page} {needle!r} ({reason}) matches {matched}"
        assert reason.strip()


def test_game_file_blocks_load() -> None:
    """A ``toml`` block is a game file's settings, checked as a game file is."""
    loaded = 0
    for p in pages():
        for block in blocks(p):
            if block.lang == "toml" and skip_reason(block) is None:
                parse_game_file(tomllib.loads(block.code), Path(block.where))
                loaded += 1
    assert loaded > 0


def _workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir(parents=True)
    (work / ".venv").symlink_to(ROOT / ".venv")
    shutil.copytree(ROOT / "examples", work / "examples")
    return work


def _env(base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LANGSMITH_"))}
    env.update(
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        OPENAI_BASE_URL=base_url,
        OPENAI_API_KEY="sk-docs-example",
    )
    return env


def runnable(page: Path) -> list[Block]:
    """The page's blocks that are run, in order."""
    return [b for b in blocks(page) if b.lang in RUN and skip_reason(b) is None]


def run_blocks(page: list[Block], work: Path, base_url: str) -> None:
    """Run the blocks in order in ``work``, each after the ones before it."""
    for block in page:
        code = block.code
        for text, placeholder in SUBSTITUTIONS.items():
            code = code.replace(text, placeholder.format(base_url=base_url))
        if block.lang == "python":
            command = [sys.executable, "-c", code]
        else:
            command = ["bash", "-euo", "pipefail", "-c", code]
        done = subprocess.run(
            command,
            cwd=work,
            env=_env(base_url),
            input=ANSWERS,
            capture_output=True,
            text=True,
            timeout=1800,  # a guard against a hung example, not a measure
        )
        assert done.returncode == 0, (
            f"{block.where} ({block.lang}) exited with {done.returncode}\n{code}\n"
            f"--- stderr ---\n{done.stderr[-4000:]}\n--- stdout ---\n{done.stdout[-2000:]}"
        )


# the pages with an example to run (the others hold only drawings, output or skipped blocks)
PAGES = [p.relative_to(ROOT).as_posix() for p in pages() if runnable(p)]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page: str, tmp_path: Path) -> None:
    """Every page's examples, in order, as a reader runs them."""
    with openai_server() as server:
        run_blocks(runnable(ROOT / page), _workdir(tmp_path), server.base_url)


def test_readme_python_examples_run(tmp_path: Path) -> None:
    """The README's Python examples (the default tier's share: offline games, seconds each)."""
    examples = [b for b in runnable(ROOT / "README.md") if b.lang == "python"]
    assert examples
    for i, block in enumerate(examples):
        run_blocks([block], _workdir(tmp_path / str(i)), "http://127.0.0.1:9/v1")


def test_a_broken_example_fails(tmp_path: Path) -> None:
    """The runner reports an example that raises, with the page and line."""
    page = tmp_path / "broken.md"
    page.write_text('# A page\n\n```python\nstate = {"winner": "town"}\nprint(state["winnr"])\n```\n')
    with pytest.raises(AssertionError, match=r"broken\.md:3 \(python\) exited with 1"):
        run_blocks(runnable(page), _workdir(tmp_path), "http://127.0.0.1:9/v1")
