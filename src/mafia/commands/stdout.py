"""The command's standard output: a rich console whose failed writes (a full disk, a closed pipe)
raise ``OutputLost``, so the command line tells them from a game's fault and says so in one line."""

from __future__ import annotations

import sys
from typing import Any, cast

from rich.console import Console


class OutputLost(OSError):
    """Standard output refused what was written to it (a full disk, a closed pipe)."""


class Stdout:
    """Standard output for a rich console, as it is at each write (a test may swap it), turning
    a failed write into ``OutputLost`` so that the command line tells it from a game's fault."""

    def write(self, text: str) -> int:
        try:
            return sys.stdout.write(text)
        except OSError as exc:
            raise OutputLost(exc.errno, exc.strerror) from exc

    def flush(self) -> None:
        try:
            sys.stdout.flush()
        except OSError as exc:
            raise OutputLost(exc.errno, exc.strerror) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(sys.stdout, name)


def terminal() -> Console:
    """The console a command prints its output to (standard output, guarded by ``Stdout``)."""
    return Console(file=cast(Any, Stdout()), highlight=False)
