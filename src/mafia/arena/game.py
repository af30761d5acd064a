"""One arena game played in this process: started, resumed from its checkpoint where an earlier
run stopped, or skipped when finished. ``result.json`` is written once a game ends; it marks the
game done for every later run of the arena."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from mafia.arena.spec import RESULT_FILE, ArenaSpec, GameSlot, write_json
from mafia.game.events import EventBase
from mafia.game.state import JSON
from mafia.play.runner import LOCK_FILE, RUN_FILE, is_saved, resume_game, run_game
from mafia.records.call_kinds import call_count

LOGS = ("events.jsonl", "prompts.jsonl")


class ArenaStopped(Exception):
    """The arena was asked to stop: raised inside a game between two steps, so the game ends at a
    checkpoint with its logs closed, and the next run of the arena resumes it."""


class UnusableFolder(RuntimeError):
    """A game's folder holds logs but no checkpoint: it is left as it is, never overwritten."""


def calls_of(record: JSON) -> int:
    """The model calls of a turn's prompt record (a re-ask and a recall search are calls)."""
    return call_count([record])


@dataclass
class GameTally:
    """What the arena counts of one game from its prompt records (a resumed game's earlier records
    pass again, so the counts cover the whole game); also where a stop request reaches the game."""

    stop: threading.Event
    on_call: Callable[[JSON], None] = lambda record: None
    """Told each turn's prompt record as it is logged (the progress bar counts its calls, tokens
    and fallback)."""
    turns: int = 0
    calls: int = 0
    fallbacks: int = 0
    billed_tokens: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, record: JSON) -> None:
        """Count a logged prompt record."""
        with self._lock:
            self.turns += 1
            self.calls += calls_of(record)
            self.fallbacks += bool(record.get("fallback"))
            self.billed_tokens += float(record.get("billed_tokens") or 0)

    def prompt(self, record: JSON) -> None:
        """A prompt record was logged as its turn ended: count it, report its calls, and stop here
        if the arena is stopping."""
        self.count(record)
        self.on_call(record)
        self.check()

    def event(self, event: EventBase) -> None:
        """An event was logged: a stop takes effect here too."""
        self.check()

    def check(self) -> None:
        """Raise ArenaStopped once a stop was asked for."""
        if self.stop.is_set():
            raise ArenaStopped("the arena was stopped")


def game_result(
    policy: str, model: str, seed: int, final: JSON, tally: GameTally, wall_s: float, resumed: bool
) -> JSON:
    """The result.json of a finished game (of ``policy`` and the model labelled ``model``)."""
    events: list[JSON] = final.get("events", [])
    return {
        "game_id": final.get("game_id"),
        "policy": policy,
        "model": model,
        "seed": seed,
        "winner": final.get("winner"),
        "rounds": max((int(e.get("round", 0)) for e in events), default=0),
        "events": len(events),
        "turns": tally.turns,
        "calls": tally.calls,
        "fallbacks": tally.fallbacks,
        "billed_tokens": tally.billed_tokens,
        "wall_s": round(wall_s, 3),
        "resumed": resumed,
    }


def finish(slot: GameSlot, final: JSON, tally: GameTally, wall_s: float, resumed: bool) -> JSON:
    """Record a game's end; a game that ended without a winner stays unfinished (RuntimeError)."""
    if final.get("winner") is None:
        raise RuntimeError(f"{slot.thread_id}: the game ended without a result")
    result = game_result(slot.policy.name, slot.contestant.label, slot.seed, final, tally, wall_s, resumed)
    write_json(slot.folder / RESULT_FILE, result)
    return result


def clear_unstarted(folder: Path) -> None:
    """Remove the folder of a game that stopped before its first step was saved, so it starts
    afresh: only a run file, a lock and empty logs may be in it (else UnusableFolder)."""
    if not folder.exists():
        return
    known = {RUN_FILE, LOCK_FILE, *LOGS}
    entries = list(folder.iterdir())
    if any(p.name not in known or (p.name in LOGS and p.stat().st_size) for p in entries):
        raise UnusableFolder(
            f"{folder} holds logs but no checkpoint of them; move it aside to play the game again"
        )
    for path in entries:
        path.unlink()
    folder.rmdir()


def play_local(
    slot: GameSlot, spec: ArenaSpec, checkpointer: BaseCheckpointSaver[Any], tally: GameTally
) -> JSON:
    """Play ``slot`` in this process, or resume it from its checkpoint; returns its result."""
    contestant = slot.contestant
    kwargs: dict[str, Any] = {
        "checkpointer": checkpointer,
        "model": contestant.model,
        "seat_models": contestant.seat_models,
        "policy": slot.policy,
        "max_retries": spec.max_retries,
        "out_dir": slot.games_dir,
        "on_event": tally.event,
        "on_prompt": tally.prompt,
    }
    start = time.perf_counter()
    resumed = is_saved(checkpointer, slot.thread_id)
    if resumed:
        final = resume_game(slot.thread_id, **kwargs)
    else:
        clear_unstarted(slot.folder)
        final = run_game(
            spec.setup(slot.seed), thread_id=slot.thread_id, summariser=spec.summariser, **kwargs
        )
    return finish(slot, final, tally, time.perf_counter() - start, resumed)
