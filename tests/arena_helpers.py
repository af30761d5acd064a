"""Helpers of the arena tests: an arena's logs, and an arena run stopped once its games have
logged a few steps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mafia.arena import run_arena
from mafia.state import JSON

LOGS = ("events.jsonl", "prompts.jsonl")


def logs_of(folder: Path) -> dict[str, bytes]:
    """Every log of an arena's games, by path below the arena's folder."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for name in LOGS
        for path in sorted(folder.glob(f"games/*/*/seed-*/{name}"))
    }


def run_stopped(arena: Path, after_bytes: int, run: Callable[..., JSON] = run_arena, **args: Any) -> JSON:
    """``run(**args)`` (an arena, or a tournament) whose games in ``arena`` are stopped (its
    ``stop`` set) as soon as one of them has logged ``after_bytes`` of events; returns its summary."""
    stop, ended = threading.Event(), threading.Event()

    def watch() -> None:
        while not ended.is_set():
            if any(p.stat().st_size > after_bytes for p in arena.glob("games/*/*/seed-*/events.jsonl")):
                stop.set()
                return
            time.sleep(0.01)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        return run(**args, stop=stop)
    finally:
        ended.set()
        watcher.join()
