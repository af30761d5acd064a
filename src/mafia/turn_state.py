"""The player subgraph's schemas: its input (the log and one request), its output (the finished
turn) and its private working state."""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from mafia.game.state import JSON, TurnRequest


class PlayerTurnInput(TypedDict):
    """The player subgraph's input: the game's log (JSON-plain), whose view it renders, and the
    request."""

    game_id: str
    events: list[JSON]
    request: TurnRequest


class PlayerTurnOutput(TypedDict):
    """The player subgraph's output: one finished turn, applied by the node that asked for it."""

    turn: JSON


class PlayerTurnState(PlayerTurnInput, PlayerTurnOutput):
    """The player subgraph's private working state (never returned to the game). JSON-plain: a turn
    stopped by a provider fault or an interrupt is checkpointed with it and goes on from there."""

    prompt: JSON
    messages: list[Any]
    attempts: list[JSON]
    answer: JSON | None
    error: str | None
    recalls: NotRequired[int]
    """Recall calls made this turn (policies with recall); a call past the limit is refused."""
    tool_call: NotRequired[JSON | None]
    """The recall call waiting for its answer (``id``, ``query``), if the last call was one."""
