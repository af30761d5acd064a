"""Run a game from Python: compile the graph, stream it, and write the logs as the game goes.

``run_game`` is the entry point the README documents: a config, chat models per seat (instances or
specs), and optionally an output folder. It returns the final state with the event log.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import count
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from mafia.context.policy import DEFAULT_POLICY, POLICIES, UNRECORDED_POLICY, ContextPolicy
from mafia.game.events import EventBase, parse_event
from mafia.game.state import JSON, InputState, SetupInput
from mafia.graph import build_graph
from mafia.models.billing import GameCache
from mafia.nodes.common import forget_game
from mafia.play.checkpoint_serde import CompressedSerializer
from mafia.records.call_records import PromptRecord
from mafia.records.prompt_pack import unpack_all
from mafia.run.record import context_from_record, describe_context, policy_from_record, run_of
from mafia.run.runtime import GameContext, ModelLike
from mafia.run.settings import config_from_input, game_id_for
from mafia.run.tracing import traced_game
from mafia.turn.people import Respond, has_people, stream_answering

RECURSION_LIMIT = 20_000
# Simultaneous turns (up to 16 voters) must not queue behind a small default thread pool.
MAX_CONCURRENCY = 32


class LogConflict(RuntimeError):
    """A log on disk disagrees with the checkpointed game it belongs to (nothing was written)."""


class LogFile:
    """One JSONL log, grown by appending only: never truncated, never rewritten.

    Lines are produced from the game's state from its first entry on. Bytes already on disk (from
    an earlier run of the same game that stopped) are checked against them instead of written
    again, and only the missing tail is appended, completing a line a kill cut short. So a resume
    never leaves a log holding less than it held, and never duplicates a line.
    """

    def __init__(self, path: Path):
        self.path = path
        self.existing = path.read_bytes() if path.exists() else b""
        self.position = 0
        self.handle = path.open("ab")

    def add(self, line: bytes) -> None:
        """Log the next line: check the part already on disk, append the rest."""
        end = self.position + len(line)
        known = self.existing[self.position : end]
        if line[: len(known)] != known:
            raise LogConflict(
                f"{self.path} differs from the checkpointed game at byte {self.position}; it was left "
                "as it was: move it aside to have it written again from the checkpoint"
            )
        if len(known) < len(line):
            self.handle.write(line[len(known) :])
        self.position = end

    def flush(self) -> None:
        """Hand the appended lines to the operating system (they survive a kill of the process)."""
        self.handle.flush()

    def close(self) -> None:
        """Close the file."""
        self.handle.close()


def _line(data: JSON) -> bytes:
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


class RunLog:
    """Writes ``events.jsonl`` and ``prompts.jsonl`` of one game from its state, step by step.

    Both logs are read from checkpointed channels (``events`` and ``prompts``) after each step, so
    the files hold exactly what a checkpoint holds, in the order the state holds it: byte-identical
    for the same seed whatever the timing, and free of duplicates however often a game resumes.
    """

    def __init__(
        self,
        folder: Path | None,
        on_event: Callable[[EventBase], None] | None = None,
        on_prompt: Callable[[JSON], None] | None = None,
        on_resumed: Callable[[], None] | None = None,
    ):
        """Files already in ``folder`` (a game resumed) are checked and appended to, never truncated.
        ``on_resumed`` (a resume's) is called once the game so far has passed, before new play."""
        self.folder = folder
        self.on_event = on_event
        self.on_prompt = on_prompt
        self.on_resumed = on_resumed
        self.events_seen = 0
        self.prompts_seen = 0
        self.last_prompt: PromptRecord | None = None  # the state stores records packed against the one before
        self.cache = GameCache()  # bills each record's calls in written order
        self._files: dict[str, LogFile] = {}
        if folder is not None:
            self._files = {name: LogFile(folder / f"{name}.jsonl") for name in ("events", "prompts")}

    def step(self, values: Mapping[str, Any]) -> None:
        """A step ended: write the prompt records and events it added to the state."""
        prompts: list[JSON] = values.get("prompts", [])
        for record in unpack_all(prompts[self.prompts_seen :], self.last_prompt):
            self.prompt(record)
            self.last_prompt = record
        self.prompts_seen = len(prompts)
        events: list[JSON] = values.get("events", [])
        for raw in events[self.events_seen :]:
            self._write("events", raw)
            if self.on_event is not None:
                self.on_event(parse_event(raw))
        self.events_seen = len(events)
        for file in self._files.values():
            file.flush()
        if self.on_resumed is not None:  # a resume's first step is the checkpointed game so far
            self.on_resumed()
            self.on_resumed = None

    def prompt(self, record: PromptRecord) -> None:
        """Every prompt record of the game passes here once, in its final order (a resumed run
        passes the checkpointed ones again, which rebuilds the cache's view of earlier calls)."""
        billed = self.cache.bill(record)
        self._write("prompts", billed)
        if self.on_prompt is not None:
            self.on_prompt(billed)

    def _write(self, name: str, data: JSON) -> None:
        file = self._files.get(name)
        if file is not None:
            file.add(_line(data))

    def close(self) -> None:
        """Close the files."""
        for file in self._files.values():
            file.close()


_compiled: dict[int, tuple[BaseCheckpointSaver[Any] | None, Any]] = {}


def graph_for(checkpointer: BaseCheckpointSaver[Any] | None) -> Any:
    """The game graph compiled with ``checkpointer``, compiled once per checkpointer and reused
    (compiling costs tens of milliseconds, a lot for short games run by the thousand)."""
    key = id(checkpointer)
    cached = _compiled.get(key)
    if cached is None or cached[0] is not checkpointer:
        cached = (checkpointer, build_graph().compile(checkpointer=checkpointer, name="mafia"))
        if len(_compiled) >= 8:  # keep a few savers alive, not every one a long process used
            _compiled.clear()
        _compiled[key] = cached
    return cached[1]


@contextmanager
def sqlite_checkpointer(path: Path) -> Iterator[SqliteSaver]:
    """A SQLite checkpointer on ``path`` (created if missing), closed afterwards.

    WAL with ``synchronous=NORMAL`` keeps every committed step safe from a crash of the process
    (only a power cut may lose the last steps) at a fraction of the cost of a sync per step. Blobs
    are compressed (``CompressedSerializer``); files written without it stay readable.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    _use_wal(conn)
    conn.execute("PRAGMA synchronous=NORMAL")
    try:
        yield SqliteSaver(conn, serde=CompressedSerializer())
    finally:
        conn.close()


def _use_wal(conn: sqlite3.Connection, tries: int = 100) -> None:
    """Switch ``conn``'s file to WAL. Processes that open one new file at once (two runs started
    together) race for that switch, and SQLite reports the loser busy at once, without waiting:
    so the switch is tried again, briefly, before that counts as a failure."""
    for attempt in range(tries):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == tries - 1:
                raise
            time.sleep(0.05)


class RunExists(FileExistsError):
    """A run id already names a game (a log folder or a checkpointed thread): it is never reused."""


class RunBusy(RuntimeError):
    """Another process is playing this game right now."""


class RunLock:
    """An exclusive OS lock on a run's folder, held while a process plays the game in it.

    ``fcntl.flock`` on ``.lock`` in the folder: released by the OS when the process ends however it
    ends, so a killed run never leaves a stale lock behind.
    """

    def __init__(self, folder: Path):
        self.path = folder / LOCK_FILE
        self._handle: Any = None

    def acquire(self) -> None:
        """Take the lock, or raise RunBusy at once if another process holds it."""
        handle = self.path.open("a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise RunBusy(
                f"{self.path.parent} is in use by another process; wait for it to stop first"
            ) from None
        self._handle = handle

    def release(self) -> None:
        """Give the lock back."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None


