"""The game graph: phase nodes over GameState, pure routers, and the player turn fanned out by Send.

``build_graph()`` returns the uncompiled builder (tests compile it with their own checkpointer);
``graph`` is the compiled export, without a checkpointer, that ``langgraph dev`` loads.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from mafia.actions import ActionKind
from mafia.nodes.common import request, table
from mafia.nodes.day import (
    day_start,
    record_defense,
    record_last_words,
    record_night_zero,
    record_speech,
    revote_tally,
    vote_tally,
)
from mafia.nodes.night import (
    check_win,
    game_over,
    mafia_round2_done,
    night_resolution,
    night_start,
    record_round1,
)
from mafia.nodes.player import ApplyTurn, applying, player_turn
from mafia.nodes.setup import setup
from mafia.rules import (
    Role,
    ballot_options,
    investigation_targets,
    night_kill_targets,
    nomination_targets,
    protection_targets,
)
from mafia.runtime import GameContext
from mafia.state import GameState, InputState, OutputState, TurnRequest

# Turn nodes: each is the player subgraph's entry, named for the phase it serves. A sequential
# turn applies itself (one step per speech); simultaneous turns wait in ``turns`` for their tally.
SEQUENTIAL_TURNS: dict[str, ApplyTurn] = {
    "night_zero": record_night_zero,
    "speak": record_speech,
    "defense": record_defense,
    "last_words": record_last_words,
    "mafia_round1": record_round1,
}
SIMULTANEOUS_TURNS = ("vote", "revote", "mafia_round2", "doctor", "detective")


# Phase nodes: bookkeeping steps named after their functions.
PHASE_NODES = (
    setup,
    day_start,
    vote_tally,
    revote_tally,
    night_start,
    mafia_round2_done,
    night_resolution,
    check_win,
    game_over,
)


def route_night_zero(state: GameState) -> Send | Literal["day_start"]:
    """Mafia plan one at a time in seat order, each seeing the earlier plans; then the first day."""
    if state["queue"]:
        return request(state, "night_zero", state["queue"][0], ActionKind.NIGHT_ZERO, [])
    return "day_start"


def route_speeches(state: GameState) -> Send | list[Send] | Literal["vote_tally", "game_over"]:
    """Next speaker; after the last speech every living player votes at once (no nominee, no vote)."""
    if state["stage"] == "over":
        return "game_over"
    living = table(state).living
    if state["queue"]:
        speaker = state["queue"][0]
        return request(state, "speak", speaker, ActionKind.SPEAK, nomination_targets(living, speaker))
    if not state["nominees"]:
        return "vote_tally"
    options = ballot_options(state["nominees"])
    return [request(state, "vote", p, ActionKind.VOTE, options) for p in living]


def route_after_vote(state: GameState) -> Send | Literal["night_start"]:
    """Last words for the eliminated, defense for the tied, or on to the night."""
    if state["stage"] == "last_words" and state["pending_last_words"] is not None:
        player = state["pending_last_words"]
        ends = table(state).winner() is not None
        return request(state, "last_words", player, ActionKind.LAST_WORDS, [], game_over=ends)
    if state["stage"] == "defense" and state["queue"]:
        return request(state, "defense", state["queue"][0], ActionKind.DEFENSE, [])
    return "night_start"


def route_defense(state: GameState) -> Send | list[Send]:
    """Tied players defend in seat order; then everyone revotes among them at once."""
    if state["queue"]:
        return request(state, "defense", state["queue"][0], ActionKind.DEFENSE, [])
    options = ballot_options(state["nominees"])
    return [request(state, "revote", p, ActionKind.REVOTE, options) for p in table(state).living]


def route_night_start(state: GameState) -> list[Send]:
    """The first Mafia (or a lone Mafia's direct choice) alongside the Doctor and the Detective."""
    t = table(state)
    mafia = t.with_role(Role.MAFIA)
    targets = night_kill_targets(t.living, mafia)
    kind = ActionKind.NIGHT_KILL if len(mafia) == 1 else ActionKind.MAFIA_ROUND1
    sends = [request(state, "mafia_round1", mafia[0], kind, targets)]
    sends += [
        request(state, "doctor", d, ActionKind.PROTECT, protection_targets(t.living))
        for d in t.with_role(Role.DOCTOR)
    ]
    sends += [
        request(state, "detective", d, ActionKind.INVESTIGATE, investigation_targets(t.living, d))
        for d in t.with_role(Role.DETECTIVE)
    ]
    return sends


def route_mafia(state: GameState) -> Send | list[Send] | Literal["night_resolution"]:
    """Round 1 goes on in seat order; without agreement every Mafia answers Round 2 at once."""
    t = table(state)
    targets = night_kill_targets(t.living, t.with_role(Role.MAFIA))
    if state["stage"] == "mafia_round1" and state["queue"]:
        return request(state, "mafia_round1", state["queue"][0], ActionKind.MAFIA_ROUND1, targets)
    if state["stage"] == "mafia_round2":
        return [
            request(state, "mafia_round2", m, ActionKind.MAFIA_ROUND2, targets)
            for m in t.with_role(Role.MAFIA)
        ]
    return "night_resolution"


def route_check_win(state: GameState) -> Literal["game_over", "night_start", "day_start"]:
    """A winner ends the game; otherwise a day is followed by night and a night by day."""
    if state["winner"] is not None:
        return "game_over"
    return "night_start" if state["phase"] == "day" else "day_start"


def build_graph() -> StateGraph[GameState, GameContext, InputState, OutputState]:
    """The game's graph builder, uncompiled: compile it with the checkpointer you want."""
    builder = StateGraph(
        GameState, context_schema=GameContext, input_schema=InputState, output_schema=OutputState
    )
    for phase in PHASE_NODES:
        builder.add_node(phase.__name__, phase)
    for name, apply in SEQUENTIAL_TURNS.items():
        builder.add_node(name, applying(apply), input_schema=TurnRequest)
    for name in SIMULTANEOUS_TURNS:
        builder.add_node(name, player_turn, input_schema=TurnRequest)

    builder.add_edge(START, "setup")
    builder.add_conditional_edges("setup", route_night_zero, ["night_zero", "day_start"])
    builder.add_conditional_edges("night_zero", route_night_zero, ["night_zero", "day_start"])

    speeches: list[str] = ["speak", "vote", "vote_tally", "game_over"]
    builder.add_conditional_edges("day_start", route_speeches, speeches)
    builder.add_conditional_edges("speak", route_speeches, speeches)
    builder.add_edge("vote", "vote_tally")
    after_vote: list[str] = ["last_words", "defense", "night_start"]
    builder.add_conditional_edges("vote_tally", route_after_vote, after_vote)
    builder.add_conditional_edges("defense", route_defense, ["defense", "revote"])
    builder.add_edge("revote", "revote_tally")
    builder.add_conditional_edges("revote_tally", route_after_vote, after_vote)
    builder.add_edge("last_words", "check_win")

    builder.add_conditional_edges("night_start", route_night_start, ["mafia_round1", "doctor", "detective"])
    night: list[str] = ["mafia_round1", "mafia_round2", "night_resolution"]
    builder.add_conditional_edges("mafia_round1", route_mafia, night)
    builder.add_edge("mafia_round2", "mafia_round2_done")
    builder.add_edge("mafia_round2_done", "night_resolution")
    # The Doctor's and Detective's turns wait in ``turns`` until night_resolution applies them;
    # their branches end here and always finish before the Mafia's (one step against two or more).
    builder.add_edge("night_resolution", "check_win")
    builder.add_conditional_edges("check_win", route_check_win, ["game_over", "night_start", "day_start"])
    builder.add_edge("game_over", END)
    return builder


def compile_graph(**kwargs: Any) -> Any:
    """``build_graph().compile(**kwargs)`` (a checkpointer, interrupt points, a name...)."""
    return build_graph().compile(**kwargs)


graph = compile_graph(name="mafia")
