"""The game graph: phase and turn nodes over GameState, and pure ``Literal``-typed routers.

``build_graph()`` returns the uncompiled builder (tests compile it with their own checkpointer);
``graph`` is the compiled export, without a checkpointer, that ``langgraph dev`` loads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from mafia.nodes.day import day_start
from mafia.nodes.night import check_win, game_over, night_resolution
from mafia.nodes.setup import setup
from mafia.nodes.turns import (
    defense,
    last_words,
    mafia_round1,
    mafia_round2,
    night_start,
    night_zero,
    revote,
    speak,
    vote,
)
from mafia.runtime import GameContext
from mafia.state import GameState, InputState, OutputState

# Every node, named after its function: bookkeeping steps and turn nodes (nodes/turns.py), each of
# which runs the player subgraph (build_context -> decide -> commit) for the players it asks.
NODES: dict[str, Callable[..., dict[str, Any]]] = {
    "setup": setup,
    "night_zero": night_zero,
    "day_start": day_start,
    "speak": speak,
    "vote": vote,
    "defense": defense,
    "revote": revote,
    "last_words": last_words,
    "check_win": check_win,
    "night_start": night_start,
    "mafia_round1": mafia_round1,
    "mafia_round2": mafia_round2,
    "night_resolution": night_resolution,
    "game_over": game_over,
}


def route_night_zero(state: GameState) -> Literal["night_zero", "day_start"]:
    """Mafia plan one at a time in seat order, each seeing the earlier plans; then the first day."""
    return "night_zero" if state["queue"] else "day_start"


def route_day_start(state: GameState) -> Literal["speak", "game_over"]:
    """The day's first speech, or the end of a game that reached its round cap."""
    return "game_over" if state["step"] == "over" else "speak"


def route_speeches(state: GameState) -> Literal["speak", "vote"]:
    """Next speaker; after the last speech every living player votes at once."""
    return "speak" if state["queue"] else "vote"


def route_vote(state: GameState) -> Literal["last_words", "defense", "night_start"]:
    """Last words for the eliminated, defense for the tied, or on to the night."""
    step = state["step"]
    return "last_words" if step == "last_words" else "defense" if step == "defense" else "night_start"


def route_defense(state: GameState) -> Literal["defense", "revote"]:
    """Tied players defend in seat order; then everyone revotes among them at once."""
    return "defense" if state["queue"] else "revote"


def route_revote(state: GameState) -> Literal["last_words", "night_start"]:
    """Last words for the eliminated; a tied revote eliminates no one."""
    return "last_words" if state["step"] == "last_words" else "night_start"


def route_night(state: GameState) -> Literal["mafia_round1", "night_resolution"]:
    """After the night's first turns: the other Mafia's proposals, or (a lone Mafia) the outcome."""
    return "mafia_round1" if state["step"] == "mafia_round1" else "night_resolution"


def route_round1(state: GameState) -> Literal["mafia_round1", "mafia_round2", "night_resolution"]:
    """Round 1 goes on in seat order; without agreement every Mafia answers Round 2 at once."""
    step = state["step"]
    return (
        "mafia_round1"
        if step == "mafia_round1"
        else "mafia_round2"
        if step == "mafia_round2"
        else "night_resolution"
    )


def route_check_win(state: GameState) -> Literal["game_over", "night_start", "day_start"]:
    """A winner ends the game; otherwise a day is followed by night and a night by day."""
    if state["winner"] is not None:
        return "game_over"
    return "night_start" if state["phase"] == "day" else "day_start"


def build_graph() -> StateGraph[GameState, GameContext, InputState, OutputState]:
    """The game's graph builder, uncompiled: compile it with the checkpointer you want. Every
    conditional edge lists exactly the destinations its router can return (its ``Literal``), so
    the drawing holds only edges a game can take."""
    builder = StateGraph(
        GameState, context_schema=GameContext, input_schema=InputState, output_schema=OutputState
    )
    for name, node in NODES.items():
        builder.add_node(name, node)
    builder.add_edge(START, "setup")
    builder.add_edge("setup", "night_zero")  # every table has Mafia, who plan on night zero
    builder.add_conditional_edges("night_zero", route_night_zero)
    builder.add_conditional_edges("day_start", route_day_start)
    builder.add_conditional_edges("speak", route_speeches)
    builder.add_conditional_edges("vote", route_vote)
    builder.add_conditional_edges("defense", route_defense)
    builder.add_conditional_edges("revote", route_revote)
    builder.add_edge("last_words", "check_win")
    builder.add_conditional_edges("night_start", route_night)
    builder.add_conditional_edges("mafia_round1", route_round1)
    builder.add_edge("mafia_round2", "night_resolution")
    builder.add_edge("night_resolution", "check_win")
    builder.add_conditional_edges("check_win", route_check_win)
    builder.add_edge("game_over", END)
    return builder


def compile_graph(**kwargs: Any) -> Any:
    """``build_graph().compile(**kwargs)`` (a checkpointer, interrupt points, a name...)."""
    return build_graph().compile(**kwargs)


graph = compile_graph(name="mafia")
