"""The graph's shared state types in one place: ``GraphState`` (the game state as the graph stores
it), ``InputState`` (what a run starts from: Studio's input form) and ``OutputState`` (what a
finished run returns).

The game's own state, ``GameState``, is plain JSON-ready data defined with the rules
(``mafia.game.state``), which know nothing of LangGraph; this module adds how the graph stores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from langgraph.channels.delta import DeltaChannel

from mafia.game.state import JSON, GameState, InputState, OutputState, SetupInput

__all__ = ["GameState", "GraphState", "InputState", "OutputState", "SetupInput", "append_events"]


def append_events(log: list[JSON], batches: Sequence[list[JSON]]) -> list[JSON]:
    """Fold batches of new entries onto an append-only log (batching-invariant, as DeltaChannel
    requires): the event log and the prompt records."""
    return [*log, *(event for batch in batches for event in batch)]


class GraphState(GameState, total=False):
    """The game state as the graph stores it: the two append-only fields are delta channels, so a
    checkpoint stores only each step's new events and prompt records."""

    events: Annotated[list[JSON], DeltaChannel(append_events, snapshot_frequency=1000)]
    prompts: Annotated[list[JSON], DeltaChannel(append_events, snapshot_frequency=1000)]
