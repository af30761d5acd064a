"""Every script under bench/ runs in its quick mode (``--quick``: a few small games) and prints its
``name=value`` figures, so no bench can break unnoticed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from repo import BENCH, SUPPORT

# Whole-system tests: run with `make test-slow` (and in CI), not by `make test`.
pytestmark = pytest.mark.slow

SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if p.name != "benchlib.py")
DRIVER = SUPPORT / "bench_driver.py"
FIGURE = re.compile(r"^[a-z][a-z0-9_]*=\S+$", re.M)


def run_quick(*scripts: str | Path) -> dict[str, dict[str, Any]]:
    """Each script's exit code and output in its quick mode, from ``bench_driver`` (a process per
    script, forked once the engine is loaded)."""
    env = {**os.environ, "LANGSMITH_TRACING": "false"}
    done = subprocess.run(
        [sys.executable, str(DRIVER), *map(str, scripts)], capture_output=True, text=True, env=env, cwd=BENCH
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return results


def figures(stdout: str) -> dict[str, str]:
    """The ``name=value`` lines a bench printed (a line of several pairs counts each)."""
    return dict(
        pair.split("=", 1) for line in stdout.splitlines() for pair in line.split() if FIGURE.match(pair)
    )


# Figures a bench's quick mode must print with these values, and figures that must be above zero.
EXACT = {
    "tournament.py": {"games": "6", "concurrency": "8"},
    "judged_play.py": {"games": "4", "design": "teams"},
}
POSITIVE = {"tournament.py": ("games_per_minute", "peak_rss_mb")}


def check_quick_run(script: str, done: dict[str, Any]) -> list[str]:
    """What is wrong with one script's quick run: its exit code, no figures, a figure not as due."""
    if done["code"] != 0:
        return [f"{script} failed (exit code {done['code']}):\n{done['stderr'][-3000:]}"]
    found = figures(done["stdout"])
    if not found:
        return [f"{script} printed no name=value figure:\n{done['stdout'][-2000:]}"]
    wrong = [
        f"{script}: {name}={found.get(name)}, not {value}"
        for name, value in EXACT.get(script, {}).items()
        if found.get(name) != value
    ]
    return wrong + [
        f"{script}: {name}={found.get(name)}"
        for name in POSITIVE.get(script, ())
        if not float(found.get(name, 0)) > 0
    ]


# The scripts in a few groups, one test each: a driver loads the engine once per group, and the
# groups run on the suite's several workers instead of one worker running every bench in turn.
GROUPS = 4


@pytest.mark.parametrize("group", range(GROUPS))
def test_every_bench_runs_in_quick_mode(group: int) -> None:
    """Each script of the group exits cleanly and prints its figures, with the values due."""
    scripts = SCRIPTS[group::GROUPS]
    results = run_quick(*scripts)
    assert sorted(results) == scripts
    faults = [fault for script in scripts for fault in check_quick_run(script, results[script])]
    assert faults == [], "\n".join(faults)


def test_a_broken_bench_fails_the_smoke_run(tmp_path: Path) -> None:
    """A planted fault (the old cold-cache call of bench/context_build.py) fails the run, and a
    script's exit code and missing figures are reported as the driver saw them."""
    broken = tmp_path / "broken.py"
    broken.write_text("from mafia.context import views\nviews._views.clear()\nprint('x=1')\n")
    silent = tmp_path / "silent.py"
    silent.write_text("import sys\nprint('no figures here')\nsys.exit(3)\n")
    quiet = tmp_path / "quiet.py"
    quiet.write_text("print('nothing to see')\n")
    results = run_quick(broken, silent, quiet)
    assert results[str(broken)]["code"] == 1 and "AttributeError" in results[str(broken)]["stderr"]
    assert results[str(silent)]["code"] == 3
    assert check_quick_run("quiet.py", results[str(quiet)]) == [
        "quiet.py printed no name=value figure:\nnothing to see\n"
    ]


def test_every_bench_has_a_quick_mode() -> None:
    assert len(SCRIPTS) >= 11
    for script in SCRIPTS:
        assert "quick" in (BENCH / script).read_text(), script
