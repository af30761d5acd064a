"""The player subgraph: build context -> decide (-> recall -> decide) -> commit, with bounded
re-asks and a legal fallback; policies with recall let decide search the player's record first
(``nodes.recall_step``).

One compiled subgraph with its own input and output schemas serves every decision. A turn node of
the game graph (graph.py) reads the game state as any node does, computes its requests and runs
the subgraph on them: inline for one player, or one ``@task`` per player for a simultaneous step,
so each player's finished turn is checkpointed on its own and a resumed step replays it.

The subgraph shares the game's checkpointer (so Studio draws it and an interrupt inside it can be
resumed) but runs with ``"exit"`` durability: a finished turn leaves nothing in the checkpointer
beyond what the game writes, a turn killed midway re-runs whole, and only a turn stopped by a
provider fault or an interrupt is saved, to go on from the step it stopped at.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal, cast

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.config import get_config, get_stream_writer
from langgraph.errors import GraphInterrupt
from langgraph.func import task
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Interrupt
from pydantic import BaseModel

from mafia.context.builder import build_context, prompt_messages, with_schema_note
from mafia.context.call_budget import ELLIPSIS, LEFT_OUT, MIN_SHOWN, fit_tokens, over_budget
from mafia.context.extraction import claimed_role
from mafia.context.policy import ContextPolicy
from mafia.context.recall import RECALL_KIND
from mafia.context.record import read_view
from mafia.context.tokens import count_tokens
from mafia.context.views import player_view
from mafia.game.actions import ACTION_SCHEMAS, ActionBase, ActionKind, TextLimits
from mafia.game.events import AnswerKind, Fallback, SuspicionNote, TextTruncated, Thought, dump_event
from mafia.game.protocol import ACTIONS
from mafia.game.rules import SKIP
from mafia.game.state import JSON, Turn, TurnRequest
from mafia.models.billing import call_tokens, input_tokens
from mafia.models.factory import (
    model_dialect,
    model_settings,
    provider_usage,
    reply_of,
    resolve_model,
    states_schema,
)
from mafia.models.schema_dialect import AnswerShape, grammar_schema
from mafia.nodes.common import parsed_log
from mafia.nodes.recall_step import (
    ask_answer,
    call_size,
    context_tokens,
    recall_call_message,
    recall_count,
    recall_node,
    recall_offered,
    route_decide,
)
from mafia.records.call_kinds import rejected
from mafia.records.call_records import Attempt, Prompt, PromptRecord, new_attempt
from mafia.records.prompt_pack import pack, unpack
from mafia.run.runtime import GameContext, game_context
from mafia.run.tracing import traced_turn
from mafia.turn.answers import (
    Rejection,
    Truncation,
    answer_args,
    bad_text,
    clean_answer,
    constrained_schema,
    empty_text,
    encodable,
    fit_to_bounds,
    normalize_choice,
    reask_exchange,
    rejection_of,
    shown_value,
)
from mafia.turn.people import ask_person, is_human
from mafia.turn.state import (
    FinishedTurn,
    PlayerTurnInput,
    PlayerTurnOutput,
    PlayerTurnState,
    prompt_record,
    turn_of,
)

# A run without a checkpointer has nothing to make durable: the turn's "exit" durability is moot
# there, and LangGraph would warn about it on every turn.
warnings.filterwarnings("ignore", message="`durability` has no effect", category=UserWarning)

# Views of the protocol table's action rows, under the names the answer checks use.
CHOICE_FIELD: dict[ActionKind, str | None] = {kind: spec.choice_field for kind, spec in ACTIONS.items()}
TEXT_FIELD: dict[ActionKind, str | None] = {kind: spec.text_field for kind, spec in ACTIONS.items()}
CLAIM_ACTIONS = tuple(kind for kind, spec in ACTIONS.items() if spec.claims)
FALLBACK_TEXT = {kind: spec.fallback_text for kind, spec in ACTIONS.items() if spec.fallback_text is not None}


def check_answer(
    action: ActionKind, answer: JSON, options: Sequence[str]
) -> tuple[str | None, Rejection | None]:
    """The legal choice in ``answer`` and no rejection, or None and why the answer is rejected:
    invalid text anywhere, an empty text where the action speaks, or an illegal choice."""
    rejection = bad_text(answer) or empty_text(answer, TEXT_FIELD.get(action))
    if rejection is not None:
        return None, rejection
    name = CHOICE_FIELD[action]
    if name is None:
        return None, None
    value = answer.get(name)
    if action is ActionKind.SPEAK and (value is None or str(value).strip().lower() in ("", SKIP)):
        return None, None
    choice = normalize_choice(value, options)
    if choice is None:
        allowed = ", ".join(options) + (" or null" if action is ActionKind.SPEAK else "")
        error = f"{name}={shown_value(value)} is not allowed; choose exactly one of: {allowed}."
        return None, Rejection(AnswerKind.ILLEGAL_CHOICE, error)
    return choice, None


def answer_schema(action: ActionKind, options: Sequence[str], reask: bool) -> type[ActionBase]:
    """The schema asked for: the game-stable one first (provider prompt caches keep it), on a
    re-ask a copy whose choice field is an enum of the legal options."""
    schema = ACTION_SCHEMAS[action]
    name = CHOICE_FIELD[action]
    if not reask or name is None or not options:
        return schema
    # Speeches may nominate no one; "skip" is among the options wherever a choice may be skipped.
    return cast(type[ActionBase], constrained_schema(schema, name, options, action is ActionKind.SPEAK))


def answer_shape(state: PlayerTurnState, action: ActionKind, limits: TextLimits) -> AnswerShape:
    """What this turn's answer may hold, for a schema bounded to it: the legal options, the text
    and its limit, a claim, and the living players (other than the player) to suspect."""
    req = state["request"]
    me = req["player"]
    living = read_view(player_view(parsed_log(state["game_id"], state["events"]), me), me).living
    return AnswerShape(
        options=tuple(req["options"]) if CHOICE_FIELD[action] is not None else (),
        choice_optional=action is ActionKind.SPEAK,
        text_limit=text_limit(action, limits) if TEXT_FIELD[action] is not None else None,
        claims=action in CLAIM_ACTIONS,
        suspects=tuple(p for p in living if p != me),
    )


# ---- subgraph nodes ------------------------------------------------------------------------


def rendered_prompt(
    state: PlayerTurnState, runtime: Runtime[GameContext], budget: int | None = None
) -> Prompt:
    """The player's prompt from their view of the log, listing the request's options, as a prompt
    record keeps it; under a token budget, ``budget`` lowers it (a re-ask's prompt, which must
    leave room for the rejected answer and the error)."""
    req = state["request"]
    policy = game_context(runtime).policy
    if budget is not None:
        policy = dataclasses.replace(policy, token_budget=max(1, budget))
    prompt = build_context(
        parsed_log(state["game_id"], state["events"]),
        req["player"],
        ActionKind(req["action"]),
        policy,
        game_over=req["game_over"],
        options=req["options"],
    )
    spec = game_context(runtime).model_spec(req["player"], req["order"])
    system = prompt.system
    if not is_human(spec) and states_schema(resolve_model(spec)):
        action = ActionKind(req["action"])
        system = with_schema_note(system, answer_schema(action, req["options"], reask=False))
    return {
        "system": system,
        "user": prompt.user,
        "tokens": dict(prompt.token_counts()),
        "total_tokens": prompt.total_tokens,
        "trimmed": list(prompt.trimmed),
    }


EMPTY_PROMPT: Prompt = {"system": "", "user": "", "tokens": {}, "total_tokens": 0, "trimmed": []}


def fitted_prompt(
    state: PlayerTurnState,
    runtime: Runtime[GameContext],
    size: Callable[[list[BaseMessage]], int],
    budget: int,
    prompt: Prompt | None = None,
) -> Prompt:
    """``prompt`` if the call it starts, measured by ``size`` from the prompt's messages (the
    call's billed input: role lines, schema, tools, any re-ask exchange), fits ``budget``; else
    the player's prompt rendered again under a lower budget: lowered by what the call adds to an
    empty prompt, then by any excess left (a schema note, counts that differ by a few tokens)."""
    if prompt is not None and size(prompt_messages(prompt)) <= budget:
        return prompt
    lowered = budget - size(prompt_messages(EMPTY_PROMPT))
    prompt = rendered_prompt(state, runtime, lowered)
    for _ in range(3):
        excess = size(prompt_messages(prompt)) - budget
        if excess <= 0:
            break
        lowered -= excess
        prompt = rendered_prompt(state, runtime, lowered)
    return prompt


def billed_size(
    state: PlayerTurnState, runtime: Runtime[GameContext], reask: bool
) -> Callable[[list[BaseMessage]], int] | None:
    """The billed input of a call of this turn from its messages (``call_size``: role lines, the
    answer schema, on a re-ask the one listing the options, and the tools), or None where no
    token budget bounds it: no budget, or a person's seat, which bills nothing."""
    req = state["request"]
    context = game_context(runtime)
    spec = context.model_spec(req["player"], req["order"])
    if context.policy.token_budget is None or is_human(spec):
        return None
    model = resolve_model(spec)
    schema = answer_schema(ActionKind(req["action"]), req["options"], reask=reask)
    return lambda messages: call_size(messages, model, schema, context.policy)