LOCK_FILE = ".lock"
RUN_FILE = "run.json"


def is_running(folder: Path) -> bool:
    """Whether a process holds the lock of the run in ``folder`` (is playing it now)."""
    if not (folder / LOCK_FILE).exists():
        return False
    lock = RunLock(folder)
    try:
        lock.acquire()
    except RunBusy:
        return True
    lock.release()
    return False


def new_run(
    out_dir: Path | None,
    game_id: str,
    checkpointer: BaseCheckpointSaver[Any] | None,
    run_id: str | None = None,
) -> tuple[str, RunLock | None]:
    """Claim a run id no earlier game uses, with its log folder (created and locked).

    Without ``run_id`` the first free one of ``game_id``, ``game_id-2``, ``game_id-3``... is taken;
    a given ``run_id`` already in use is refused. Folders are claimed with an atomic ``mkdir``, so
    simultaneous runs of one game get different ids.
    """
    candidates = [run_id] if run_id else (f"{game_id}-{n}" if n > 1 else game_id for n in count(1))
    for candidate in candidates:
        if checkpointer is not None and is_saved(checkpointer, candidate):
            if run_id:
                raise RunExists(f"a game with run id {run_id!r} is already checkpointed: resume it instead")
            continue
        if out_dir is None:
            return candidate, None
        folder = out_dir / candidate
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            if run_id:
                raise RunExists(f"{folder} already exists: choose another run id or move it aside") from None
            continue
        lock = RunLock(folder)
        lock.acquire()
        return candidate, lock
    raise AssertionError("unreachable: the candidates never run out")


