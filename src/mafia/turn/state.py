"""The player subgraph's schemas: its input (the log and one request), its output (the finished
turn) and its private working state; and the one builder of a call's prompt record (a turn's or
the summariser's)."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from mafia.context.recall import RECALL_KIND
from mafia.game.state import JSON, Turn, TurnRequest
from mafia.models.billing import turn_tokens
from mafia.records.call_records import Attempt, Prompt, PromptRecord


class PlayerTurnInput(TypedDict):
    """The player subgraph's input: the game's log (JSON-plain), whose view it renders, and the
    request."""

    game_id: str
    events: list[JSON]
    request: TurnRequest


class FinishedTurn(Turn):
    """A turn as the player subgraph finishes it: what the appliers read, the player's own events
    (thought, cuts, fallback), which go straight to the log, and the turn's prompt record."""

    events: list[JSON]
    prompt_record: PromptRecord


def turn_of(finished: FinishedTurn) -> Turn:
    """The part of a finished turn the appliers read (its choice, words and reasoning)."""
    return {
        "id": finished["id"],
        "order": finished["order"],
        "player": finished["player"],
        "action": finished["action"],
        "choice": finished["choice"],
        "text": finished["text"],
        "claim": finished["claim"],
        "reasoning": finished["reasoning"],
    }


class PlayerTurnOutput(TypedDict):
    """The player subgraph's output: one finished turn, applied by the node that asked for it."""

    turn: FinishedTurn


class PlayerTurnState(PlayerTurnInput, PlayerTurnOutput):
    """The player subgraph's private working state (never returned to the game). JSON-plain: a turn
    stopped by a provider fault or an interrupt is checkpointed with it and goes on from there."""

    prompt: Prompt
    messages: list[Any]
    attempts: list[Attempt]
    answer: JSON | None
    error: str | None
    recalls: NotRequired[int]
    """Recall calls made this turn (policies with recall); a call past the limit is refused."""
    tool_call: NotRequired[JSON | None]
    """The recall call waiting for its answer (``id``, ``query``), if the last call was one."""


def prompt_record(
    *,
    id: str,
    round: int,
    seat: int,
    player: str,
    action: str,
    prompt: Prompt,
    attempts: list[Attempt],
    choice: str | None,
    claim: str | None,
    fallback_kind: str | None,
) -> PromptRecord:
    """The record prompts.jsonl keeps of one decision: who was asked what, the prompt (``system``,
    ``user``, its token counts and what was trimmed), every attempt with the turn's token sums, the
    choice and claim applied, and whether (and why) a fallback stood in. The recall calls are
    counted only where there were some: other logs stay as they were."""
    sums = turn_tokens(attempts)
    record: PromptRecord = {
        "id": id,
        "round": round,
        "seat": seat,
        "player": player,
        "action": action,
        "system": prompt["system"],
        "user": prompt["user"],
        "tokens": prompt["tokens"],
        "total_tokens": prompt["total_tokens"],
        "trimmed": prompt["trimmed"],
        "prompt_tokens": sums["prompt_tokens"],
        "schema_tokens": sums["schema_tokens"],
        "output_tokens": sums["output_tokens"],
        "attempts": attempts,
        "choice": choice,
        "claim": claim,
        "fallback": fallback_kind is not None,
        "fallback_kind": fallback_kind,
    }
    recalls = sum(1 for a in attempts if a.get("kind") == RECALL_KIND)
    if recalls:
        record["recalls"] = recalls
    return record
