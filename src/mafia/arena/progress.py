"""The arena's progress bar on stderr (rich, already a dependency): games done of all, games in
play, model calls, tokens sent and fallbacks so far, the time elapsed and the time left at the
pace of the games finished so far, and a line for every game that stopped without finishing. On a
stderr that is no terminal (a log file, a pipe) a bar cannot redraw and would be cut at the
console's width: each finished game prints the same figures as one whole line instead."""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from mafia.game.state import JSON
from mafia.records.call_kinds import call_count

logger = logging.getLogger("mafia.arena")


class ArenaProgress:
    """Thread-safe counters shown as one bar; with ``enabled`` False it only counts."""

    def __init__(self, title: str, total: int, done: int, enabled: bool) -> None:
        self.console = Console(stderr=True, highlight=False)
        self.calls = 0
        self.tokens = 0
        self.fallbacks = 0
        self.running = 0
        self.unfinished = 0
        self._lock = threading.Lock()
        self._bar: Progress | None = None
        self._lines = enabled and not self.console.is_terminal
        self._title, self._total, self._done, self._first = title, total, done, done
        self._start = time.monotonic()
        if enabled and not self._lines:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("games  {task.fields[running]} playing  {task.fields[calls]} calls"),
                TextColumn("{task.fields[tokens]:,} tokens  {task.fields[fallbacks]} fallbacks"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
                transient=False,
            )
            self._task = self._bar.add_task(
                title, total=total, completed=done, running=0, calls=0, tokens=0, fallbacks=0
            )

    def __enter__(self) -> ArenaProgress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def _show(self, advance: int = 0) -> None:
        self._done += advance
        if self._lines and advance:
            self.console.print(self.line(), soft_wrap=True, markup=False, highlight=False)
        if self._bar is not None:
            self._bar.update(
                self._task,
                advance=advance,
                running=self.running,
                calls=self.calls,
                tokens=self.tokens,
                fallbacks=self.fallbacks,
            )

    def line(self) -> str:
        """The figures as one plain line, with the time left at the pace of this run's games."""
        elapsed = time.monotonic() - self._start
        played = self._done - self._first
        left = elapsed / played * (self._total - self._done) if played else None
        eta = str(timedelta(seconds=round(left))) if left is not None else "-"
        spent = timedelta(seconds=round(elapsed))
        return (
            f"{self._title}: {self._done}/{self._total} games  {self.running} playing  {self.calls} calls  "
            f"{self.tokens:,} tokens  {self.fallbacks} fallbacks  {spent} ETA {eta}"
        )

    def call(self, record: JSON) -> None:
        """A turn ended: count its calls, the tokens they sent and its fallback."""
        attempts = record.get("attempts", [])
        with self._lock:
            self.calls += call_count([record])
            self.tokens += sum(
                int(a.get("prompt_tokens", 0)) + int(a.get("schema_tokens", 0)) for a in attempts
            )
            self.fallbacks += bool(record.get("fallback"))
            self._show()

    def started(self) -> None:
        """A game started or resumed."""
        with self._lock:
            self.running += 1
            self._show()

    def finished(self) -> None:
        """A game finished."""
        with self._lock:
            self.running -= 1
            self._show(advance=1)

    def stopped(self, game: str, reason: str | None) -> None:
        """A game stopped unfinished: because the arena stopped (no reason) or with an error."""
        with self._lock:
            self.running -= 1
            self.unfinished += 1
            self._show()
            if reason is None:
                return
            if self._bar is not None or self._lines:
                self.console.print(f"{game}: stopped: {reason}", style="yellow", soft_wrap=True, markup=False)
            else:
                logger.warning("%s: stopped: %s", game, reason)