def first_prompt(state: PlayerTurnState, runtime: Runtime[GameContext]) -> Prompt:
    """The turn's prompt; under a token budget, one whose first call (the prompt with its role
    lines, the answer schema and the tools, as billed) fits the budget. A person's seat bills
    nothing: its prompt's text fits the budget."""
    size = billed_size(state, runtime, reask=False)
    if size is None:
        return rendered_prompt(state, runtime)
    return fitted_prompt(state, runtime, size, game_context(runtime).policy.token_budget or 0)


def build_context_node(state: PlayerTurnState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Render the player's prompt (``rendered_prompt``) and start the turn's messages with it;
    under a token budget the first call (the prompt, the answer schema and the tools) fits it."""
    plain = first_prompt(state, runtime)
    return {
        "prompt": plain,
        "messages": prompt_messages(plain),
        "attempts": [],
        "error": None,
        "recalls": 0,
        "tool_call": None,
    }


def decide(state: PlayerTurnState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Ask the seat's model for the action's structured output; record the raw answer.

    Four steps: the schema the call asks in, the call, the answer parsed from it, the attempt's
    account. A bad answer (a refusal, a cut-off or filtered output, invalid JSON, a schema
    violation) is recorded as a rejected attempt with its kind. Anything else the call raises (a
    provider fault) propagates: the game stops cleanly and resumes from its last checkpoint.
    """
    req = state["request"]
    action = ActionKind(req["action"])
    context = game_context(runtime)
    spec = context.model_spec(req["player"], req["order"])
    if is_human(spec):  # a person's seat: the game pauses until they answer
        return ask_person(state, CHOICE_FIELD[action], TEXT_FIELD[action], action in CLAIM_ACTIONS)
    model = resolve_model(spec)
    schema, dialect = choose_schema(state, model, action, context.text_limits)
    call = call_model(state, model, schema, action, context.policy)
    if call.asked is not None:
        budgeted = context.policy.token_budget is not None
        return recall_asked(state, call.message, call.asked, schema, call.raw, call.tools, budgeted)
    attempt = account(
        state, call, schema if dialect == "stable" else None, dialect, context.policy.token_budget
    )
    return {"answer": call.answer, "error": attempt["error"], "attempts": [*state["attempts"], attempt]}


def choose_schema(
    state: PlayerTurnState, model: Any, action: ActionKind, limits: TextLimits
) -> tuple[type[ActionBase], str]:
    """The schema this call asks in, and its dialect: a grammar server's bounded to the turn's
    answer; otherwise the game-stable one, constrained to the legal options after a rejection."""
    settings = model_settings(model)
    dialect = model_dialect(model)
    if settings is not None and dialect == "grammar":
        shape = answer_shape(state, action, limits)
        return grammar_schema(shape, settings.tokens_for(action.value), limits), dialect
    # A recall search is no rejected answer: the answer after it keeps the turn's schema.
    reask = any(rejected(a) for a in state["attempts"])
    return answer_schema(action, state["request"]["options"], reask=reask), dialect


@dataclasses.dataclass
class Call:
    """What one call of a turn came to: its raw text and usage, and either a recall it asked for,
    or the answer parsed from it (with any texts cut to their bounds), or why it was rejected."""

    raw: str = ""
    usage: JSON | None = None
    message: Any = None
    """The model's message as the call returned it (kept in the turn's messages by a recall)."""
    asked: JSON | None = None
    tools: tuple[JSON, ...] = ()
    answer: JSON | None = None
    cut: list[Truncation] = dataclasses.field(default_factory=list)
    rejection: Rejection | None = None


def call_model(
    state: PlayerTurnState, model: Any, schema: type[ActionBase], action: ActionKind, policy: ContextPolicy
) -> Call:
    """Call ``model`` on the turn's messages (offering a recall search where the policy has one)
    and parse its answer. A fault that is a bad answer becomes the call's rejection; any other
    propagates."""
    call = Call()
    try:
        search = recall_offered(state, model, schema, policy)
        out, call.asked, call.tools = ask_answer(
            model, schema, state["messages"], get_config(), policy, search
        )
        call.usage = out.get("usage")
        call.message = out.get("raw")
        call.raw = encodable(raw_text(call.message) or out.get("content", ""))
        if call.asked is None:
            call.answer, call.cut, call.rejection = parse_answer(out, schema, CHOICE_FIELD[action])
    except Exception as exc:
        call.rejection = rejection_of(exc, CHOICE_FIELD[action])
        if call.rejection is None:
            raise
        call.usage = provider_usage(reply_of(exc))
    if call.rejection is not None:
        call.raw = call.raw or call.rejection.raw
    return call


def parse_answer(
    out: JSON, schema: type[ActionBase], choice_field: str | None
) -> tuple[JSON | None, list[Truncation], Rejection | None]:
    """The answer in a structured-output result, the texts cut to fit its bounds, or why none
    stands: an answer past its bounds only in texts or lists is cut and stands."""
    parsed = out.get("parsed")
    if isinstance(parsed, BaseModel):
        return parsed.model_dump(mode="json"), [], None
    if isinstance(parsed, dict):
        return schema.model_validate(parsed).model_dump(mode="json"), [], None
    error = out.get("parsing_error")
    args = answer_args(out.get("raw"), out.get("content") or "") if error is not None else None
    fitted = fit_to_bounds(schema, args) if args is not None else None
    if fitted is not None:
        return fitted[0], fitted[1], None
    rejection = rejection_of(error, choice_field) if error is not None else None
    return None, [], rejection or Rejection(AnswerKind.INVALID_JSON, "the answer held no structured output.")


def account(
    state: PlayerTurnState,
    call: Call,
    billed_schema: type[ActionBase] | None,
    dialect: str,
    budget: int | None,
) -> Attempt:
    """The call's attempt record: its tokens as billed (a grammar server neither bills the schema
    nor puts it in the prompt's prefix, so ``billed_schema`` is None there), what the provider
    reported, what a token budget bounds (the prompt, a re-ask, a recall exchange), why it was
    rejected and what was cut."""
    messages = state["messages"]
    tokens = call_tokens(messages, billed_schema, call.raw, call.tools)
    attempt = new_attempt(call.raw, tokens, schema=dialect)
    attempt["provider_usage"] = call.usage
    if call.tools or budget is not None:
        attempt["context_tokens"] = context_tokens(messages)
        used = tokens["prompt_tokens"] + tokens["schema_tokens"]
        if budget is not None and used > budget:
            alone = input_tokens(prompt_messages(state["prompt"]), billed_schema, call.tools)
            attempt["over_budget"] = over_budget(messages, alone, used, budget)
    if call.rejection is not None:
        attempt["error"] = call.rejection.error
        attempt["kind"] = call.rejection.kind.value
    if call.cut:  # logged as text_truncated when the turn finishes with this answer
        attempt["cut"] = [dataclasses.asdict(c) for c in call.cut]
    return attempt


def recall_asked(
    state: PlayerTurnState,
    raw: Any,
    asked: JSON,
    schema: type[ActionBase],
    text: str,
    tools: Sequence[JSON],
    budgeted: bool = False,
) -> dict[str, Any]:
    """The update of a call that asked for a recall: a billed attempt, the call kept in the
    turn's messages (without the text beside it under a token budget), and the call waiting for
    the recall node."""
    attempt = new_attempt(text, call_tokens(state["messages"], schema, text, tools), kind=RECALL_KIND)
    attempt["context_tokens"] = context_tokens(state["messages"])
    return {
        "answer": None,
        "error": None,
        "attempts": [*state["attempts"], attempt],
        "messages": [*state["messages"], recall_call_message(raw, asked, keep_text=not budgeted)],
        "tool_call": asked,
    }


def commit(state: PlayerTurnState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Check the answer (text and choice); re-ask with the error, or finish the turn.

    The re-ask keeps chat roles alternating: the prompt, the rejected answer as the assistant's
    message, the error as the user's. Only the latest rejected answer is kept: earlier ones would
    lengthen every re-ask and show the model more mistakes to copy.
    """
    req = state["request"]
    action = ActionKind(req["action"])
    answer = state["answer"]
    attempts = list(state["attempts"])
    choice: str | None = None
    last = attempts[-1]
    rejection: Rejection | None = None
    if answer is None:
        rejection = Rejection(AnswerKind(last["kind"] or ""), last["error"] or "", last["raw"])
    else:
        choice, rejection = check_answer(action, answer, req["options"])
        if rejection is not None:
            attempts[-1] = {**last, "error": rejection.error, "kind": rejection.kind.value}
            rejection = Rejection(rejection.kind, rejection.error, last["raw"])
    answered = len(attempts) - recall_count(attempts)
    if rejection is not None and answered <= game_context(runtime).max_retries:
        return {
            "attempts": attempts,
            "error": rejection.error,
            "messages": reask_messages(state, runtime, *reask_exchange(rejection)),
        }
    return {
        "attempts": attempts,
        "error": rejection.error if rejection is not None else None,
        "turn": finish_turn(state, choice, rejection, attempts, game_context(runtime).text_limits),
    }


REASK_FLOOR = max(MIN_SHOWN, count_tokens(LEFT_OUT))
"""Tokens a re-ask keeps for the rejected answer under a budget: enough to show its start, or to
say it was left out."""


def reask_messages(
    state: PlayerTurnState, runtime: Runtime[GameContext], said: str, error: str
) -> list[BaseMessage]:
    """A re-ask's messages: the prompt, the rejected answer as the model's message, the error as
    the user's. Under a token budget the call fits it, as billed (the messages with their role
    lines, the re-ask's schema and the tools): where the prompt leaves the exchange less than
    ``REASK_FLOOR`` tokens for the answer, the prompt is rendered again under a lower budget
    (trimmed as any prompt is), and the answer is cut to the room left."""
    prompt = state["prompt"]
    billed = billed_size(state, runtime, reask=True)
    if billed is None:
        return [*prompt_messages(prompt), AIMessage(said), HumanMessage(error)]
    budget = game_context(runtime).policy.token_budget or 0

    def size(messages: list[BaseMessage], answer: str = "") -> int:
        return billed([*messages, AIMessage(answer), HumanMessage(error)])

    wanted = min(REASK_FLOOR, count_tokens(said))
    prompt = fitted_prompt(state, runtime, lambda m: size(m) + wanted, budget, prompt)
    messages = prompt_messages(prompt)
    room = budget - size(messages)
    shown = fit_tokens(said, room)
    while shown not in (LEFT_OUT, ELLIPSIS) and size(messages, shown) > budget:  # counts may not add up
        room -= size(messages, shown) - budget
        shown = fit_tokens(said, room)
    return [*messages, AIMessage(shown), HumanMessage(error)]


def route_commit(state: PlayerTurnState) -> Literal["decide", "__end__"]:
    """Re-ask while an error stands and no turn was finished."""
    return "decide" if state.get("error") is not None and "turn" not in state else "__end__"


def text_limit(action: ActionKind, limits: TextLimits) -> int:
    """The longest text kept for ``action``'s text: a speech, a message or a plan."""
    return ACTIONS[action].text_limit(limits)


def fallback_of(request: TurnRequest) -> str | None:
    """The legal choice the table set when asking; a request checkpointed by a release that did
    not set it (a person's paused turn) gets the one its action's row takes from its options."""
    if "fallback" in request:
        return request["fallback"]
    return ACTIONS[ActionKind(request["action"])].fallback(request["player"], request["options"])


@dataclasses.dataclass
class Outcome:
    """What a finished turn applies and logs: the choice, the words and their claim, the private
    reasoning, and the player's own events (thought, cuts, fallback)."""

    choice: str | None
    text: str | None
    claim: str | None
    reasoning: str
    events: list[JSON]


def finish_turn(
    state: PlayerTurnState,
    choice: str | None,
    rejection: Rejection | None,
    attempts: list[Attempt],
    limits: TextLimits,
) -> FinishedTurn:
    """The finished turn: the accepted answer's outcome or the fallback's, and the prompt record."""
    req = state["request"]
    action = ActionKind(req["action"])
    if rejection is not None:
        outcome = fallback_outcome(req, rejection, len(attempts))
    else:
        outcome = answer_outcome(req, state["answer"] or {}, choice, attempts[-1].get("cut", []), limits)
    record = prompt_record(
        id=req["id"],
        round=req["round"],
        seat=req["order"],
        player=req["player"],
        action=action.value,
        prompt=state["prompt"],
        attempts=attempts,
        choice=outcome.choice,
        claim=outcome.claim,
        fallback_kind=rejection.kind.value if rejection is not None else None,
    )
    return {
        "id": req["id"],
        "order": req["order"],
        "player": req["player"],
        "action": action.value,
        "choice": outcome.choice,
        "text": outcome.text,
        "claim": outcome.claim,
        "reasoning": outcome.reasoning,
        "events": outcome.events,
        "prompt_record": record,
    }


def turn_header(req: TurnRequest) -> JSON:
    """The fields every event of a player's turn opens with."""
    return {"round": req["round"], "player": req["player"], "action": req["action"]}


def fallback_outcome(req: TurnRequest, rejection: Rejection, attempts: int) -> Outcome:
    """A fallback: the table's legal choice and the fixed text of its action, never a rejected
    answer's; no thought is written, so the player's beliefs stay those of its last good answer."""
    action = ActionKind(req["action"])
    choice = fallback_of(req)
    text = FALLBACK_TEXT[action] if TEXT_FIELD.get(action) else None
    applied = choice if choice is not None else (text or "no choice")
    fallback = Fallback(
        **turn_header(req), error=rejection.error, kind=rejection.kind, attempts=attempts, applied=applied
    )
    return Outcome(choice, text, None, "", [dump_event(fallback)])


def answer_outcome(
    req: TurnRequest, answer: JSON, choice: str | None, bounds_cut: list[dict[str, Any]], limits: TextLimits
) -> Outcome:
    """An accepted answer: cleaned, its texts capped (each cut, first to the schema's bounds then
    to the limits, logged as ``text_truncated``), its reasoning the player's latest thought, and a
    public claim where the action takes one and the words name a role."""
    action = ActionKind(req["action"])
    text_field = TEXT_FIELD.get(action)
    answer, cuts = clean_answer(answer, text_field, text_limit(action, limits), limits)
    cuts = [Truncation(**c) for c in bounds_cut] + cuts
    text = answer.get(text_field) if text_field else None
    # A public claim goes with the words it was made in; a value naming no role is no claim.
    role = claimed_role(answer.get("claim")) if action in CLAIM_ACTIONS and isinstance(text, str) else None
    mine = turn_header(req)
    thought = Thought(
        **mine,
        observations=str(answer.get("observations", "")),
        strategy=str(answer.get("strategy", "")),
        reasoning=str(answer.get("reasoning", "")),
        suspicions=[SuspicionNote(**s) for s in answer.get("suspicions", [])],
        relationships=list(answer.get("relationships", [])),
        pattern_notes=list(answer.get("pattern_notes", [])),
    )
    events = [
        dump_event(TextTruncated(**mine, field=cut.field, length=cut.length, limit=cut.limit)) for cut in cuts
    ]
    events.append(dump_event(thought))
    return Outcome(choice, text, role.value if role is not None else None, thought.reasoning, events)


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
    """The compiled player subgraph. It takes the game's checkpointer (Studio draws it, interrupts
    in it resume); ``play`` runs it with "exit" durability, so a finished turn stores nothing."""
    graph = StateGraph(
        PlayerTurnState,
        context_schema=GameContext,
        input_schema=PlayerTurnInput,
        output_schema=PlayerTurnOutput,
    )
    graph.add_node("build_context", build_context_node)
    graph.add_node("decide", decide)
    graph.add_node("recall", recall_node)
    graph.add_node("commit", commit)
    graph.add_edge(START, "build_context")
    graph.add_edge("build_context", "decide")
    graph.add_conditional_edges("decide", route_decide)
    graph.add_edge("recall", "decide")
    graph.add_conditional_edges("commit", route_commit)
    return graph.compile(name="player_turn")


PLAYER_GRAPH = build_player_graph()

Played = tuple[Turn, list[JSON], PromptRecord]
"""A finished turn (the choice, the text...), the player's own events, the turn's prompt record."""


def play(
    graph: Any, game_id: str, events: list[JSON], request: TurnRequest, context: GameContext | None = None
) -> Played:
    """Run the player subgraph ``graph`` for ``request`` on the current log.

    Returns the finished turn, the player's own events (the thought, any fallback), which go
    straight to the log (whatever applies the turn needs only its small choice), and the turn's
    prompt record, which goes to the ``prompts`` channel in the same write as those events.
    ``context`` is the run's (``mafia.run.record.run_of``): the recorded one on a resume given none.
    """
    source: PlayerTurnInput = {"game_id": game_id, "events": events, "request": request}
    out = traced_turn(
        lambda cfg: graph.invoke(source, cfg, durability="exit", context=context),
        get_config(),
        request,
        parsed_log(game_id, events),
        context,
    )
    finished: FinishedTurn = out["turn"]
    record: PromptRecord = {"game_id": game_id, **finished["prompt_record"]}
    get_stream_writer()({"prompt": record})
    return turn_of(finished), finished["events"], record


def _play_task(
    graph: Any,
    game_id: str,
    events: list[JSON],
    request: TurnRequest,
    base: PromptRecord | None,
    context: GameContext | None = None,
) -> tuple[Turn, list[JSON], JSON]:
    """One player's turn of a simultaneous step, as a task: its result is checkpointed on its own,
    so a step resumed after a failure replays the turns that finished instead of asking again.
    A task's arguments are never checkpointed (the log is not copied into any checkpoint); its
    result holds the prompt record packed against ``base``, the game's last record before the step.
    """
    turn, own_events, record = play(graph, game_id, events, request, context)
    return turn, own_events, pack(record, base)


play_task: Any = task(name="player_turn")(cast(Any, _play_task))


def play_all(
    graph: Any,
    game_id: str,
    events: list[JSON],
    requests: Sequence[TurnRequest],
    base: PromptRecord | None,
    context: GameContext | None = None,
) -> list[Played]:
    """Every request's turn, played at once (one task each), in the order of ``requests``;
    ``base`` is the game's last whole prompt record before the step."""
    futures = [play_task(graph, game_id, events, r, base, context) for r in requests]
    played: list[tuple[Turn, list[JSON], JSON]] = []
    paused: list[Interrupt] = []
    for future in futures:  # every turn is waited for, so all people of the step pause together
        try:
            played.append(future.result())
        except GraphInterrupt as stop:
            paused.extend(stop.args[0] if stop.args else ())
    if paused:
        raise GraphInterrupt(tuple(paused))
    return [(turn, own, unpack(record, base)) for turn, own, record in played]
