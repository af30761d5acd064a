"""The player subgraph: build context -> decide -> commit, with bounded re-asks and a legal fallback.

One compiled subgraph with its own input and output schemas serves every decision. The phase graph
reaches it through ``player_turn``, a thin node targeted by ``Send``: Send payloads are checkpointed,
so they carry only the small request and the turn reads the log from the game's state instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, cast

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config, get_stream_writer
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel, ValidationError

from mafia.actions import ACTION_SCHEMAS, ActionKind
from mafia.billing import call_tokens, turn_tokens
from mafia.context.builder import build_context
from mafia.events import Fallback, RelationshipNote, SuspicionNote, Thought, dump_event
from mafia.models.factory import resolve_model, structured
from mafia.nodes.common import parsed_log
from mafia.rules import SKIP
from mafia.runtime import GameContext, game_context
from mafia.state import JSON, GameState, PlayerTurnInput, PlayerTurnOutput, PlayerTurnState, TurnRequest

# The answer field holding each action's choice, and its text field (speech, message or plan).
_NO_CHOICE = (ActionKind.DEFENSE, ActionKind.LAST_WORDS, ActionKind.NIGHT_ZERO)
_WITH_TEXT = (
    ActionKind.SPEAK,
    ActionKind.DEFENSE,
    ActionKind.LAST_WORDS,
    ActionKind.NIGHT_ZERO,
    ActionKind.MAFIA_ROUND1,
)
CHOICE_FIELD: dict[ActionKind, str | None] = {
    kind: None if kind in _NO_CHOICE else "choice" for kind in ActionKind
}
TEXT_FIELD: dict[ActionKind, str | None] = {
    kind: "text" if kind in _WITH_TEXT else None for kind in ActionKind
}
# Legal fallbacks, applied after the last re-ask fails. Votes and kills fall back to skip, the
# Doctor to protecting themself, the Detective to the lowest-seat candidate, speeches to a pass.
FALLBACK_TEXT = {
    ActionKind.SPEAK: "I have nothing to add right now.",
    ActionKind.DEFENSE: "I am not Mafia. I have nothing more to add.",
    ActionKind.LAST_WORDS: "Good luck, everyone.",
    ActionKind.NIGHT_ZERO: "No plan given; follow your instincts.",
    ActionKind.MAFIA_ROUND1: "No message.",
}


def fallback_choice(action: ActionKind, player: str, options: Sequence[str]) -> str | None:
    """The legal choice applied when a model never gave one (documented per action above)."""
    if action is ActionKind.SPEAK:
        return None
    if action is ActionKind.PROTECT:
        return player if player in options else options[0]
    if action is ActionKind.INVESTIGATE:
        return options[0]
    if CHOICE_FIELD[action] is None:
        return None
    return SKIP


def normalize_choice(value: Any, options: Sequence[str]) -> str | None:
    """Match a model's answer to a legal option, forgiving case and stray spaces."""
    if not isinstance(value, str):
        return None
    wanted = value.strip().casefold()
    return next((o for o in options if o.casefold() == wanted), None)


def check_answer(action: ActionKind, answer: JSON, options: Sequence[str]) -> tuple[str | None, str]:
    """The legal choice in ``answer`` and an empty error, or None and what is wrong with it."""
    name = CHOICE_FIELD[action]
    if name is None:
        return None, ""
    value = answer.get(name)
    if action is ActionKind.SPEAK and (value is None or str(value).strip().lower() in ("", SKIP)):
        return None, ""
    choice = normalize_choice(value, options)
    if choice is None:
        allowed = ", ".join(options) + (" or null" if action is ActionKind.SPEAK else "")
        return None, f"{name}={value!r} is not allowed; choose exactly one of: {allowed}."
    return choice, ""


# ---- subgraph nodes ------------------------------------------------------------------------