def run_game(
    config: Mapping[str, Any] | None = None,
    *,
    model: ModelLike = "house",
    seat_models: Mapping[str, ModelLike] | None = None,
    policy: ContextPolicy | None = None,
    max_retries: int = 2,
    out_dir: str | Path | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    thread_id: str | None = None,
    on_start: Callable[[str], None] | None = None,
    on_event: Callable[[EventBase], None] | None = None,
    on_prompt: Callable[[JSON], None] | None = None,
    run_config: RunnableConfig | None = None,
    human: Respond | None = None,
    prices: Mapping[str, float] | None = None,
    summariser: ModelLike | None = None,
) -> dict[str, Any]:
    """Play one game to the end and return the final state (``events``, ``winner``, ...).

    ``model`` plays every seat not in ``seat_models`` (keyed by seat number or player name); both
    accept chat model instances or specs. Each run gets its own run id, the game's thread id in
    ``checkpointer`` and its log folder ``out_dir/<run id>/``: ``thread_id`` if given (refused with
    RunExists if in use), else the game id, suffixed ``-2``, ``-3``... when earlier runs took it.
    ``on_start`` receives the run id before the first turn; ``on_event`` and ``on_prompt`` receive
    each event and prompt record as it is logged. Seats whose model is ``"human"`` are people:
    ``human`` answers their turns (``mafia.turn.people``), and without a checkpointer the game is
    checkpointed in memory, as pausing for them needs. ``prices`` (per million tokens: ``input``,
    ``cached_input``, ``output``) are recorded in ``run.json`` for the run's cost (``mafia.records.cost``).
    ``summariser`` writes the cold days' summary under a policy with summaries (a model, or
    ``"seat:N"``; by default ``model``).
    """
    setup = dict(config or {})
    game_config = config_from_input(setup)
    game_id = game_id_for(setup, game_config)
    context = _context(model, seat_models, policy, max_retries, human)
    if summariser is not None:
        context = dataclasses.replace(context, summariser=summariser)
    if checkpointer is None and has_people(context.model, context.seat_models):
        checkpointer = InMemorySaver()
    out = Path(out_dir) if out_dir is not None else None
    run_id, lock = new_run(out, game_id, checkpointer, thread_id)
    folder = out / run_id if out is not None else None
    try:
        if folder is not None:
            recorded = describe_context(context, game_config.seat_names())
            run_file = {"run_id": run_id, "game_id": game_id, "config": setup, **recorded}
            write_run_file(folder, {**run_file, **({"prices": dict(prices)} if prices else {})})
        if on_start is not None:
            on_start(run_id)
        log = RunLog(folder, on_event, on_prompt)
        start: InputState = {"setup": cast(SetupInput, setup)}
        with timed(folder), traced_game(_run_config(run_config, run_id), run_id, setup, context) as trace:
            return trace.finish(_stream(graph_for(checkpointer), start, trace.config, context, log, human))
    finally:
        if lock is not None:
            lock.release()


def write_run_file(folder: Path, data: Mapping[str, Any]) -> None:
    """Write ``run.json`` whole (a new file moved into place, so a kill never leaves half of one)."""
    partial = folder / f"{RUN_FILE}.partial"
    partial.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    partial.replace(folder / RUN_FILE)


