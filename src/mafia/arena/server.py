"""Arena games played as threads on a LangGraph server (``langgraph dev`` locally, a deployment in
production) through ``langgraph-sdk``; the logs are written here, as a local run writes them.

Each game is one server thread with an id derived from the arena and the game, so a stopped game
resumes on the same thread. ``events.jsonl`` grows from the streamed state after every step;
``prompts.jsonl`` is written from the thread's state when the run ends (finished or stopped), in
the order the state holds the records: turns taken at once finish in any order, and only the state
orders them as a local run does. Both go through the runner's log writer, so they are byte-identical
to a local run's and a resume only ever appends to them.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import cast

from langgraph_sdk.schema import RunCreateMetadata, StreamMode

from mafia.arena.game import GameTally, clear_unstarted, finish
from mafia.arena.spec import ArenaError, ArenaSpec, GameSlot, model_record, write_json
from mafia.game.state import JSON, InputState
from mafia.models.settings import ModelSettings
from mafia.play.runner import RUN_FILE, RunLock, RunLog
from mafia.run.settings import config_from_input, game_id_for

GRAPH_ID = "mafia"  # the graph langgraph.json exports
RESTREAMS = 2  # new runs for a game whose run ended early without an error
# The run input's one key (the game setup), read from the graph's input schema.
(INPUT_KEY,) = InputState.__annotations__
STREAM_MODES: list[StreamMode] = ["values", "custom"]
_log = logging.getLogger(__name__)


class ServerRunError(RuntimeError):
    """The server reported an error in a game's run (the game stays resumable)."""


def check_server_models(spec: ArenaSpec) -> None:
    """A server builds its models from specs or settings: Python objects cannot be sent."""
    for contestant in spec.contestants:
        for model in (contestant.model, *contestant.seat_models.values()):
            if not isinstance(model, str | ModelSettings):
                raise ArenaError(
                    f"--server: model {contestant.label!r} is a Python object ({model_record(model)}); "
                    "a server needs model specs or settings"
                )


def server_context(slot: GameSlot, spec: ArenaSpec) -> JSON:
    """The run-time context of ``slot`` as the server's context schema takes it."""
    return {
        **slot.contestant.record(),
        "max_retries": spec.max_retries,
        "policy": asdict(slot.policy),
        **({"summariser": spec.summariser} if spec.summariser is not None else {}),
    }


def check_server(url: str) -> None:
    """A LangGraph server answers at ``url`` and serves the game graph (ArenaError says what is
    wrong)."""
    from langgraph_sdk import get_sync_client

    try:
        graphs = {a["graph_id"] for a in get_sync_client(url=url).assistants.search(limit=100)}
    except Exception as exc:
        raise ArenaError(f"--server: no LangGraph server answers at {url} ({exc})") from None
    if GRAPH_ID not in graphs:
        raise ArenaError(f"--server: {url} does not serve the {GRAPH_ID!r} graph (it has: {sorted(graphs)})")


