"""The records of model calls: an attempt (one call of a turn) and a decision's prompt record, the
lines ``prompts.jsonl`` keeps, as typed dicts (JSON-plain: checkpoints and logs store them as is)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, cast

from typing_extensions import TypedDict


class CallTokens(TypedDict):
    """The token fields of one call: prompt, schema and output tokens, and the keys of its
    cacheable prefixes."""

    prompt_tokens: int
    schema_tokens: int
    output_tokens: int
    prefix_keys: list[str]


class TurnTokens(TypedDict):
    """A decision's token sums over its calls."""

    prompt_tokens: int
    schema_tokens: int
    output_tokens: int


class Attempt(TypedDict):
    """One call of a decision: the raw answer, why it was rejected (``error`` and ``kind``; a recall
    search has ``kind`` "recall"), its tokens and what the provider reported."""

    raw: str
    error: str | None
    kind: str | None
    schema: NotRequired[str]
    """The schema dialect the call was asked in ("stable" or "grammar")."""
    prompt_tokens: int
    schema_tokens: int
    output_tokens: int
    prefix_keys: NotRequired[list[str]]
    """None for a person's answer (nothing billed, nothing cached)."""
    provider_usage: NotRequired[dict[str, Any] | None]
    context_tokens: NotRequired[int]
    over_budget: NotRequired[str]
    recall: NotRequired[dict[str, Any]]
    """A recall call's query, hits, whether it was refused, and the answer it was given."""
    cut: NotRequired[list[dict[str, Any]]]
    """Texts and lists cut to their bounds, logged as ``text_truncated`` if the answer stands."""
    cached_tokens: NotRequired[int]
    billed_tokens: NotRequired[int]


def new_attempt(
    raw: str, tokens: Mapping[str, Any], *, kind: str | None = None, schema: str | None = None
) -> Attempt:
    """An attempt's first fields, in the order the logs write them: the raw answer, no error, its
    ``kind`` (None for an answer), the schema dialect if given, then the call's token fields."""
    fields: dict[str, Any] = {"raw": raw, "error": None, "kind": kind}
    if schema is not None:
        fields["schema"] = schema
    return cast(Attempt, {**fields, **tokens})


class Prompt(TypedDict):
    """A decision's rendered prompt: its texts, their token counts and what was trimmed to fit."""

    system: str
    user: str
    tokens: dict[str, int]
    total_tokens: int
    trimmed: list[str]


class PromptRecord(TypedDict):
    """What ``prompts.jsonl`` keeps of one decision (a player's turn or the summariser's call):
    who was asked what, the prompt, every attempt with the token sums, the choice and claim applied,
    and whether (and why) a fallback stood in."""

    game_id: NotRequired[str]
    id: str
    round: int
    seat: int
    player: str
    action: str
    system: str
    user: str
    tokens: dict[str, int]
    total_tokens: int
    trimmed: list[str]
    prompt_tokens: int
    schema_tokens: int
    output_tokens: int
    attempts: list[Attempt]
    choice: str | None
    claim: str | None
    fallback: bool
    fallback_kind: str | None
    recalls: NotRequired[int]
    cached_tokens: NotRequired[int]
    billed_tokens: NotRequired[int]