@contextmanager
def timed(folder: Path | None) -> Iterator[None]:
    """Add the seconds this process plays the run to ``run.json``'s ``seconds`` (every stop and
    resume adds its own), however the play ends."""
    started = time.monotonic()
    try:
        yield
    finally:
        if folder is not None and (folder / RUN_FILE).exists():
            data = read_run_file(folder)
            data["seconds"] = round(float(data.get("seconds", 0.0)) + time.monotonic() - started, 3)
            write_run_file(folder, data)


def read_run_file(folder: Path) -> dict[str, Any]:
    """What ``run_game`` recorded about the run in ``folder`` (empty if nothing readable)."""
    try:
        data = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class GameNotFound(LookupError):
    """No checkpointed game under the thread id asked for."""


def is_saved(checkpointer: BaseCheckpointSaver[Any], thread_id: str) -> bool:
    """Whether ``checkpointer`` holds a game under ``thread_id``."""
    return checkpointer.get_tuple({"configurable": {"thread_id": thread_id}}) is not None


def resume_game(
    thread_id: str,
    *,
    checkpointer: BaseCheckpointSaver[Any],
    model: ModelLike | None = None,
    seat_models: Mapping[str, ModelLike] | None = None,
    policy: ContextPolicy | None = None,
    max_retries: int | None = None,
    change: Sequence[str] = (),
    out_dir: str | Path | None = None,
    on_event: Callable[[EventBase], None] | None = None,
    on_prompt: Callable[[JSON], None] | None = None,
    run_config: RunnableConfig | None = None,
    human: Respond | None = None,
    summariser: ModelLike | None = None,
    on_resumed: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Go on with a checkpointed game from where it stopped and return the final state.

    The run goes on as it was started (``mafia.run.record``): its models, people, policy and
    retries and summariser. Whatever is given here must equal the record, else ``RunMismatch`` names
    both values;
    ``change`` ("model", "policy") allows such a change, which is logged as a ``run_changed``
    event. A model given as an instance must be given again. With ``out_dir``, the logs in
    ``out_dir/<thread_id>/`` are checked against the checkpoint and only their missing tail is
    appended (LogConflict if they disagree; nothing is truncated), under the run's lock (RunBusy
    while another process plays it). ``on_event`` and ``on_prompt`` see the whole game, the part
    before the resume first; ``on_resumed`` is called between the two, where new play begins (a
    live view's mark). A finished game is returned as it is.
    """
    graph = graph_for(checkpointer)
    cfg = _run_config(run_config, thread_id)
    if not is_saved(checkpointer, thread_id):
        raise GameNotFound(f"no checkpointed game with thread id {thread_id!r}")
    values = graph.get_state(cfg).values
    context = resumed_context(values, model, seat_models, policy, max_retries, change, human, summariser)
    lock: RunLock | None = None
    folder = Path(out_dir) / thread_id if out_dir is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        lock = RunLock(folder)
        lock.acquire()
    try:
        setup = values.get("setup", {})
        if folder is not None and values.get("run") is not None:
            names = [s["name"] for s in values.get("seats", [])]
            write_run_file(folder, {**read_run_file(folder), **describe_context(context, names)})
        with timed(folder), traced_game(cfg, thread_id, setup, context, resumed=True) as trace:
            return trace.finish(
                _stream(
                    graph, None, trace.config, context, RunLog(folder, on_event, on_prompt, on_resumed), human
                )
            )
    finally:
        if lock is not None:
            lock.release()


def recorded_run(checkpointer: BaseCheckpointSaver[Any], thread_id: str) -> tuple[JSON | None, list[str]]:
    """What a checkpointed game's run was started as (``mafia.run.record``; None for a game saved
    before runs were recorded) and its players' names in seat order."""
    values = graph_for(checkpointer).get_state({"configurable": {"thread_id": thread_id}}).values
    return values.get("run"), [s["name"] for s in values.get("seats", [])]


def game_status(checkpointer: BaseCheckpointSaver[Any], thread_id: str) -> dict[str, Any]:
    """Where a checkpointed game stands: ``game_id``, ``winner``, ``round``, ``phase``, ``events``."""
    snapshot = graph_for(checkpointer).get_state({"configurable": {"thread_id": thread_id}})
    values = cast(dict[str, Any], snapshot.values)
    return {
        "game_id": values.get("game_id"),
        "winner": values.get("winner"),
        "round": values.get("round", 0),
        "phase": values.get("phase", "night"),
        "events": len(values.get("events", [])),
    }


