"""Run a game from Python: compile the graph, stream it, and write the logs as the game goes.

``run_game`` is the entry point the README documents: a config, chat models per seat (instances or
specs), and optionally an output folder. It returns the final state with the event log.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from mafia.billing import GameCache
from mafia.context.policy import ContextPolicy
from mafia.events import EventBase, parse_event
from mafia.graph import build_graph
from mafia.nodes.setup import config_from_input, game_id_for
from mafia.runtime import GameContext, ModelLike
from mafia.state import JSON, ConfigInput, InputState

RECURSION_LIMIT = 20_000
# Simultaneous turns (up to 16 voters) must not queue behind a small default thread pool.
MAX_CONCURRENCY = 32


class RunLog:
    """Writes ``events.jsonl`` and ``prompts.jsonl`` of one game as it goes.

    Events are written in log order as soon as a step ends. Prompt records of simultaneous turns
    arrive in completion order, so they are held until the step ends and written in seat order:
    the files are byte-identical for the same seed whatever the timing.
    """

    def __init__(
        self,
        folder: Path | None,
        on_event: Callable[[EventBase], None] | None = None,
        on_prompt: Callable[[JSON], None] | None = None,
        *,
        resume: bool = False,
    ):
        """With ``resume``, the prompts file is appended to, and the events file is rewritten from
        the first step on (until then, a run that fails at once leaves it as it was)."""
        self.folder = folder
        self.on_event = on_event
        self.on_prompt = on_prompt
        self.written = 0
        self.pending: list[JSON] = []
        self.cache = GameCache()  # bills each record's calls in written order
        self.lock = threading.Lock()
        self._events: Any = None
        self._prompts: Any = None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            if not resume:
                self._events = (folder / "events.jsonl").open("w", encoding="utf-8")
            else:
                self.cache.replay(folder / "prompts.jsonl")
            self._prompts = (folder / "prompts.jsonl").open("a" if resume else "w", encoding="utf-8")

    def prompt(self, record: JSON) -> None:
        """A turn finished (simultaneous turns call this from their own threads)."""
        with self.lock:
            self.pending.append(record)

    def step(self, events: list[JSON]) -> None:
        """A step ended: write the prompts it produced, then the events it added."""
        self.flush_prompts()
        if self._events is None and self.folder is not None:
            self._events = (self.folder / "events.jsonl").open("w", encoding="utf-8")
        for raw in events[self.written :]:
            self._write(self._events, raw)
            if self.on_event is not None:
                self.on_event(parse_event(raw))
        self.written = len(events)

    @staticmethod
    def _write(handle: Any, data: JSON) -> None:
        if handle is not None:
            handle.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
            handle.flush()

    def flush_prompts(self) -> None:
        """Write the prompt records held so far, in seat order within their step."""
        with self.lock:
            pending, self.pending = self.pending, []
        pending.sort(key=lambda r: (r["round"], r["action"], _order(r)))
        for record in pending:
            self.cache.bill(record)
            self._write(self._prompts, record)
            if self.on_prompt is not None:
                self.on_prompt(record)

    def close(self) -> None:
        """Flush and close. After a failed step, its finished turns' records are kept too: the
        checkpoint holds those turns, so a resumed run does not play them again."""
        self.flush_prompts()
        for handle in (self._events, self._prompts):
            if handle is not None:
                handle.close()


def _order(record: JSON) -> int:
    return int(record.get("seat", 0))


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
    (only a power cut may lose the last steps) at a fraction of the cost of a sync per step.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    try:
        yield SqliteSaver(conn)
    finally:
        conn.close()


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
    on_event: Callable[[EventBase], None] | None = None,
    on_prompt: Callable[[JSON], None] | None = None,
    run_config: RunnableConfig | None = None,
) -> dict[str, Any]:
    """Play one game to the end and return the final state (``events``, ``winner``, ...).

    ``model`` plays every seat not in ``seat_models`` (keyed by seat number or player name); both
    accept chat model instances or specs. With ``out_dir`` the logs go to ``out_dir/<game_id>/``;
    ``on_event`` and ``on_prompt`` receive each event and prompt record as it is logged.
    """
    setup = dict(config or {})
    game_config = config_from_input(setup)
    game_id = game_id_for(setup, game_config)
    context = _context(model, seat_models, policy, max_retries)
    log = RunLog(Path(out_dir) / game_id if out_dir is not None else None, on_event, on_prompt)
    start: InputState = {"config": cast(ConfigInput, setup)}
    return _stream(
        graph_for(checkpointer), start, _run_config(run_config, thread_id or game_id), context, log
    )


class GameNotFound(LookupError):
    """No checkpointed game under the thread id asked for."""


def is_saved(checkpointer: BaseCheckpointSaver[Any], thread_id: str) -> bool:
    """Whether ``checkpointer`` holds a game under ``thread_id``."""
    return checkpointer.get_tuple({"configurable": {"thread_id": thread_id}}) is not None


def resume_game(
    thread_id: str,
    *,
    checkpointer: BaseCheckpointSaver[Any],
    model: ModelLike = "house",
    seat_models: Mapping[str, ModelLike] | None = None,
    policy: ContextPolicy | None = None,
    max_retries: int = 2,
    out_dir: str | Path | None = None,
    on_event: Callable[[EventBase], None] | None = None,
    on_prompt: Callable[[JSON], None] | None = None,
    run_config: RunnableConfig | None = None,
) -> dict[str, Any]:
    """Go on with a checkpointed game from its last completed step and return the final state.

    Models are run-time context, so they are given again (they may differ from the first run's).
    With ``out_dir``, ``events.jsonl`` is rewritten from the checkpointed log (the source of truth)
    and then grows as before; ``prompts.jsonl`` is appended to. ``on_event`` sees the whole game,
    the events before the resume first. A finished game is returned as it is.
    """
    graph = graph_for(checkpointer)
    cfg = _run_config(run_config, thread_id)
    if not is_saved(checkpointer, thread_id):
        raise GameNotFound(f"no checkpointed game with thread id {thread_id!r}")
    snapshot = graph.get_state(cfg)
    values = cast(dict[str, Any], snapshot.values)
    context = _context(model, seat_models, policy, max_retries)
    folder = Path(out_dir) / values["game_id"] if out_dir is not None else None
    log = RunLog(folder, on_event, on_prompt, resume=True)
    if not snapshot.next:
        log.step(values["events"])
        log.close()
        return values
    # The snapshot's values include the finished turns of a failed step; the stream starts from
    # the step's checkpoint instead, and its first chunk writes the log up to there.
    return _stream(graph, None, cfg, context, log)


def _context(
    model: ModelLike,
    seat_models: Mapping[str, ModelLike] | None,
    policy: ContextPolicy | None,
    max_retries: int,
) -> GameContext:
    """The run's context, checked before any log file is touched (``_stream`` connects the log)."""
    return GameContext(
        model=model,
        seat_models=dict(seat_models or {}),
        max_retries=max_retries,
        policy=policy or ContextPolicy(),
    )


def _run_config(run_config: RunnableConfig | None, thread_id: str) -> RunnableConfig:
    return {
        **(run_config or {}),
        "recursion_limit": RECURSION_LIMIT,
        "max_concurrency": MAX_CONCURRENCY,
        "configurable": {**(run_config or {}).get("configurable", {}), "thread_id": thread_id},
    }


def _stream(
    graph: Any, start: InputState | None, cfg: RunnableConfig, context: GameContext, log: RunLog
) -> JSON:
    """Stream the game to its end, logging each step; the final state.

    Prompt records come through the context, not a "custom" stream: streaming "custom" makes
    LangGraph run every task, even a lone sequential turn, on a worker thread.
    """
    context.on_prompt = log.prompt
    final: dict[str, Any] = {}
    try:
        for chunk in graph.stream(start, cfg, context=context, stream_mode="values"):
            final = cast(dict[str, Any], chunk)
            log.step(final.get("events", []))
    finally:
        log.close()
    return final
