"""The documentation's shape: a short README, no generated output in git, and a site that builds
with strict checks (a broken link, a missing page or an API entry that does not resolve fails it)."""

from __future__ import annotations

import subprocess

import pytest

from repo import ROOT

README_MOST_LINES = 200
DOCS_MOST_BYTES = 3_000_000


def tracked_bytes(folder: str) -> int:
    """Bytes of the files git tracks under ``folder`` (as they are in the working tree)."""
    names = subprocess.run(
        ["git", "ls-files", "-z", "--", folder], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    return sum((ROOT / n.decode()).stat().st_size for n in names if n and (ROOT / n.decode()).exists())


def test_readme_is_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MOST_LINES, f"README.md has {len(lines)} lines"


def test_readme_quick_start_is_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in quick.splitlines()] == ["make play", "make test"]


def test_docs_in_git_stay_small() -> None:
    """What git holds under docs/ is written by people, with a few figures; generated pages are
    played from seeds by `make docs` into docs/examples/, which git ignores."""
    size = tracked_bytes("docs")
    assert 0 < size <= DOCS_MOST_BYTES, f"docs/ holds {size:,} bytes in git"
    ignored = subprocess.run(["git", "check-ignore", "-q", "docs/examples/report.md"], cwd=ROOT, check=False)
    assert ignored.returncode == 0, "docs/examples/ must be ignored by git"


def test_every_page_is_in_the_site_nav() -> None:
    """Each page people write under docs/ (the kept results folders aside) is reachable from the nav."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    written = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    missing = [name for name in written if f" {name}" not in config]
    assert missing == []


@pytest.mark.slow
def test_make_docs_builds_strictly() -> None:
    """`make docs` plays the example pages and builds the site with `mkdocs build --strict`."""
    done = subprocess.run(["make", "docs"], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    site = ROOT / "site"
    for page in ["index.html", "getting-started/index.html", "api/index.html"]:
        assert (site / page).is_file(), page
    assert "run_game" in (site / "api" / "index.html").read_text(encoding="utf-8")
    tournament = site / "examples" / "tournament-example"
    assert (tournament / "index.html").is_file()
    assert len(list((tournament / "replays").glob("*.html"))) == 6
    assert (site / "examples" / "arena-example" / "report" / "index.html").is_file()
