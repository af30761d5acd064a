"""Play the documentation's example arena and tournament from seeds and write their pages.

``make docs`` runs this before ``mkdocs build``: the pages land in ``docs/examples/`` (not in git),
so the site always shows games the engine of this checkout played. The commands are the ones the
docs show, at a size that takes seconds with the offline models; the games' logs and checkpoints
go to a temporary folder and only the reports, plots, tournament page and replays are kept.

Usage: ``python scripts/docs_examples.py [OUT]`` (default ``docs/examples``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MAFIA = str(Path(sys.executable).with_name("mafia"))

ARENA = ["arena", "--games", "4", "--players", "7", "--policy", "full-history"]
ARENA += ["--policy", "seed-window", "--model", "house", "--id", "example", "--quiet"]
TOURNAMENT = ["tournament", "--model", "house", "--model", "house-sloppy", "--model", "random-legal"]
TOURNAMENT += ["--games", "6", "--players", "5", "--id", "example", "--quiet"]


def mafia(*args: str) -> None:
    subprocess.run([MAFIA, *args], check=True, stdout=subprocess.DEVNULL)


def main(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp)
        mafia(*ARENA, "--out", str(runs))
        mafia("arena", "report", str(runs / "arena-example"), "--out", str(out / "arena-example"))
        mafia(*TOURNAMENT, "--out", str(runs))
        page = out / "tournament-example"
        html = str(page / "index.html")
        mafia("tournament", "report", str(runs / "tournament-example"), "--out", str(page), "--html", html)
    print(f"examples written to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/examples"))
