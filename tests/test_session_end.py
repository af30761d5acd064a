"""A worker of the default run (``make test``) frees the garbage its tests left before it reports
that it has finished: after that report execnet gives it five seconds to end, then sends it a
SIGINT, whose KeyboardInterrupt in a finaliser is printed as an unraisable exception."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from repo import ROOT, SUPPORT, TESTS

# A test that leaves an object in a cycle, in the oldest generation: only a full collection frees it.
PROBE_TEST = """
import gc
import os
from pathlib import Path

held = []


class Finalised:
    def __del__(self):
        Path(os.environ["PROBE_MARK"]).write_text("finalised")


def test_leaves_a_cycle():
    node = Finalised()
    node.me = node
    held.append(node)
    gc.collect(1)  # still held: moved to the oldest generation
    held.clear()
"""

# What the session-finish hooks leave: whether the cycle was finalised by the time they have all
# run, which is when an xdist worker reports that it has finished.
PROBE_PLUGIN = """
import os
from pathlib import Path

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session, exitstatus):
    result = yield
    if not hasattr(session.config, "workerinput"):  # the controller ends after its workers
        return result
    mark = Path(os.environ["PROBE_MARK"])
    Path(os.environ["PROBE_SEEN"]).write_text(mark.read_text() if mark.exists() else "not yet")
    return result
"""


def test_a_worker_frees_its_tests_garbage_before_it_reports_finished(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE_TEST)
    (tmp_path / "session_end_probe.py").write_text(PROBE_PLUGIN)
    mark, seen = tmp_path / "mark", tmp_path / "seen"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(map(str, [tmp_path, TESTS, SUPPORT])),
        "PROBE_MARK": str(mark),
        "PROBE_SEEN": str(seen),
    }
    # As `make test` runs: an xdist worker, the project's settings and its conftest (as a plugin,
    # since the probe stands outside tests/).
    args = ["-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), "-p", "no:cacheprovider"]
    args += ["-p", "conftest", "-p", "session_end_probe", "-n", "1", "-q", str(tmp_path / "test_probe.py")]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,  # a guard against a hung session, not a measure
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert seen.read_text() == "finalised", output
    assert "Unraisable" not in output and "Traceback" not in output, output
