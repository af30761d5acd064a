"""The player subgraph's tool loop: decide may call ``recall``, the recall node answers, decide again.

Spec 002's tool continuation: within one turn the model may search its own record of earlier
rounds (``context.recall``) before answering. The call and its answer are appended to the turn's
messages only; the turn's output carries neither, and the next turn's prompt is built fresh from
the log, so tool messages never outlive the turn. At most ``MAX_RECALLS`` searches are answered;
a further call gets a refusal, after which only the answer schema is offered. Each call is a
billed attempt of the turn (``kind`` "recall"), recorded with its query and hits.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.runtime import Runtime
from pydantic import BaseModel, ValidationError

from mafia.context.policy import ContextPolicy
from mafia.context.recall import (
    MAX_RECALLS,
    RECALL_KIND,
    RECALL_RESERVE,
    REFUSED,
    Recall,
    answer_text,
    documents,
    search,
)
from mafia.context.record import read_view
from mafia.context.tokens import count_tokens
from mafia.context.views import player_view
from mafia.game.state import JSON
from mafia.models.billing import input_tokens
from mafia.models.factory import model_dialect, model_settings, provider_call, structured
from mafia.nodes.common import parsed_log
from mafia.run.runtime import GameContext, game_context
from mafia.turn.answers import cap, clean_text, encodable
from mafia.turn.state import PlayerTurnState

RECALL_TOOL: JSON = {
    "type": "function",
    "function": {**convert_to_openai_tool(Recall)["function"], "name": "recall"},
}
QUERY_CHARS = 200
"""The longest recall query kept: a search needs a few words, and a call must fit a budget."""
NO_ROOM = "No room under the token budget for recall results. Answer the task now."


def can_call_tools(model: BaseChatModel) -> bool:
    """Whether the model can be offered tools: it implements ``bind_tools`` and was not set to
    ``json_mode`` (a server that enforces JSON only). Others play without recall."""
    settings = model_settings(model)
    if settings is not None and settings.method == "json_mode":
        return False
    return type(model).bind_tools is not BaseChatModel.bind_tools


def recall_bound(model: BaseChatModel, policy: ContextPolicy) -> bool:
    """Whether a turn's calls carry the ``recall`` tool: the policy has it and the model takes
    tools. Every call then carries it, a search allowed or not, so that every call of the game
    begins with the same schema and tools and a provider's prefix cache serves what follows."""
    return policy.searches and can_call_tools(model)


def call_tools(model: BaseChatModel, policy: ContextPolicy) -> tuple[JSON, ...]:
    """The tools a call carries beside its answer: ``recall`` where it is bound in the stable
    dialect (``ask_answer``), else none."""
    return (RECALL_TOOL,) if model_dialect(model) == "stable" and recall_bound(model, policy) else ()


def call_size(
    messages: Sequence[BaseMessage], model: BaseChatModel, schema: type[BaseModel], policy: ContextPolicy
) -> int:
    """The input tokens a call of ``messages`` bills (what a token budget bounds): the messages
    with their role lines, the answer schema (none where a grammar server compiles it) and the
    tools."""
    billed = schema if model_dialect(model) == "stable" else None
    return input_tokens(messages, billed, call_tools(model, policy))


def recall_offered(
    state: PlayerTurnState, model: BaseChatModel, schema: type[BaseModel], policy: ContextPolicy
) -> bool:
    """Let the model search while the policy has the tool, the model takes tools and no refusal
    was given, and the call so far (the prompt, a re-ask, earlier searches, with the schema and
    tools) left the token budget's room for a search (a prompt that needed it has none);
    otherwise the call carries the tool but names the answer as the one to call."""
    if not (policy.searches and can_call_tools(model)):
        return False
    budget = policy.token_budget
    room = budget is None or call_size(state["messages"], model, schema, policy) <= budget - RECALL_RESERVE
    return room and state.get("recalls", 0) <= MAX_RECALLS


def ask_answer(
    model: BaseChatModel,
    schema: type[BaseModel],
    messages: list[BaseMessage],
    config: RunnableConfig,
    policy: ContextPolicy,
    search: bool,
    action: str | None = None,
) -> tuple[JSON, JSON | None, tuple[JSON, ...]]:
    """One call for an answer of ``schema``: with ``recall`` bound beside it where the policy and a
    model taking tools in the stable dialect allow (``recall_bound``), else a structured call.
    The structured result, the search asked (if one) and the tools the call carried (for its bill)."""
    if model_dialect(model) == "stable" and recall_bound(model, policy):
        out, asked = ask_with_recall(model, schema, messages, config, search)
        return out, asked, (RECALL_TOOL,)
    return structured(model, schema).invoke(messages, config, action=action), None, ()


