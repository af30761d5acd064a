"""A line while a model call is slow: after ``NOTICE_AFTER`` seconds without an answer, the live
view says who is thinking, with which model and for how long (then again at longer waits), so a
slow provider never leaves the terminal silent for tens of seconds."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from mafia.models.factory import CallInFlight, calls_in_flight

NOTICE_AFTER = 2.0
# Waits (in seconds) at which a call still unanswered is reported again.
MARKS = (NOTICE_AFTER, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
POLL = 0.25


def due_notices(calls: list[CallInFlight], now: float, told: dict[tuple[str, float], int]) -> list[str]:
    """The lines due now: one per call that passed a mark it was not yet reported at. ``told``
    remembers, per call, how many marks were reported (calls no longer in flight are dropped)."""
    lines: list[str] = []
    live = {(c.player, c.started) for c in calls}
    for key in [k for k in told if k not in live]:
        del told[key]
    for call in calls:
        waited = now - call.started
        key = (call.player, call.started)
        passed = sum(1 for mark in MARKS if waited >= mark)
        if passed > told.get(key, 0):
            told[key] = passed
            who = call.player or "a player"
            model = f" ({call.model})" if call.model else ""
            lines.append(f"{who} is thinking{model}: {waited:.0f} s so far")
    return lines


@contextmanager
def thinking_notices(say: Callable[[str], None]) -> Iterator[None]:
    """While the block runs, ``say`` each due notice (from a background thread)."""
    stop = threading.Event()
    told: dict[tuple[str, float], int] = {}

    def watch() -> None:
        while not stop.wait(POLL):
            for line in due_notices(calls_in_flight(), time.monotonic(), told):
                say(line)

    thread = threading.Thread(target=watch, name="thinking-notices", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=1)
