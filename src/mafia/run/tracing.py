"""LangSmith tracing of games: readable run names, metadata and tags, slim traced data, the flush.

A traced game is one tree whose root run is named for the run id and the policy and carries the
game's metadata (game id, run id, seed, policy, model). In the default "turns" detail the game
posts its own runs under it: each day and night, and in it each player turn, named for what it is
(``Day 2 · vote · Player 4``), holding the prompt, the answers and the result, with the turn's metadata (seat,
player, role, phase, round, action, the seat's model) and ``phase:``/``role:`` tags. LangChain's
own tracing is off inside the game: LangGraph would trace every node and router with the game
state as input, about ten runs per turn. In "graph" detail LangGraph's runs are traced instead,
the player subgraph's run gets the turn's name, metadata and tags, and the client's
``hide_inputs``/``hide_outputs`` hooks leave the event log, the prompt records and the prompt text
out of every run but the model's, changing what is uploaded, never what the game computes.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tracers.langchain import LangChainTracer
from langgraph.runtime import get_runtime
from langsmith import Client
from langsmith.run_helpers import get_tracing_context, tracing_context
from langsmith.run_trees import RunTree
from langsmith.utils import get_api_key, get_api_url, tracing_is_enabled

from mafia.context.builder import RenderedPrompt
from mafia.context.memory import NIGHT_ACTIONS
from mafia.game.actions import ActionKind
from mafia.game.events import EventBase, GameStarted, RoleAssigned
from mafia.game.state import JSON, TurnRequest
from mafia.models.settings import ModelSettings
from mafia.records.call_kinds import RECALL_KIND
from mafia.run.runtime import GameContext, ModelLike, game_context
from mafia.run.settings import config_from_input, game_id_for
from mafia.turn.state import FinishedTurn

logger = logging.getLogger(__name__)

DETAIL_ENV = "MAFIA_TRACE_DETAIL"
FLUSH_SECONDS = 10.0
"""The longest a command waits at its end for traces still being sent."""

# LangGraph's bookkeeping in a task's metadata, which says nothing to a reader of the trace.
LANGGRAPH_NOISE = frozenset(
    {"langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns", "checkpoint_ns"}
)
# Fields of a prompt record that repeat the prompt's text (traced in the model run instead).
PROMPT_TEXT = ("system", "user")


def enabled() -> bool:
    """Whether runs are traced to LangSmith (``LANGSMITH_TRACING`` or a ``tracing_context``)."""
    return bool(tracing_is_enabled())


# ---- names, metadata and tags ---------------------------------------------------------------


def model_label(model: ModelLike) -> str:
    """A model as a short label: its spec, or the class of a model given as an instance."""
    if isinstance(model, str):
        return model
    if isinstance(model, ModelSettings):
        return model.model
    return type(model).__name__


def detail() -> str:
    """What a traced game uploads (``MAFIA_TRACE_DETAIL``): "turns" (the default: the game, its
    days and nights, and every turn with its prompt, answer and result) or "graph" (LangGraph's
    own runs of every node, router and model call, slimmed; several times the CPU)."""
    value = os.environ.get(DETAIL_ENV, "turns").strip().lower() or "turns"
    if value not in ("turns", "graph"):
        raise ValueError(f"{DETAIL_ENV} must be 'turns' or 'graph', got {value!r}")
    return value


class GameTrace:
    """One game's trace in "turns" detail: the root run, the current day or night under it, and
    the turns under that, all posted through the game's client."""

    def __init__(self, config: RunnableConfig, root: RunTree | None) -> None:
        self.config = config
        """The run's config: root run name and metadata (and the tracer in "graph" detail)."""
        self.root = root
        self.outputs: dict[str, Any] = {}
        self._phase: tuple[str, RunTree] | None = None
        self._lock = threading.Lock()

    def finish(self, final: JSON) -> JSON:
        """Note the game's result as the root run's outputs; returns ``final``."""
        events = final.get("events", [])
        self.outputs = {"winner": final.get("winner"), "events": len(events)}
        return final

    def phase_run(self, request: TurnRequest) -> RunTree:
        """The run of the day or night ``request`` belongs to."""
        return self.phase_named(phase_of(request), request["round"])

    def phase_named(self, phase: str, number: int) -> RunTree:
        """The run of the day or night (``phase``) ``number``: started with its first run (a turn,
        or the dawn's summary), ended when the next one starts (or the game ends)."""
        assert self.root is not None
        name = f"{phase.title()} {number}"
        with self._lock:
            if self._phase is not None and self._phase[0] == name:
                return self._phase[1]
            self._end_phase()
            run = self.root.create_child(name, tags=[f"phase:{phase}"])
            run.post()
            self._phase = (name, run)
            return run

    def _end_phase(self) -> None:
        if self._phase is not None:
            self._phase[1].end()
            self._phase[1].patch()
            self._phase = None

    def close(self, error: BaseException | None) -> None:
        """End the open day or night and the game's run (with the error that stopped it, if any)."""
        assert self.root is not None
        with self._lock:
            self._end_phase()
        if error is None:
            self.root.end(outputs=self.outputs)
        else:
            self.root.end(error=f"{type(error).__name__}: {error}")
        self.root.patch()