class ServerGames:
    """Plays arena games on one LangGraph server; ``cancel_all`` ends the runs in flight."""

    def __init__(self, url: str, arena_uid: str) -> None:
        from langgraph_sdk import get_sync_client

        self.url = url
        self.arena_uid = arena_uid
        self.client = get_sync_client(url=url)
        self._runs: dict[str, str] = {}  # server thread id -> run id, while its run streams
        self._lock = threading.Lock()

    def thread_for_id(self, game: str) -> str:
        """The server thread of the arena's game ``game`` (its run id): the same for every run of
        the arena (``arena_uid`` is its arena.json's ``uid``)."""
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"mafia-arena:{self.arena_uid}/{game}"))

    def open_thread(self, slot: GameSlot) -> str:
        """The server thread of ``slot``, made if it is not there yet; its id."""
        thread_id = self.thread_for_id(slot.thread_id)
        self.client.threads.create(
            thread_id=thread_id,
            if_exists="do_nothing",
            metadata={"arena": self.arena_uid, "game": slot.thread_id},
        )
        return thread_id

    def prepare_folder(self, slot: GameSlot, spec: ArenaSpec, resumed: bool) -> None:
        """The game's folder with its run.json; a game that never started is set up afresh
        (``clear_unstarted``)."""
        if not resumed:
            clear_unstarted(slot.folder)
        slot.folder.mkdir(parents=True, exist_ok=True)
        if (slot.folder / RUN_FILE).exists():
            return
        setup = spec.setup(slot.seed)
        run_file = {
            "run_id": slot.thread_id,
            "game_id": game_id_for(setup, config_from_input(setup)),
            "config": setup,
            **slot.contestant.record(),
            "max_retries": spec.max_retries,
            "policy": slot.policy.name,
            "server": self.url,
            "server_thread_id": self.thread_for_id(slot.thread_id),
        }
        write_json(slot.folder / RUN_FILE, run_file)

    def play(self, slot: GameSlot, spec: ArenaSpec, tally: GameTally) -> JSON:
        """Play ``slot`` on the server, or resume it there; returns its result."""
        thread_id = self.open_thread(slot)
        client = self.client
        # A run left by a stopped arena may still be writing checkpoints: the state is read once
        # it is over, or the game would be judged unstarted (and set up again) or half-done.
        self._settle(thread_id)
        saved = client.threads.get_state(thread_id)
        resumed = bool(saved["values"])
        setup = spec.setup(slot.seed)
        self.prepare_folder(slot, spec, resumed)
        with locked(slot.folder):
            start = time.perf_counter()
            log = RunLog(slot.folder, on_prompt=tally.count)
            try:
                if resumed and not saved["next"] and not saved["tasks"]:  # finished there: log it
                    final = cast(JSON, saved["values"])
                    log.step(final)
                else:
                    final = self._play_out(
                        lambda begin: self._stream(slot, spec, thread_id, begin, log, tally),
                        slot.thread_id,
                        thread_id,
                        None if resumed else {INPUT_KEY: setup},
                        tally,
                    )
            finally:
                log.close()
            return finish(slot, final, tally, time.perf_counter() - start, resumed)

    def _play_out(
        self,
        stream: Callable[[JSON | None], JSON],
        game: str,
        thread_id: str,
        start: JSON | None,
        tally: GameTally,
    ) -> JSON:
        """Stream the runs of ``game`` (``stream(input)`` is one run) until it has a winner: a run
        that ends early without an error (its stream dropped, or the server ended it) is followed
        by another from the thread's last checkpoint, logged, up to ``RESTREAMS`` times; then
        ServerRunError (the game stays resumable)."""
        for attempt in range(RESTREAMS + 1):
            final = stream(start)
            if final.get("winner") is not None:
                return final
            tally.check()  # a stop asked for ends the game here, as a stop does
            statuses = [run["status"] for run in self.client.runs.list(thread_id, limit=100)]
            goes_on = bool(self.client.threads.get_state(thread_id)["next"])
            if attempt == RESTREAMS or not goes_on:
                break
            _log.warning(
                "%s: the server's run ended before the game did (runs, newest first: %s); "
                "going on from the thread's last checkpoint",
                game,
                statuses,
            )
            self._settle(thread_id)
            start = None if final else start
        raise ServerRunError(f"the server's run ended before the game did (runs, newest first: {statuses})")

    def _stream(
        self,
        slot: GameSlot,
        spec: ArenaSpec,
        thread_id: str,
        start: JSON | None,
        log: RunLog,
        tally: GameTally,
    ) -> JSON:
        """Stream the game's run, logging the events after every step; then log the thread's state
        (every prompt record) and return it. A stop cancels the run at its next step, and the
        records made so far are logged all the same."""

        def created(meta: RunCreateMetadata) -> None:
            with self._lock:
                self._runs[thread_id] = str(meta["run_id"])

        parts = self.client.runs.stream(
            thread_id,
            GRAPH_ID,
            input=start,
            context=server_context(slot, spec),
            stream_mode=STREAM_MODES,
            on_disconnect="cancel",
            on_run_created=created,
        )
        try:
            for part in parts:
                if part.event == "error":
                    raise ServerRunError(
                        f"{slot.thread_id}: the server's run failed: {json.dumps(part.data)}"
                    )
                if part.event == "values":
                    log.step({"events": part.data.get("events", [])})
                elif part.event == "custom" and "prompt" in part.data:
                    tally.on_call(part.data["prompt"])
                tally.check()
        except BaseException:
            if isinstance(parts, Generator):
                parts.close()  # hang up first: the server cancels a run whose stream is dropped
            self._cancel(thread_id, wait=True)  # and the run is over before the thread is resumed
            raise
        finally:
            with self._lock:
                self._runs.pop(thread_id, None)
            values = cast(JSON, self.client.threads.get_state(thread_id)["values"])
            log.step(values)
        return values

    def _settle(self, thread_id: str) -> None:
        """Wait out any run still active on the thread (one whose client was killed ends when the
        server notices the dropped stream): a thread takes one run at a time."""
        for run in self.client.runs.list(thread_id, limit=100):
            if run["status"] in ("pending", "running"):
                self.client.runs.cancel(thread_id, run["run_id"], wait=True)

    def _cancel(self, thread_id: str, wait: bool = False) -> None:
        with self._lock:
            run_id = self._runs.get(thread_id)
        if run_id is None:
            return
        try:
            self.client.runs.cancel(thread_id, run_id, wait=wait)
        except Exception:  # a run that just ended cannot be cancelled: nothing to do
            return

    def cancel_all(self) -> None:
        """Cancel every run in flight (their games stop at a checkpoint, to be resumed)."""
        with self._lock:
            threads = list(self._runs)
        for thread_id in threads:
            self._cancel(thread_id)


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold the game folder's lock (made if missing): one process writes a game's logs."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = RunLock(folder)
    lock.acquire()
    try:
        yield
    finally:
        lock.release()
