"""Helpers of the arena tests: an arena's logs, and an arena run stopped once its games have
logged a few steps."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mafia.arena import run_arena
from mafia.game.state import JSON

LOGS = ("events.jsonl", "prompts.jsonl")


def logs_of(folder: Path) -> dict[str, bytes]:
    """Every log of an arena's games, by path below the arena's folder."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for name in LOGS
        for path in sorted(folder.glob(f"games/*/*/seed-*/{name}"))
    }


def _first_at(a: bytes, b: bytes) -> int:
    """The index of the first byte where two lines differ (the shorter one's length if one begins
    the other)."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def first_difference(got: dict[str, bytes], want: dict[str, bytes]) -> str | None:
    """Where two arenas' logs (``logs_of``) first differ: the file, the line and both texts of it
    around the first differing byte, or None where they are the same."""
    if got.keys() != want.keys():
        here, there = sorted(got.keys() - want.keys()), sorted(want.keys() - got.keys())
        return f"files here only: {here}, there only: {there}"
    for name in sorted(got):
        ours, theirs = got[name].splitlines(), want[name].splitlines()
        for number, (a, b) in enumerate(zip(ours, theirs, strict=False), start=1):
            if a != b:
                cut = slice(max(0, _first_at(a, b) - 300), _first_at(a, b) + 300)
                return f"{name} line {number} of {len(ours)}:\n got: {a[cut]!r}\nwant: {b[cut]!r}"
        if len(ours) != len(theirs):
            extra = (ours + theirs)[min(len(ours), len(theirs))][:600]
            return f"{name}: {len(ours)} lines here, {len(theirs)} there; the first extra: {extra!r}"
    return None


def assert_same_logs(got: Path, want: Path, context: str = "") -> None:
    """The two arena folders hold byte-identical game logs; else the first difference is named,
    with ``context`` (what the caller knows of how the games were played)."""
    difference = first_difference(logs_of(got), logs_of(want))
    assert difference is None, f"{difference}\n{context}"


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


def interrupted(args: list[str], folder: Path, after_bytes: int) -> subprocess.CompletedProcess[str]:
    """``mafia ARGS`` in its own process, sent SIGINT (Ctrl-C) once one of its games under
    ``folder`` has logged ``after_bytes`` of events; its exit code and output."""
    mafia = Path(sys.executable).parent / "mafia"
    env = {**os.environ, "LANGSMITH_TRACING": "false"}
    proc = subprocess.Popen(
        [str(mafia), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while not any(p.stat().st_size > after_bytes for p in folder.glob("*/games/*/*/seed-*/events.jsonl")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
