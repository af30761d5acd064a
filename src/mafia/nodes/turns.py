"""Turn nodes: a step of the protocol table (mafia.game.protocol) that asks players for decisions, run
as one graph node: it asks, runs the player subgraph on each request and applies the answers, all
in one graph step.

A turn node is an ordinary node: it reads the game state, so the log reaches the player subgraph
without being copied into any checkpoint. Its requests carry the legal options the rules compute
once; the prompt lists them and ``commit`` checks the answer against them. A step whose players
answer at once runs one task each and applies the turns in request order (seat order within each
role), so completion order never matters. Each node's function holds the player subgraph itself,
which is how Studio's drawing (``get_graph(xray=True)``) finds and expands it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from langgraph.runtime import Runtime

from mafia.game.protocol import StepSpec, apply_turns, merged, opening
from mafia.game.reading import readable
from mafia.game.state import GameState, GameUpdate
from mafia.nodes.player import PLAYER_GRAPH, play, play_all
from mafia.records.call_records import PromptRecord
from mafia.records.prompt_pack import last_record, pack_all
from mafia.run.record import run_of
from mafia.run.runtime import GameContext

Node = Callable[[GameState, Runtime[GameContext]], GameUpdate]


def _base(state: GameState) -> PromptRecord | None:
    """The game's last whole prompt record before this step (what the step's records pack against)."""
    return last_record(state["game_id"], state["prompts"])


def turn_node(name: str, spec: StepSpec) -> Node:
    """The node of a turn step: ask, play every request (alone, or at once as tasks), apply."""
    ask = spec.ask
    assert ask is not None, f"{name} asks no one"
    graph = PLAYER_GRAPH

    def turn_step(state: GameState, runtime: Runtime[GameContext]) -> GameUpdate:
        run = run_of(state, runtime.context)  # the recorded run when a resume gives no context
        base = _base(state)
        opened = opening(spec, state)
        requests = ask(merged(state, opened))
        if spec.at_once:
            played = play_all(graph, state["game_id"], state["events"], requests, base, run.context)
        else:
            played = [play(graph, state["game_id"], state["events"], r, run.context) for r in requests]
        update = apply_turns(spec, opened, state, [(turn, own) for turn, own, _ in played])
        update["prompts"] = pack_all([record for _, _, record in played], base)
        return cast(GameUpdate, run.applied(dict(readable(state, update))))

    turn_step.__name__ = turn_step.__qualname__ = name
    turn_step.__doc__ = ask.__doc__
    return turn_step
