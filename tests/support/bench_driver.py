"""Runs bench scripts in their quick mode for the smoke test, each in a process of its own forked
from this one once it has loaded the engine: the script runs as ``python SCRIPT --quick`` runs it
(as ``__main__``, from the bench folder, with its arguments and environment), a second of imports
sooner apiece.

``python bench_driver.py SCRIPT...`` (names in ``bench/`` or paths) prints one JSON object: each
script's exit code, stdout and stderr.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from repo import BENCH


def preload() -> None:
    """What every bench loads: its helpers (which turn tracing off before LangChain loads), the
    engine and the tokenizer's table."""
    sys.path.insert(0, str(BENCH))  # a script's own folder comes first on its path
    import benchlib  # noqa: F401
    import mafia.play.runner  # noqa: F401
    from mafia.context.tokens import encoder

    encoder()


def run_script(script: Path, out: int, err: int) -> None:
    """In the forked process: ``script --quick`` with its output in ``out`` and ``err``, then the
    interpreter's own exit (atexit, thread joins) with the script's exit code."""
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.chdir(BENCH)
    sys.argv = [str(script), "--quick"]
    code: Any = 0
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as stop:
        code = stop.code
    except BaseException:
        traceback.print_exc()
        code = 1
    raise SystemExit(code)


def run(script: Path) -> dict[str, Any]:
    """The exit code and output of ``script --quick`` in a forked process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            run_script(script, out.fileno(), err.fileno())
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        return {
            "code": os.waitstatus_to_exitcode(status),
            "stdout": out.read().decode("utf-8", "replace"),
            "stderr": err.read().decode("utf-8", "replace"),
        }


def main() -> None:
    preload()
    results = {name: run(BENCH / name) for name in sys.argv[1:]}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
