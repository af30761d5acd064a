"""Start-up cost of the command line: ``help_seconds`` is the median wall time of 5 runs of
``mafia --help`` (a fresh process each, as a user types it), ``import_seconds`` the median time
of 5 fresh interpreters importing ``mafia.cli`` alone (measured inside the interpreter, so the
interpreter's own start is left out). Also ``matplotlib_loaded`` (0 or 1) after ``mafia --help``
and the machine's 1-minute load average, since a busy machine slows both figures. ``--quick`` times
one run of each (the test suite's smoke run)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNS = 1 if "--quick" in sys.argv[1:] else 5
MAFIA = Path(sys.executable).parent / "mafia"
ENV = {**os.environ, "LANGSMITH_TRACING": "false"}
IMPORT_PROBE = (
    "import time\nstart = time.perf_counter()\nimport mafia.cli\nprint(time.perf_counter() - start)"
)
PLOT_PROBE = (
    "import sys\nfrom mafia.cli import app\nsys.argv = ['mafia', '--help']\n"
    "try:\n    app()\nexcept SystemExit:\n    pass\nprint(int('matplotlib' in sys.modules), file=sys.stderr)"
)


def help_seconds() -> float:
    """The median wall time of ``mafia --help``."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run([str(MAFIA), "--help"], env=ENV, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def import_seconds() -> float:
    """The median time a fresh interpreter takes to import ``mafia.cli``."""
    times = []
    for _ in range(RUNS):
        done = subprocess.run(
            [sys.executable, "-c", IMPORT_PROBE], env=ENV, capture_output=True, text=True, check=True
        )
        times.append(float(done.stdout.strip()))
    return statistics.median(times)


def main() -> None:
    print(f"load_average={os.getloadavg()[0]:.2f}")
    print(f"help_seconds={help_seconds():.3f}")
    print(f"import_seconds={import_seconds():.3f}")
    done = subprocess.run(
        [sys.executable, "-c", PLOT_PROBE], env=ENV, capture_output=True, text=True, check=True
    )
    print(f"matplotlib_loaded={done.stderr.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