_game: ContextVar[GameTrace | None] = ContextVar("mafia_game_trace", default=None)


@contextmanager
def traced_game(
    run_config: RunnableConfig,
    run_id: str,
    setup: Mapping[str, Any],
    context: GameContext,
    *,
    resumed: bool = False,
) -> Iterator[GameTrace]:
    """Trace one game run: ``GameTrace.config`` carries the root run's name (the run id and the
    policy, ``game-7p-seed3 · lean``) and the
    game's metadata. With tracing on, "turns" detail posts the game's own runs (LangChain's
    per-node tracing is off inside); "graph" detail adds the game's tracer to the callbacks
    (unless the caller gave a LangChain tracer of their own)."""
    config = config_from_input(setup)
    metadata: dict[str, Any] = {
        "game_id": game_id_for(setup, config),
        "run_id": run_id,
        "seed": config.seed,
        "policy": context.policy.name,
        "model": model_label(context.model),
    }
    if context.seat_models:
        metadata["seat_models"] = {seat: model_label(m) for seat, m in context.seat_models.items()}
    if resumed:
        metadata["resumed"] = True
    traced: RunnableConfig = {
        **run_config,
        # The run id, which a second game of one setup numbers ("-2"), and the policy, which
        # tells apart the games an arena pairs across policies.
        "run_name": run_config.get("run_name") or f"{run_id} · {context.policy.name}",
        "metadata": {**metadata, **run_config.get("metadata", {})},
    }
    if not enabled():
        yield GameTrace(traced, None)
        return
    if detail() == "graph":
        callbacks = run_config.get("callbacks")
        if callbacks is None or isinstance(callbacks, list):
            given = list(callbacks or [])
            if not any(isinstance(handler, LangChainTracer) for handler in given):
                traced["callbacks"] = [*given, LangChainTracer(client=trace_client())]
        yield GameTrace(traced, None)
        return
    root = RunTree(
        name=traced["run_name"],
        inputs={"setup": dict(setup)},
        extra={"metadata": traced["metadata"]},
        tags=list(run_config.get("tags", [])),
        ls_client=trace_client(),
        **({"project_name": project} if (project := get_tracing_context().get("project_name")) else {}),
    )
    root.post()
    trace = GameTrace(traced, root)
    token = _game.set(trace)
    error: BaseException | None = None
    try:
        with tracing_context(enabled=False):
            yield trace
    except BaseException as exc:
        error = exc
        raise
    finally:
        _game.reset(token)
        trace.close(error)


def turn_name(request: TurnRequest) -> str:
    """A turn's run name: ``Day 2 · vote · Player 4``, ``Night 1 · protect · Player 3``."""
    return f"{phase_of(request).title()} {request['round']} · {request['action']} · {request['player']}"


def phase_of(request: TurnRequest) -> str:
    """ "day" or "night": when the turn's action is taken."""
    return "night" if ActionKind(request["action"]) in NIGHT_ACTIONS else "day"


def role_of(events: Sequence[EventBase], player: str) -> str:
    """The player's role, from the deal at the head of the log ("" before the deal)."""
    for event in events:
        if isinstance(event, RoleAssigned) and event.player == player:
            return event.role.value
    return ""


