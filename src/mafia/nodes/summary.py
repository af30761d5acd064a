"""The summariser's call at dawn, for policies whose cold days are a model-written summary.

``summary`` is the node of the summary's step, right after the day's opening (``dawn_summary``):
when ``context.summary`` says a summary is due, it asks the configured summariser
(``GameContext.summariser``: a model, or ``seat:N`` for that seat's model; the table's default
model otherwise) once for the whole table, checks the answer against the log, and logs either the
summary or the fallback with its reason. The call is billed and recorded in prompts.jsonl like a
player's, as seat 0, player ``summariser``, action ``summary``. A provider fault propagates like a
player's (the game stops and resumes); a bad answer or any other failure of the summariser falls
back.
"""

from __future__ import annotations

import sys
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime
from pydantic import BaseModel

from mafia.context.builder import with_schema_note
from mafia.context.summary import SUMMARISER, SUMMARY_ACTION, check_summary, summary_request
from mafia.context.tokens import count_tokens
from mafia.game.actions import ACTION_SCHEMAS, ActionKind
from mafia.game.day import to_speeches
from mafia.game.events import ColdSummary, EventBase, SummaryFallback, dump_event
from mafia.game.reading import readable
from mafia.game.state import JSON, GameState, GameUpdate
from mafia.models.billing import call_tokens
from mafia.models.factory import model_dialect, resolve_model, states_schema
from mafia.nodes.common import parsed_log
from mafia.nodes.player import raw_text
from mafia.nodes.recall_step import ask_answer
from mafia.records.call_records import Prompt, PromptRecord, new_attempt
from mafia.records.prompt_pack import last_record, pack_all
from mafia.run.runtime import GameContext, ModelLike, game_context
from mafia.run.tracing import traced_summary
from mafia.turn.answers import encodable, rejection_of
from mafia.turn.state import prompt_record

SEAT_PREFIX = "seat:"


def summariser_model(ctx: GameContext) -> tuple[ModelLike, str]:
    """The summariser's model and its label: a given model, a seat's model, or the default."""
    chosen = ctx.summariser
    if isinstance(chosen, str) and chosen.startswith(SEAT_PREFIX):
        seat = int(chosen.removeprefix(SEAT_PREFIX))
        return ctx.model_spec("", seat), chosen
    model = chosen if chosen is not None else ctx.model
    label = model if isinstance(model, str) else getattr(model, "model", None) or type(model).__name__
    return model, str(label)


def provider_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is the OpenAI client's provider fault, asked without loading the client (a
    third of a second at every start of a game): a fault of its own has loaded it already."""
    client = sys.modules.get("openai")
    return client is not None and isinstance(exc, client.APIError)


def summary_text(parsed: Any) -> str | None:
    """The summary an answer holds: its text (the summary call asks for the turn's ``Answer``)."""
    if isinstance(parsed, BaseModel):
        parsed = parsed.model_dump()
    text = parsed.get("text") if isinstance(parsed, dict) else None
    return text if isinstance(text, str) and text.strip() else None


def dawn_summary(
    events: list[EventBase], ctx: GameContext, day: int
) -> tuple[list[JSON], list[PromptRecord]]:
    """The events (a summary or a fallback) and the prompt record of the summary due at the dawn
    of ``day`` over ``events`` (the log with the day's opening), or nothing when none is due."""
    request = summary_request(events, ctx.policy, day)
    if request is None:
        return [], []
    spec, label = summariser_model(ctx)
    model = resolve_model(spec)
    dialect = model_dialect(model)
    # The turn's schema, tools and system message: the call shares the turns' cached prefix.
    schema = ACTION_SCHEMAS[ActionKind.SPEAK]
    system = with_schema_note(request.system, schema) if states_schema(model) else request.system
    messages = [SystemMessage(content=system), HumanMessage(content=request.user)]
    tools: tuple[JSON, ...] = ()
    text: str | None = None
    raw = ""
    reason: str | None = None
    kind: str | None = None
    try:
        out, _, tools = ask_answer(model, schema, messages, get_config(), ctx.policy, False, SUMMARY_ACTION)
        raw = encodable(raw_text(out.get("raw")))
        text = summary_text(out.get("parsed"))
        if text is None:
            reason, kind = "the answer held no summary", "invalid_json"
    except Exception as exc:  # any other failure of the summariser: the compression stands
        if provider_fault(exc):
            raise  # a provider fault stops the game as a player's does; the resumed dawn asks again
        rejection = rejection_of(exc, None)
        if rejection is None:
            reason, kind = f"the summariser failed: {type(exc).__name__}: {exc}"[:200], "error"
        else:
            reason, kind, raw = rejection.error, rejection.kind.value, raw or rejection.raw
    if text is not None:
        reason = check_summary(events, text, request.through)
        kind = "dropped_fact" if reason is not None else None
    billed_schema = schema if dialect == "stable" else None  # a grammar server bills none of it
    attempt = new_attempt(raw, call_tokens(messages, billed_schema, raw, tools), kind=kind)
    attempt["error"] = reason
    if reason is None and text is not None:
        event: EventBase = ColdSummary(round=day, through=request.through, text=text, summariser=label)
    else:
        event = SummaryFallback(round=day, through=request.through, reason=reason or "", summariser=label)
    prompt: Prompt = {
        "system": system,
        "user": request.user,
        "tokens": {"summary_request": count_tokens(request.user)},
        "total_tokens": count_tokens(system) + count_tokens(request.user),
        "trimmed": [],
    }
    record = prompt_record(
        id=f"{day}:{SUMMARY_ACTION}:{SUMMARISER}",
        round=day,
        seat=0,
        player=SUMMARISER,
        action=SUMMARY_ACTION,
        prompt=prompt,
        attempts=[attempt],
        choice=None,
        claim=None,
        fallback_kind=kind if isinstance(event, SummaryFallback) else None,
    )
    traced_summary(day, label, messages, record)
    return [dump_event(event)], [record]


def summary(state: GameState, runtime: Runtime[GameContext]) -> GameUpdate:
    """The summary's step: under a policy with summaries, when one is due, the summary of the days
    gone cold (or its fallback) with its prompt record; then the day's speeches (``to_speeches``)."""
    events, records = dawn_summary(
        parsed_log(state["game_id"], state["events"]), game_context(runtime), state["round"]
    )
    update: GameUpdate = {**to_speeches(state), "events": events}
    if records:
        update["prompts"] = pack_all(records, last_record(state["game_id"], state["prompts"]))
    return readable(state, update)
