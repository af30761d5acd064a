"""The code blocks of README.md and the docs pages, and how the tests run them.

Every fenced block names its language: ``python`` and ``sh`` blocks are run, ``toml`` blocks are
game-file settings and are loaded as a game file, ``text`` blocks (drawings, printed output) are
read by people only. The blocks that are not run are listed in ``SKIPPED``, each with its reason,
in this one place; the addresses of servers the docs show are replaced by the test's own local
server (``SUBSTITUTIONS``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from repo import ROOT

DOCS = ROOT / "docs"
GENERATED = DOCS / "examples"  # written by `make docs` from seeds, not in git

RUN = ("python", "sh")
LANGUAGES = (*RUN, "toml", "text")

FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass(frozen=True)
class Block:
    page: str  # relative to the project's root
    line: int  # the line of the opening fence
    lang: str
    code: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


# (page, a line of the block) -> why the block is not run
SKIPPED: dict[tuple[str, str], str] = {
    ("README.md", "make test   # ruff, mypy"): "make test is the whole default suite itself, which CI "
    "runs on a clean clone; make play is mafia play, which the next blocks run",
    ("docs/getting-started.md", "make test   # ruff, mypy"): "the README's quick start (above)",
    ("docs/command-line.md", "export MAFIA_CHECKPOINT_DSN"): "needs a PostgreSQL server; "
    "tests/runs/test_postgres.py plays and resumes games on one (make test-slow)",
    ("docs/models.md", "llama-server -m MODEL.gguf"): "needs llama.cpp's server and a model file; "
    "bench/real_model.py builds and serves one (opt-in: pytest -m local_model)",
    ("docs/server.md", "make serve  "): "a server that runs until it is stopped; "
    "tests/server/test_serve_command.py starts mafia serve with no URIs and stops it (make test-slow)",
    ("docs/server.md", "make server-venv"): "needs PostgreSQL, Redis and the server extra; "
    "tests/server/test_server_queue.py runs the same commands against local ones (make test-slow)",
    ("docs/studio.md", ".venv/bin/langgraph dev"): "a server that runs until it is stopped; "
    "tests/server/test_langgraph_dev.py starts it and plays through it (make test-slow)",
    ("docs/tracing.md", "export LANGSMITH_TRACING=true"): "needs a LangSmith key and endpoint; "
    "tests/runs/test_tracing.py traces games to a local stand-in of the API (make test-slow)",
    ("docs/testing.md", "bench/context_build.py"): "every bench in full takes minutes to hours; "
    "tests/arena/test_benches.py runs each one's --quick mode (make test-slow)",
    ("docs/arena-policies-8/README.md", "--policy one-round-window --policy layered"): "records "
    "how the kept figures were made: 700 games",
    ("docs/arena-policies-8/README.md", "--policy layered --model house"): "records how the kept "
    "figures were made: 100 games",
    ("docs/arena-policies-8/README.md", "--model house-paired"): "records how the kept figures "
    "were made: 700 games",
    ("docs/arena-policies-12/README.md", "--games 100 --players 12"): "records how the kept "
    "figures were made: hundreds of games",
    ("docs/real-tournament/README.md", "real_tournament.py --out"): "needs llama.cpp's server "
    "built from source and two model packages; bench/real_tournament.py (opt-in)",
}

# text in a block -> what the test puts in its place, for servers the docs show by address
SUBSTITUTIONS = {"http://127.0.0.1:8080/v1": "{base_url}"}


def pages() -> list[Path]:
    """README.md and every Markdown page under docs/ that people write."""
    found = sorted(p for p in DOCS.rglob("*.md") if GENERATED not in p.parents)
    return [ROOT / "README.md", *found]


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of one page, in order; an unclosed fence is an error."""
    name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"{name}:{i + 1}: a code block is never closed")
        found.append(Block(name, i + 1, m.group(1), "\n".join(lines[i + 1 : end]) + "\n"))
        i = end + 1
    return found


def skip_reason(block: Block) -> str | None:
    for (page, needle), reason in SKIPPED.items():
        if page == block.page and needle in block.code:
            return reason
    return None
