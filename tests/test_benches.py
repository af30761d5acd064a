"""Every script under bench/ runs in its quick mode (``--quick``: a few small games) and prints its
``name=value`` figures, so no bench can break unnoticed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if p.name != "benchlib.py")
FIGURE = re.compile(r"^[a-z][a-z0-9_]*=\S+$", re.M)


def run_quick(script: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LANGSMITH_TRACING": "false"}
    return subprocess.run(
        [sys.executable, str(BENCH / script), "--quick"], capture_output=True, text=True, env=env, cwd=BENCH
    )


def figures(stdout: str) -> dict[str, str]:
    """The ``name=value`` lines a bench printed (a line of several pairs counts each)."""
    return dict(
        pair.split("=", 1) for line in stdout.splitlines() for pair in line.split() if FIGURE.match(pair)
    )


# Figures a bench's quick mode must print with these values, and figures that must be above zero.
EXACT = {"tournament.py": {"games": "6", "concurrency": "8"}}
POSITIVE = {"tournament.py": ("games_per_minute", "peak_rss_mb")}


@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_runs_in_quick_mode(script: str) -> None:
    done = run_quick(script)
    assert done.returncode == 0, f"{script} failed:\n{done.stderr[-3000:]}"
    found = figures(done.stdout)
    assert found, f"{script} printed no name=value figure:\n{done.stdout[-2000:]}"
    for name, value in EXACT.get(script, {}).items():
        assert found.get(name) == value, f"{script}: {name}={found.get(name)}, not {value}"
    for name in POSITIVE.get(script, ()):
        assert float(found[name]) > 0, f"{script}: {name}={found[name]}"


def test_a_broken_bench_fails_the_smoke_run(tmp_path: Path) -> None:
    """A planted fault (the old cold-cache call of bench/context_build.py) fails the run."""
    broken = tmp_path / "broken.py"
    broken.write_text("from mafia import views\nviews._views.clear()\nprint('x=1')\n")
    done = subprocess.run([sys.executable, str(broken), "--quick"], capture_output=True, text=True)
    assert done.returncode != 0 and "AttributeError" in done.stderr


def test_every_bench_has_a_quick_mode() -> None:
    assert len(SCRIPTS) >= 11
    for script in SCRIPTS:
        assert "quick" in (BENCH / script).read_text(), script
