"""The summariser's call at dawn, for policies whose cold days are a model-written summary.

``summary`` is the node of the summary's step, right after the day's opening (``dawn_summary``):
when ``context.summary`` says a summary is due, it asks the configured summariser
(``GameContext.summariser``: a model, or ``seat:N`` for that seat's model; the table's default
model otherwise) once for the whole table for items (``summary_items.SummaryAnswer``), grounds
each against the log, and logs the summary of the items the log holds (or the fallback with its
reason, when none is) and the refused items with theirs. The call is billed and recorded in
prompts.jsonl like a player's, as seat 0, player ``summariser``, action ``summary``. A provider
fault propagates like a player's (the game stops and resumes); a bad answer or any other failure
of the summariser falls back.
"""

from __future__ import annotations

import sys
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime
from pydantic import BaseModel, ValidationError

from mafia.context.builder import with_schema_note
from mafia.context.summary import SUMMARISER, SUMMARY_ACTION, ground_answer, summary_request
from mafia.context.summary_items import SummaryAnswer
from mafia.context.tokens import count_tokens
from mafia.game.day import to_speeches
from mafia.game.events import ColdSummary, EventBase, SummaryFallback, SummaryItemsRefused, dump_event
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


def summary_answer(parsed: Any) -> SummaryAnswer | None:
    """The items an answer holds, or None when it is not the summary's answer."""
    if isinstance(parsed, SummaryAnswer):
        return parsed
    try:
        return SummaryAnswer.model_validate(parsed.model_dump() if isinstance(parsed, BaseModel) else parsed)
    except ValidationError:
        return None


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
    # The turns' system message and transcript: the call shares their opening; its schema is its own.
    schema = SummaryAnswer
    system = with_schema_note(request.system, schema) if states_schema(model) else request.system
    messages = [SystemMessage(content=system), HumanMessage(content=request.user)]
    tools: tuple[JSON, ...] = ()
    answer: SummaryAnswer | None = None
    raw = ""
    reason: str | None = None
    kind: str | None = None
    try:
        out, _, tools = ask_answer(
            model,
            schema,
            messages,
            get_config(),
            ctx.policy,
            False,
            SUMMARY_ACTION,
        )
        raw = encodable(raw_text(out.get("raw")))
        answer = summary_answer(out.get("parsed"))
        if answer is None:
            reason, kind = "the answer held no items", "invalid_json"
    except Exception as exc:  # any other failure of the summariser: the compression stands
        if provider_fault(exc):
            raise  # a provider fault stops the game as a player's does; the resumed dawn asks again
        rejection = rejection_of(exc, None)
        if rejection is None:
            reason, kind = f"the summariser failed: {type(exc).__name__}: {exc}"[:200], "error"
        else:
            reason, kind, raw = rejection.error, rejection.kind.value, raw or rejection.raw
    grounded = ground_answer(events, answer, request.through) if answer is not None else None
    if grounded is not None and grounded.empty:
        reason, kind = f"no item the log holds ({len(grounded.refused)} refused)", "ungrounded"
    billed_schema = schema if dialect == "stable" else None  # a grammar server bills none of it
    attempt = new_attempt(raw, call_tokens(messages, billed_schema, raw, tools), kind=kind)
    attempt["error"] = reason
    logged: list[EventBase] = []
    if grounded is not None and grounded.refused:
        logged.append(
            SummaryItemsRefused(
                round=day, through=request.through, refused=grounded.refused, summariser=label
            )
        )
    if reason is None and grounded is not None:
        event: EventBase = ColdSummary(
            round=day,
            through=request.through,
            facts=grounded.facts,
            speeches=grounded.speeches,
            patterns=grounded.patterns,
            summariser=label,
        )
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
    return [dump_event(e) for e in (*logged, event)], [record]


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