def saved_threads(path: Path) -> list[str]:
    """The thread ids of the games in a SQLite checkpoint file, oldest first."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT thread_id, MIN(rowid) FROM checkpoints WHERE checkpoint_ns = '' "
            "GROUP BY thread_id ORDER BY MIN(rowid)"
        ).fetchall()
    finally:
        conn.close()
    return [str(row[0]) for row in rows]


def resumed_context(
    values: Mapping[str, Any],
    model: ModelLike | None,
    seat_models: Mapping[str, ModelLike] | None,
    policy: ContextPolicy | None,
    max_retries: int | None,
    change: Sequence[str],
    human: Respond | None,
    summariser: ModelLike | None = None,
) -> GameContext:
    """The context a resume plays with: the run's record with what was given put over it (the
    recorded summariser unless one is given), checked against the record before any log is touched
    (RunMismatch for a change not allowed)."""
    recorded = values.get("run")
    if recorded is None:  # a game checkpointed before its run was recorded: as given, or the defaults
        # it was started under (never a default that came later)
        context = _context(
            model or "house",
            seat_models,
            policy or POLICIES[UNRECORDED_POLICY],
            2 if max_retries is None else max_retries,
            human,
        )
        return dataclasses.replace(context, summariser=summariser)
    base = context_from_record(recorded)
    context = _context(
        model if model is not None else base.model,
        seat_models if seat_models is not None else base.seat_models,
        policy or policy_from_record(recorded),
        recorded["max_retries"] if max_retries is None else max_retries,
        human,
        change,
    )
    context = dataclasses.replace(
        context, summariser=summariser if summariser is not None else base.summariser
    )
    run_of(values, context)  # refuses a change not allowed, before anything is written
    return context


def _context(
    model: ModelLike,
    seat_models: Mapping[str, ModelLike] | None,
    policy: ContextPolicy | None,
    max_retries: int,
    human: Respond | None,
    change: Sequence[str] = (),
) -> GameContext:
    """The run's context, checked before any log file is touched."""
    if human is None and has_people(model, seat_models or {}):
        raise ValueError(
            'a seat is played by a person ("human"): pass human= to answer their turns, or drive '
            "the graph with Command(resume=...) yourself"
        )
    return GameContext(
        model=model,
        seat_models=dict(seat_models or {}),
        max_retries=max_retries,
        policy=policy or POLICIES[DEFAULT_POLICY],
        change_run=list(change),
    )


def _run_config(run_config: RunnableConfig | None, thread_id: str) -> RunnableConfig:
    return {
        **(run_config or {}),
        "recursion_limit": RECURSION_LIMIT,
        "max_concurrency": MAX_CONCURRENCY,
        "configurable": {**(run_config or {}).get("configurable", {}), "thread_id": thread_id},
    }


# What the log writer reads after each step: the output and the prompt records.
LOGGED_KEYS = ["game_id", "events", "winner", "prompts"]


def _stream(
    graph: Any,
    start: InputState | None,
    cfg: RunnableConfig,
    context: GameContext,
    log: RunLog,
    human: Respond | None = None,
) -> JSON:
    """Stream the game to its end, logging each step; the final state (without the records).

    With a checkpointer, each step's checkpoint is saved before the next step starts ("sync"
    durability), and the logs are written after it: a log never holds a step that no checkpoint
    holds, so a resume only ever appends to it.
    """
    durability = {"durability": "sync"} if graph.checkpointer else {}
    final: dict[str, Any] = {}
    try:
        for chunk in stream_answering(
            graph,
            start,
            cfg,
            human,
            context=context,
            stream_mode="values",
            output_keys=LOGGED_KEYS,
            **durability,
        ):
            final = cast(dict[str, Any], chunk)
            log.step(final)
        if start is None and not final:  # resuming a finished game: the stream has nothing to say
            snapshot = graph.get_state(cfg)
            if not snapshot.tasks:
                final = cast(dict[str, Any], snapshot.values)
                log.step(final)
    finally:
        log.close()
        if final.get("game_id"):
            forget_game(final["game_id"])  # its parsed log and views are of no further use
    return {key: value for key, value in final.items() if key != "prompts"}
