"""The reference game: the protocol table played by plain functions, without LangGraph.

``play`` walks a table as the graph does: a bookkeeping step's function, or a turn step's
requests each answered by ``answer`` and applied by the row's appliers (``apply_turns``), then the
step's router (``route``), which checks the next step its appliers named. The graph (mafia.graph)
is built from the same table, so a game played here and the graph's game take the same steps
and log the same events when their players answer alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from mafia.game.protocol import FIRST_STEP, STEPS, StepSpec, apply_turns, merged, opening, route
from mafia.game.state import JSON, GameState, GameUpdate, StepName, Turn, TurnRequest

Answer = Callable[[GameState, TurnRequest], tuple[Turn, list[JSON]]]
"""Plays one request on the state it is asked in: the finished turn (its ``player``, ``action``,
``choice``, ``text``...) and its player's own events (a thought, a fallback)."""

MAX_STEPS = 20_000
"""More steps than any game under the round cap takes: a table that loops fails instead."""


@dataclass
class Played:
    """One finished game: its final state and the steps it took in order."""

    state: GameState
    path: list[StepName] = field(default_factory=list)


def after(state: GameState, update: GameUpdate) -> GameState:
    """The state after a step: its fields over the old ones, its events appended to the log."""
    return {**state, **update, "events": [*state.get("events", []), *update.get("events", [])]}


def run_step(spec: StepSpec, state: GameState, answer: Answer) -> GameUpdate:
    """What one step writes: its function's update, or its requests answered and applied."""
    if spec.run is not None:
        return spec.run(state)
    if spec.ask is None:
        raise ValueError("a step of the reference game runs a function or asks players")
    opened = opening(spec, state)
    played = [answer(state, request) for request in spec.ask(merged(state, opened))]
    return apply_turns(spec, opened, state, played)


def play(dealt: GameState, answer: Answer, table: Mapping[StepName, StepSpec] = STEPS) -> Played:
    """Play the game ``dealt`` (mafia.game.deal) to its end over ``table``, every turn answered by
    ``answer``; the setup step is the deal itself."""
    game = Played(dealt, [FIRST_STEP])
    step: StepName | None = route(FIRST_STEP, table)(dealt)
    while step is not None:
        if len(game.path) >= MAX_STEPS:
            raise RuntimeError(f"the game took {MAX_STEPS} steps without ending")
        spec = table[step]
        game.state = after(game.state, run_step(spec, game.state, answer))
        game.path.append(step)
        step = route(step, table)(game.state) if spec.follows else None
    return game
