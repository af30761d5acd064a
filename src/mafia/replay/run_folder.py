"""Reading a run folder as ``mafia play`` writes it (events.jsonl, prompts.jsonl, run.json), with a
one-line error naming the file and line for anything missing or damaged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mafia.game.events import EventBase, GameStarted, parse_event
from mafia.play.runner import read_run_file

EVENTS_FILE = "events.jsonl"
PROMPTS_FILE = "prompts.jsonl"
RUNS_DIR = Path("runs")


class ReplayError(ValueError):
    """A run folder that cannot be replayed, or a replay argument it cannot satisfy (one line)."""


@dataclass
class RunFolder:
    """One run's logs: the event log, the run's settings (models; empty when run.json is missing or
    unreadable, as it only labels the replay) and, read when asked for, its prompts.

    ``cut`` names the log whose last line a stopped process left unfinished (it is left out)."""

    path: Path
    events: list[EventBase]
    run: dict[str, Any]
    cut: list[str] = field(default_factory=list)

    @property
    def started(self) -> GameStarted:
        """The game's first event: the table (``load_run`` checks it is there)."""
        first = self.events[0]
        assert isinstance(first, GameStarted)
        return first

    @property
    def run_id(self) -> str:
        return str(self.run.get("run_id") or self.path.name)

    @property
    def rounds(self) -> int:
        """The latest round the log reached (0: the game stopped before Day 1)."""
        return max(e.round for e in self.events)

    def prompts(self) -> list[dict[str, Any]]:
        """Every prompt record of the run, in written order."""
        path = self.path / PROMPTS_FILE
        if not path.is_file():
            raise ReplayError(f"{self.path}: no {PROMPTS_FILE}, so the prompts cannot be shown")
        records: list[dict[str, Any]] = []
        for number, line in _lines(path, self.cut):
            record = _json(path, number, line)
            if not isinstance(record, dict) or not {"player", "round", "system", "user"} <= record.keys():
                raise ReplayError(f"{path} line {number}: not a prompt record; the file is damaged")
            records.append(record)
        return records


def find_run(path: Path) -> Path:
    """The run folder ``path`` names: as given, or a run id under ``runs/``."""
    if not path.exists() and not path.is_absolute() and (RUNS_DIR / path).is_dir():
        return RUNS_DIR / path
    return path


def load_run(path: Path) -> RunFolder:
    """The run folder at ``path`` with its event log and settings read and checked."""
    folder = find_run(path)
    if not folder.exists():
        raise ReplayError(f"{path}: no such run folder; give a folder `mafia play` wrote, e.g. runs/<run id>")
    if not folder.is_dir():
        raise ReplayError(f"{path}: not a folder; give a run folder such as runs/<run id>")
    log = folder / EVENTS_FILE
    if not log.is_file():
        raise ReplayError(f"{folder}: no {EVENTS_FILE}, so it is not a run folder `mafia play` wrote")
    cut: list[str] = []
    events = [_event(log, number, line) for number, line in _lines(log, cut)]
    if not events:
        raise ReplayError(f"{log} holds no events: the game never started")
    if not isinstance(events[0], GameStarted):
        raise ReplayError(f"{log} line 1: the log does not open with the game's start; the file is damaged")
    return RunFolder(path=folder, events=events, run=read_run_file(folder), cut=cut)


def _lines(path: Path, cut: list[str]) -> Iterator[tuple[int, str]]:
    """The numbered lines of a JSONL log. A last line without its newline is one a stopped process
    left unfinished: it is left out and the file's name noted in ``cut``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"{path}: cannot be read ({exc})") from None
    lines = text.split("\n")  # as the logs are written: "\n" only (see events.from_jsonl)
    if lines[-1]:
        cut.append(path.name)
    for number, line in enumerate(lines[:-1], 1):
        if line.strip():
            yield number, line


def _json(path: Path, number: int, line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{path} line {number}: not JSON ({exc.msg}); the file is damaged") from None


def _event(path: Path, number: int, line: str) -> EventBase:
    data = _json(path, number, line)
    if not isinstance(data, dict):
        raise ReplayError(f"{path} line {number}: not a game event; the file is damaged")
    try:
        return parse_event(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ReplayError(
            f"{path} line {number}: not a game event ({where}: {first['msg']}); the file is damaged"
        ) from None
