"""Arena games queued on a LangGraph server with a Postgres + Redis runtime (``mafia serve``) as
background runs on the arena's named threads: the command that queues them returns, the server's
processes play them (a killed one's runs are taken up again by another), and ``collect`` writes
each finished game's logs from its thread's checkpointed state through the runner's log writer,
so they are byte-identical to a local game's. ``queued.json`` in the arena's folder says where its
games are, so ``status`` and ``collect`` need only the folder."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import httpx
from langgraph_sdk.errors import NotFoundError

from mafia.arena.game import GameTally, game_result
from mafia.arena.metrics import summarize
from mafia.arena.server import ServerGames, locked, server_context
from mafia.arena.spec import (
    RESULT_FILE,
    SUMMARY_FILE,
    ArenaError,
    ArenaSpec,
    GameSlot,
    read_record,
    write_json,
)
from mafia.arena.summary import basic_summary
from mafia.commands.faults import COMPONENTS, RUN_METADATA, Fault, fault_of
from mafia.game.state import JSON
from mafia.play.runner import RunLog

QUEUE_FILE = "queued.json"
ACTIVE = ("pending", "running")
HEALTH_S = 10.0  # seconds the server has to say which of its components is down


def queue_games(spec: ArenaSpec, arena_dir: Path, games: ServerGames) -> JSON:
    """Queue a background run for every game of ``spec`` not finished here or on the server, and
    not already queued or running there; write queued.json; returns it."""
    path = arena_dir / QUEUE_FILE
    first = read_record(path, "a queue file").get("queued_at") if path.exists() else None
    entries: list[JSON] = []
    for slot in spec.games_in(arena_dir):
        entries.append(
            {
                "game": slot.thread_id,
                "thread": games.thread_for_id(slot.thread_id),
                "policy": slot.policy.name,
                "model": slot.contestant.label,
                "seed": slot.seed,
            }
        )
        if slot.result() is None:
            _queue_one(games, slot, spec)
    record = {
        "server": games.url,
        "uid": games.arena_uid,
        "queued_at": first or time.time(),
        "games": entries,
    }
    write_json(path, record)
    return record


def _queue_one(games: ServerGames, slot: GameSlot, spec: ArenaSpec) -> None:
    """A background run of ``slot`` on its thread, started or resumed there; none when the game is
    over there or a run of it is queued or running."""
    client = games.client
    thread_id = games.open_thread(slot)
    state = client.threads.get_state(thread_id)
    if state["values"] and not state["next"] and not state["tasks"]:
        return  # over on the server: collect logs it
    if any(run["status"] in ACTIVE for run in client.runs.list(thread_id, limit=100)):
        return
    games.prepare_folder(slot, spec, resumed=bool(state["values"]))
    # The server's own durability ("async"): with "sync", a run cancelled while a step's checkpoint
    # was being written was left with neither a next step nor a winner (2 of 16 cancelled games).
    client.runs.create(
        thread_id,
        "mafia",
        input=None if state["values"] else {"setup": spec.setup(slot.seed)},
        context=server_context(slot, spec),
        multitask_strategy="reject",
        metadata=RUN_METADATA,  # the server's keeper takes up such runs after a fault
    )


@dataclass
class Progress:
    """Where an arena's queued games stand."""

    total: int
    finished: int = 0
    collected_now: int = 0
    running: int = 0
    queued: int = 0
    taken_up: int = 0  # games whose run a fault of the server ended: its keeper starts another
    stopped: dict[str, str] = field(default_factory=dict)
    eta_s: float | None = None

    def line(self) -> str:
        """One line for the terminal."""
        eta = f", about {_duration(self.eta_s)} to go" if self.eta_s is not None else ""
        stopped = f", {len(self.stopped)} stopped" if self.stopped else ""
        taken_up = f", {self.taken_up} being taken up again after a server fault" if self.taken_up else ""
        return (
            f"{self.finished}/{self.total} games finished ({self.collected_now} collected now), "
            f"{self.running} running, {self.queued} queued{taken_up}{stopped}{eta}"
        )


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


def queue_record(arena_dir: Path) -> JSON:
    """The arena's queued.json (ArenaError when the folder holds no queued arena)."""
    path = arena_dir / QUEUE_FILE
    if not path.exists():
        raise ArenaError(f"{arena_dir} holds no arena queued on a server ({QUEUE_FILE} not found)")
    return read_record(path, "a queue file")


def arena_summary(folder: Path) -> JSON:
    """An arena's summary of the games finished in ``folder`` (without its ``run``)."""
    return {**basic_summary(folder), "metrics": summarize(folder)}


def _server_games(record: JSON, server: str | None) -> ServerGames:
    """The queued games' server: ``server`` where given (any process on the same database and
    Redis holds every game, so another can stand in for one that is gone), else the one they were
    queued on."""
    return ServerGames(server or str(record["server"]), str(record["uid"]))