def build_context_node(state: PlayerTurnState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Render the player's prompt from their view of the log."""
    req = state["request"]
    prompt = build_context(
        state["events"],
        req["player"],
        ActionKind(req["action"]),
        game_context(runtime).policy,
        game_over=req["game_over"],
    )
    return {"prompt": prompt, "messages": prompt.messages(), "attempts": [], "error": None}


def decide(state: PlayerTurnState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Ask the seat's model for the action's structured output; record the raw answer."""
    req = state["request"]
    schema = ACTION_SCHEMAS[ActionKind(req["action"])]
    model = resolve_model(game_context(runtime).model_spec(req["player"], req["order"]))
    answer: JSON | None = None
    raw: str = ""
    error: str | None = None
    try:
        out = structured(model, schema).invoke(state["messages"], get_config())
        raw = raw_text(out.get("raw"))
        parsed = out.get("parsed")
        if isinstance(parsed, BaseModel):
            answer = parsed.model_dump(mode="json")
        elif isinstance(parsed, dict):
            answer = schema.model_validate(parsed).model_dump(mode="json")
        else:
            error = f"the answer did not match the {schema.__name__} schema: {out.get('parsing_error')}"
    except (ValidationError, ValueError) as exc:
        error = f"the answer did not match the {schema.__name__} schema: {exc}"
    attempt = {"raw": raw, "error": error, **call_tokens(state["messages"], schema, raw)}
    return {"answer": answer, "error": error, "attempts": [*state["attempts"], attempt]}


def commit(state: PlayerTurnState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Validate the answer against the rules; re-ask with the error, or finish the turn."""
    req = state["request"]
    action = ActionKind(req["action"])
    answer = state["answer"]
    error = state["error"]
    choice: str | None = None
    if answer is not None:
        choice, error = check_answer(action, answer, req["options"])
        error = error or None
    attempts = list(state["attempts"])
    if error is not None:
        attempts[-1] = {**attempts[-1], "error": error}
        if len(attempts) <= game_context(runtime).max_retries:
            retry = HumanMessage(
                f"Your previous answer was rejected: {error}\n"
                "Answer again with the same schema, choosing only from the valid targets."
            )
            return {
                "attempts": attempts,
                "error": error,
                "messages": [*state["prompt"].messages(), retry],
            }
    return {
        "attempts": attempts,
        "error": error,
        "turn": finish_turn(state, choice, error, attempts),
    }


def route_commit(state: PlayerTurnState) -> Literal["decide", "__end__"]:
    """Re-ask while an error stands and no turn was finished."""
    return "decide" if state.get("error") is not None and "turn" not in state else "__end__"


def finish_turn(state: PlayerTurnState, choice: str | None, error: str | None, attempts: list[JSON]) -> JSON:
    """The finished turn: the choice, the text, the thought and fallback events, the prompt record."""
    req = state["request"]
    action = ActionKind(req["action"])
    answer = state["answer"] or {}
    fallback_event: JSON | None = None
    text_field = TEXT_FIELD.get(action)
    text = answer.get(text_field) if text_field else None
    if error is not None:
        choice = fallback_choice(action, req["player"], req["options"])
        if text_field and not isinstance(text, str):
            text = FALLBACK_TEXT[action]
        fallback_event = dump_event(
            Fallback(
                round=req["round"],
                player=req["player"],
                action=action.value,
                error=error,
                attempts=len(attempts),
                applied=choice if choice is not None else (text or "no choice"),
            )
        )
    thought = Thought(
        round=req["round"],
        player=req["player"],
        action=action.value,
        observations=str(answer.get("observations", "")),
        strategy=str(answer.get("strategy", "")),
        reasoning=str(answer.get("reasoning", "")),
        suspicions=[SuspicionNote(**s) for s in answer.get("suspicions", [])],
        relationships=[RelationshipNote(**r) for r in answer.get("relationships", [])],
        pattern_notes=list(answer.get("pattern_notes", [])),
    )
    prompt = state["prompt"]
    record = {
        "id": req["id"],
        "round": req["round"],
        "seat": req["order"],
        "player": req["player"],
        "action": action.value,
        "system": prompt.system,
        "user": prompt.user,
        "tokens": dict(prompt.token_counts()),
        "total_tokens": prompt.total_tokens,
        "trimmed": list(prompt.trimmed),
        **turn_tokens(attempts),
        "attempts": attempts,
        "choice": choice,
        "fallback": fallback_event is not None,
    }
    return {
        "id": req["id"],
        "order": req["order"],
        "player": req["player"],
        "action": action.value,
        "choice": choice,
        "text": text,
        "reasoning": thought.reasoning,
        "events": [e for e in (fallback_event, dump_event(thought)) if e is not None],
        "prompt_record": record,
    }


def raw_text(message: Any) -> str:
    """The raw answer as text for the prompts log: tool-call arguments or message content."""
    if isinstance(message, AIMessage):
        if message.tool_calls:
            return json.dumps([c["args"] for c in message.tool_calls], ensure_ascii=False, sort_keys=True)
        return message.text
    if isinstance(message, BaseMessage):
        return message.text
    return "" if message is None else str(message)


def build_player_graph() -> Any:
    """The compiled player subgraph (not checkpointed itself: a turn is atomic and re-runs whole)."""
    graph = StateGraph(
        PlayerTurnState,
        context_schema=GameContext,
        input_schema=PlayerTurnInput,
        output_schema=PlayerTurnOutput,
    )
    graph.add_node("build_context", build_context_node)
    graph.add_node("decide", decide)
    graph.add_node("commit", commit)
    graph.add_edge(START, "build_context")
    graph.add_edge("build_context", "decide")
    graph.add_edge("decide", "commit")
    graph.add_conditional_edges("commit", route_commit)
    return graph.compile(checkpointer=False, name="player_turn")


PLAYER_GRAPH = build_player_graph()


def read_state(config: RunnableConfig, keys: list[str]) -> dict[str, Any]:
    """The game's current channels, read from inside a Send-triggered task.

    A Send task receives only its payload; LangGraph's own ToolNode reads the rest of the state the
    same way (the task's read function), which keeps the log out of every checkpointed payload.
    """
    read = config.get("configurable", {}).get("__pregel_read")
    if read is None:
        raise RuntimeError("player_turn must run inside the game graph")
    values: dict[str, Any] = read(keys, False)
    return values


def _play(
    request: TurnRequest, game: dict[str, Any], config: RunnableConfig, runtime: Runtime[GameContext]
) -> tuple[JSON, list[JSON]]:
    """Run the player subgraph on the current log; hand on the prompt record.

    Returns the finished turn and the player's own events (the thought, any fallback), which go
    straight to the log: whatever applies the turn needs only its small choice.
    """
    events = parsed_log(game["game_id"], game["events"])
    run_config: RunnableConfig = {
        **config,
        "run_name": f"{request['player']} {request['action']}",
        "metadata": {
            **config.get("metadata", {}),
            "game_id": game["game_id"],
            "player": request["player"],
            "seat": request["order"],
            "action": request["action"],
            "round": request["round"],
        },
    }
    out = PLAYER_GRAPH.invoke({"events": events, "request": request}, run_config)
    turn = dict(out["turn"])
    record = {"game_id": game["game_id"], **turn.pop("prompt_record")}
    own_events: list[JSON] = turn.pop("events")
    get_stream_writer()({"prompt": record})
    on_prompt = game_context(runtime).on_prompt
    if on_prompt is not None:
        on_prompt(record)
    return turn, own_events


def player_turn(state: TurnRequest, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """One player's turn in a simultaneous step: the turn waits in ``turns`` for the step's tally."""
    config = get_config()
    turn, own_events = _play(state, read_state(config, ["game_id", "events"]), config, runtime)
    return {"turns": {state["id"]: turn}, "events": own_events}


ApplyTurn = Callable[[GameState, JSON], dict[str, Any]]


class TurnNode(Protocol):
    """A turn node as LangGraph calls it: the request, and the game's run-time context."""

    def __call__(self, state: TurnRequest, *, runtime: Runtime[GameContext]) -> dict[str, Any]: ...


GAME_KEYS = list(GameState.__annotations__)


def applying(apply: ApplyTurn) -> TurnNode:
    """A turn node for a sequential step: plays the turn and applies it with ``apply`` at once.

    One graph step per sequential turn instead of a turn step and a separate applying step.
    """

    def sequential_turn(state: TurnRequest, *, runtime: Runtime[GameContext]) -> dict[str, Any]:
        config = get_config()
        game = read_state(config, GAME_KEYS)
        turn, own_events = _play(state, game, config, runtime)
        update = apply(cast(GameState, game), turn)
        return {**update, "events": [*own_events, *update.get("events", [])]}

    sequential_turn.__doc__ = f"One player's turn, applied by ``{apply.__name__}``."
    return sequential_turn