def turn_config(
    config: RunnableConfig,
    request: TurnRequest,
    events: Sequence[EventBase],
    context: GameContext | None = None,
) -> RunnableConfig:
    """The turn's run name, metadata and tags over the game's ``config`` (whose metadata every
    run of the turn inherits, as it inherits these); ``context`` is the run's, else the step's."""
    context = context or game_context(get_runtime(GameContext))
    phase, role = phase_of(request), role_of(events, request["player"])
    inherited = {k: v for k, v in config.get("metadata", {}).items() if k not in LANGGRAPH_NOISE}
    metadata = {
        **inherited,
        "player": request["player"],
        "seat": request["order"],
        "role": role,
        "phase": phase,
        "round": request["round"],
        "action": request["action"],
        "model": model_label(context.model_spec(request["player"], request["order"])),
        "policy": context.policy.name,
    }
    if events and isinstance(events[0], GameStarted):
        metadata.setdefault("game_id", events[0].game_id)
    tags = [*config.get("tags", []), f"phase:{phase}", f"role:{role.lower()}"]
    return {"run_name": turn_name(request), "metadata": metadata, "tags": tags}


def traced_turn(
    play: Callable[[RunnableConfig], dict[str, Any]],
    config: RunnableConfig,
    request: TurnRequest,
    events: Sequence[EventBase],
    context: GameContext | None = None,
) -> dict[str, Any]:
    """Play one turn (``play`` runs the player subgraph with the config it is given) under its
    trace: in "turns" detail one run holding the prompt, the answer and the result, under the
    game's day or night; otherwise the config names the subgraph's own run and gives it the
    turn's metadata and tags."""
    names = turn_config(config, request, events, context)
    game = _game.get()
    if game is None:
        return play({**config, **names})
    run = game.phase_run(request).create_child(
        names["run_name"], tags=names["tags"], extra={"metadata": names["metadata"]}
    )
    try:
        out = play({**config, **names})
    except BaseException as exc:
        run.inputs = {"request": dict(request)}
        run.end(error=f"{type(exc).__name__}: {exc}")
        run.post()
        raise
    finished: FinishedTurn = out["turn"]
    record = finished["prompt_record"]
    run.inputs = {
        "messages": [
            {"role": "system", "content": record["system"]},
            {"role": "user", "content": record["user"]},
        ],
        "options": request["options"],
    }
    run.end(outputs=_turn_outputs(finished))
    run.post()
    _recall_runs(run, names["run_name"], record["attempts"])
    return out


def _recall_runs(turn: RunTree, name: str, attempts: Sequence[Mapping[str, Any]]) -> None:
    """Each recall search of a turn as a child run of the turn's, named for the turn and the
    search (``Day 2 · vote · Player 4 · recall 1``): its query in, its hits and answer out."""
    searches = [a for a in attempts if a.get("kind") == RECALL_KIND]
    for number, attempt in enumerate(searches, start=1):
        found = attempt.get("recall") or {}
        child = turn.create_child(
            f"{name} · recall {number}",
            run_type="tool",
            inputs={"query": found.get("query", "")},
            tags=["recall"],
        )
        child.end(outputs={k: found.get(k) for k in ("hits", "answer", "refused")})
        child.post()


def traced_summary(day: int, model: str, messages: Sequence[BaseMessage], record: Mapping[str, Any]) -> None:
    """The summariser's call at the dawn of ``day`` as a run of that day named ``Day 4 ·
    summary``, in "turns" detail (its prompt in, the summary or its fallback and the attempt out)."""
    game = _game.get()
    if game is None:
        return
    inherited = {k: v for k, v in game.config.get("metadata", {}).items() if k not in LANGGRAPH_NOISE}
    metadata = {**inherited, "phase": "day", "round": day, "action": record.get("action"), "model": model}
    run = game.phase_named("day", day).create_child(
        f"Day {day} · summary",
        inputs={"messages": [{"role": m.type, "content": m.content} for m in messages]},
        tags=["phase:day", "summary"],
        extra={"metadata": metadata},
    )
    run.end(
        outputs={
            "fallback": record.get("fallback_kind") if record.get("fallback") else None,
            "attempts": list(record.get("attempts", [])),
        }
    )
    run.post()


def _turn_outputs(turn: FinishedTurn) -> JSON:
    """What the turn came to: the choice and words, the reasoning, and every attempt's answer."""
    record = turn["prompt_record"]
    return {
        "choice": turn["choice"],
        "text": turn["text"],
        "claim": turn["claim"],
        "reasoning": turn["reasoning"],
        "fallback": record["fallback_kind"] if record["fallback"] else None,
        "attempts": record["attempts"],
        "prompt_tokens": record["total_tokens"],
        "trimmed": record["trimmed"],
    }


