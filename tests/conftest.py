"""Test-wide settings: no tracing to LangSmith (no test points at a real endpoint), and Ctrl-C
delivered to the games the tests start."""

from __future__ import annotations

import gc
import os
import signal

# The checkpoint stores every checkpoint test runs on (``store``: SQLite, and PostgreSQL when slow).
pytest_plugins = ("stores",)

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"

# A shell without job control starts background commands with SIGINT ignored, and every process
# they start inherits that; the Ctrl-C tests need their games to receive it, as in a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_finish(session: object) -> None:
    """Leave the objects that imports and collection made out of the cyclic collector's full
    passes, and run those passes less often: a worker holds a million objects, and its full passes
    were a tenth of the suite's time. (Only the test process; the games it starts are untouched.)"""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)


def pytest_sessionfinish(session: object, exitstatus: int) -> None:
    """Free the garbage the tests left (the thresholds above leave most of it to the end) before an
    xdist worker reports that it has finished. Once every worker has, execnet gives each five seconds
    to end and then sends it a SIGINT: a KeyboardInterrupt in a finaliser that pytest's closing
    collection runs then, on a busy machine, is printed as an unraisable exception after a green run."""
    gc.collect()