def collect(
    arena_dir: Path,
    write: bool = True,
    summary: Callable[[Path], JSON] = arena_summary,
    server: str | None = None,
) -> Progress:
    """Where the arena's (or tournament's) queued games stand; with ``write``, the logs and result
    of every game finished on the server and not yet here are written (each at most once: a game's
    folder lock keeps two collectors apart, and a written result.json ends its collection), and
    ``summary`` of the folder once all have finished. ``server``: see ``_server_games``."""
    record = queue_record(arena_dir)
    games = _server_games(record, server)
    progress = Progress(total=len(record["games"]))
    for entry in record["games"]:
        folder = arena_dir / "games" / str(entry["game"])
        if (folder / RESULT_FILE).exists():
            progress.finished += 1
            continue
        thread_id = str(entry["thread"])
        # The runs first: a run that ends between the two reads leaves its game's end in the state.
        try:
            runs = games.client.runs.list(thread_id, limit=100)
            state = games.client.threads.get_state(thread_id)
        except NotFoundError:  # its thread was never made there
            progress.stopped[str(entry["game"])] = "the server holds no thread of it"
            continue
        values = cast(JSON, state["values"] or {})
        # A run still playing may show its game's winner before the state holds the last step's
        # events and records (measured: a log written then lacked its game_over); only once its
        # run has ended is the state whole.
        latest = runs[0]["status"] if runs else None
        if values.get("winner") is not None and not state["next"] and latest not in ACTIVE:
            progress.finished += 1
            if write:
                _write_game(games, folder, entry, values)
                progress.collected_now += 1
            continue
        if latest is None:  # nothing on the server will play it: it was never queued there
            progress.stopped[str(entry["game"])] = "no run of it was queued on the server"
        elif latest == "running":
            progress.running += 1
        elif latest == "pending":
            progress.queued += 1
        elif latest == "error" and (fault := _fault(games, thread_id, runs)) is not None:
            if fault.taken_up:
                progress.taken_up += 1
            else:
                progress.stopped[str(entry["game"])] = fault.line()
        else:
            progress.stopped[str(entry["game"])] = f"its run ended ({latest}) before the game did"
    progress.eta_s = _eta(progress, float(record["queued_at"]))
    if write and progress.collected_now and progress.finished == progress.total:
        run = {"folder": str(arena_dir), "server": record["server"], "queued": True}
        write_json(arena_dir / SUMMARY_FILE, {**summary(arena_dir), "run": run})
    return progress


def _fault(games: ServerGames, thread_id: str, runs: list[Any]) -> Fault | None:
    """The server fault that ended the game's latest run (None: the game's own error), as the
    server's keeper judges it."""
    thread: Mapping[str, Any] = games.client.threads.get(thread_id)  # the SDK's type omits "error"
    return fault_of(runs, thread.get("error"))


def server_trouble(url: str, exc: httpx.HTTPError) -> str:
    """What is wrong with the server at ``url``, which failed a request with ``exc``: not
    answering at all, or answering with an error because its PostgreSQL or Redis is down (its
    health check says which)."""
    if not isinstance(exc, httpx.HTTPStatusError):
        return (
            f"no server answers at {url} ({type(exc).__name__}): start mafia serve there again, or give "
            "--server another process on the same database and Redis; the games wait on the server"
        )
    try:
        answer = httpx.get(f"{url}/mafia/health", timeout=HEALTH_S)
        health = answer.raise_for_status().json()
        down = {name: str(health[name]) for name in COMPONENTS if health.get(name) is not None}
    except (httpx.HTTPError, ValueError, AttributeError):  # no health check there: say what failed
        down = {}
    if not down:
        return f"the server at {url} fails ({exc})"
    what = "; ".join(f"its {name} is down ({why})" for name, why in down.items())
    return (
        f"the server at {url} answers, but {what}: start it again; the games wait and go on from "
        "their last whole step by themselves once it is back"
    )


def _eta(progress: Progress, queued_at: float) -> float | None:
    """Seconds left at the rate games finished since they were queued (None before the first)."""
    left = progress.total - progress.finished - len(progress.stopped)
    elapsed = time.time() - queued_at
    if not progress.finished or left <= 0 or elapsed <= 0:
        return None
    return left * elapsed / progress.finished


def _write_game(games: ServerGames, folder: Path, entry: JSON, values: JSON) -> None:
    """The logs and result.json of a game over on the server, from its thread's state."""
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder):
        if (folder / RESULT_FILE).exists():
            return
        tally = GameTally(threading.Event())  # nothing plays here: no stop to ask for
        log = RunLog(folder, on_prompt=tally.count)
        try:
            log.step(values)
        finally:
            log.close()
        runs = games.client.runs.list(str(entry["thread"]), limit=100)
        result = game_result(
            str(entry["policy"]),
            str(entry["model"]),
            int(entry["seed"]),
            values,
            tally,
            _played_s(runs),
            len(runs) > 1,
        )
        write_json(folder / RESULT_FILE, result)


def _played_s(runs: list[Any]) -> float:
    """Seconds from the game's first run's creation to its last run's end."""
    if not runs:
        return 0.0
    start = min(datetime.fromisoformat(str(r["created_at"])) for r in runs)
    end = max(datetime.fromisoformat(str(r["updated_at"])) for r in runs)
    return (end - start).total_seconds()


def cancel(arena_dir: Path, server: str | None = None) -> int:
    """Cancel every queued or running run of the arena's games (each stops at its last whole step,
    to be queued again); returns how many. ``server``: see ``_server_games``."""
    record = queue_record(arena_dir)
    games = _server_games(record, server)
    cancelled = 0
    for entry in record["games"]:
        for run in games.client.runs.list(str(entry["thread"]), limit=100):
            if run["status"] in ACTIVE:
                games.client.runs.cancel(str(entry["thread"]), run["run_id"], wait=True)
                cancelled += 1
    return cancelled