def ask_with_recall(
    model: BaseChatModel,
    schema: type[BaseModel],
    messages: list[BaseMessage],
    config: RunnableConfig,
    search: bool = True,
) -> tuple[JSON, JSON | None]:
    """One call carrying the answer schema and ``recall`` as tools: one of them must be called
    (with ``search`` off, the answer's, named as the tool choice; a search then is a bad answer).
    The structured result (``raw``, ``parsed``, ``parsing_error``) and the recall call, if it was one."""
    bound = model.bind_tools([schema, RECALL_TOOL], tool_choice="any" if search else schema.__name__)
    raw = provider_call(model, lambda kwargs: bound.invoke(messages, config, **kwargs), config)
    calls = raw.tool_calls if isinstance(raw, AIMessage) else []
    asked = next((c for c in calls if c["name"] == "recall"), None)
    if asked is not None and not search:
        error = OutputParserException("the answer called recall where only the answer tool was allowed.")
        return {"raw": raw, "parsed": None, "parsing_error": error}, None
    if asked is not None:
        # Cleaned as a speech is: a lone surrogate could be neither counted nor logged.
        query = cap(clean_text(str(asked["args"].get("query", ""))), QUERY_CHARS)
        return {"raw": raw, "parsed": None, "parsing_error": None}, {"id": asked["id"] or "", "query": query}
    answer = next((c for c in calls if c["name"] == schema.__name__), None)
    if answer is None:
        error = OutputParserException("the answer held no call of the answer tool.")
        return {"raw": raw, "parsed": None, "parsing_error": error}, None
    try:
        return {"raw": raw, "parsed": schema.model_validate(answer["args"]), "parsing_error": None}, None
    except ValidationError as exc:
        return {"raw": raw, "parsed": None, "parsing_error": exc}, None


def recall_call_message(raw: Any, call: JSON, keep_text: bool = True) -> AIMessage:
    """The assistant's message as the conversation keeps it: the recall call, with the text the
    model wrote beside it unless ``keep_text`` is False (under a token budget)."""
    text = raw.content if keep_text and isinstance(raw, AIMessage) else None
    content = encodable(text) if isinstance(text, str) else ""
    return AIMessage(
        content=content,
        tool_calls=[
            {"name": "recall", "args": {"query": call["query"]}, "id": call["id"], "type": "tool_call"}
        ],
    )


def _fitted(hits: list[str], size: Callable[[str], int] | None, budget: int) -> str:
    """The best hits whose answer keeps the call's ``size`` within ``budget``, or the note that
    none does."""
    if size is None:
        return answer_text(hits)
    while hits and size(answer_text(hits)) > budget:
        hits = hits[:-1]
    text = answer_text(hits)
    return text if size(text) <= budget else NO_ROOM


def recall_node(state: PlayerTurnState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Answer the pending recall: the best hits of the player's own record, within the token
    budget when the policy has one; a call past ``MAX_RECALLS`` is refused."""
    req = state["request"]
    call = state["tool_call"] or {"id": "", "query": ""}
    made = state.get("recalls", 0) + 1
    hits: list[str] = []
    if made > MAX_RECALLS:
        content = REFUSED
    else:
        player = req["player"]
        record = read_view(player_view(parsed_log(state["game_id"], state["events"]), player), player)
        policy = game_context(runtime).policy
        hits = [d.line for d in search(documents(record), call["query"], ranking=policy.recall)]
        # The answer after a search carries the schema and tools the search's call did.
        head = int(state["attempts"][-1].get("schema_tokens", 0)) if state["attempts"] else 0

        def size(text: str) -> int:
            reply = ToolMessage(content=text, tool_call_id=call["id"], name="recall")
            return head + input_tokens([*state["messages"], reply], None)

        budget = policy.token_budget
        content = _fitted(hits, None if budget is None else size, budget or 0)
    attempts = list(state["attempts"])
    attempts[-1] = {
        **attempts[-1],
        "recall": {"query": call["query"], "hits": hits, "refused": made > MAX_RECALLS, "answer": content},
    }
    reply = ToolMessage(content=content, tool_call_id=call["id"], name="recall")
    return {"messages": [*state["messages"], reply], "tool_call": None, "recalls": made, "attempts": attempts}


def context_tokens(messages: list[BaseMessage]) -> int:
    """The tokens of what a call sends as text: every message's content and tool calls (what a
    token budget bounds; the builder counts the prompt the same way)."""
    total = 0
    for m in messages:
        total += count_tokens(m.content if isinstance(m.content, str) else m.text)
        calls = getattr(m, "tool_calls", None)
        if calls:
            total += count_tokens(json.dumps([c["args"] for c in calls], ensure_ascii=False))
    return total


def route_decide(state: PlayerTurnState) -> Literal["recall", "commit"]:
    """A recall call goes to the recall node; an answer (or a rejected one) to commit."""
    return "recall" if state.get("tool_call") else "commit"


def recall_count(attempts: Sequence[Mapping[str, Any]]) -> int:
    """The recall calls among a turn's attempts."""
    return sum(1 for a in attempts if a.get("kind") == RECALL_KIND)