# ---- what traced runs hold ------------------------------------------------------------------


def traced_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    """A run's inputs as uploaded: the game's logs as their length, the prompt as its size (it is
    in the model run), prompt records without their text; everything else as it is."""
    return {key: _input_field(key, value) for key, value in inputs.items()}


def traced_outputs(outputs: dict[str, Any]) -> dict[str, Any]:
    """A run's outputs as uploaded: a step's new events stay (they are what the step did); prompt
    records lose their text, the prompt and its messages become their size."""
    return {key: _output_field(key, value) for key, value in outputs.items()}


def _input_field(key: str, value: Any) -> Any:
    if key in ("events", "prompts") and isinstance(value, list):
        return f"({len(value)} {key}: the game's log, not traced)"
    return _output_field(key, value)


def _output_field(key: str, value: Any) -> Any:
    if isinstance(value, RenderedPrompt):
        return {"tokens": value.total_tokens, "trimmed": list(value.trimmed), "text": "(in the model run)"}
    if key == "prompt" and isinstance(value, Mapping) and "user" in value:  # a prompt kept as JSON
        tokens, trimmed = value.get("total_tokens"), value.get("trimmed")
        return {"tokens": tokens, "trimmed": trimmed, "text": "(in the model run)"}
    if key == "messages" and isinstance(value, list) and value and isinstance(value[0], BaseMessage):
        return f"({len(value)} messages: in the model run)"
    if key == "prompts" and isinstance(value, list):
        return [_record(r) for r in value]
    if key == "base" and isinstance(value, Mapping) and "user" in value:  # a turn task's last record
        return _record(value)
    if key == "turn" and isinstance(value, Mapping):
        return _turn(value)
    if key == "turns" and isinstance(value, Mapping):
        return {rid: _turn(t) if isinstance(t, Mapping) else t for rid, t in value.items()}
    return value


def _turn(turn: Mapping[str, Any]) -> JSON:
    return {k: _record(v) if k == "prompt_record" else v for k, v in turn.items()}


def _record(record: Any) -> Any:
    if not isinstance(record, Mapping):
        return record
    return {k: v for k, v in record.items() if k not in PROMPT_TEXT}


# ---- the client and the flush ---------------------------------------------------------------

_clients: dict[tuple[str, str | None], Client] = {}
_clients_lock = threading.Lock()


def trace_client() -> Client:
    """The client of the game's tracer, with the slimming hooks: built from the environment
    (``LANGSMITH_ENDPOINT``, ``LANGSMITH_API_KEY``), or on the endpoint and key of a client given
    through ``langsmith.tracing_context``. One per endpoint and key for the process."""
    given = get_tracing_context().get("client")
    if isinstance(given, Client):
        key = (given.api_url, given.api_key)
    else:
        key = (get_api_url(None), get_api_key(None))
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = Client(
                api_url=key[0], api_key=key[1], hide_inputs=traced_inputs, hide_outputs=traced_outputs
            )
            _clients[key] = client
        return client


def flush(timeout: float = FLUSH_SECONDS) -> bool:
    """Send the traces still queued, waiting at most ``timeout`` seconds in all; True if all went.

    What is left after the wait (an endpoint that is down or slow) is reported with a warning.
    """
    with _clients_lock:
        clients = list(_clients.values())
    deadline = time.monotonic() + timeout
    complete = True
    for client in clients:
        client.flush(timeout=max(0.0, deadline - time.monotonic()))
        queue = client.tracing_queue
        if queue is not None and queue.unfinished_tasks:
            complete = False
            logger.warning("%d trace uploads were not sent within %.0f s", queue.unfinished_tasks, timeout)
    return complete


def close(timeout: float = FLUSH_SECONDS) -> bool:
    """``flush``, then stop the clients' sending threads (at the end of a command: otherwise they
    keep the process alive for seconds after its work is done). A later game makes new clients."""
    complete = flush(timeout)
    with _clients_lock:
        clients = list(_clients.values())
        _clients.clear()
    for client in clients:
        client.cleanup(timeout=0)
    return complete
