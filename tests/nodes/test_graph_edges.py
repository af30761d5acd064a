"""The drawing holds only edges a game can take: a sweep of seeded games takes every drawn edge of
the game graph and of the player subgraph (Studio's xray view shows both)."""

from __future__ import annotations

from typing import Any

from edge_sweep import drawn_edges, taken_edges, untaken
from fakes import Ask, RandomLegalModel, ScriptedModel
from mafia.context.policy import policy_by_name
from mafia.graph import compile_graph
from mafia.models.house import HouseModel
from mafia.nodes.player import PLAYER_GRAPH
from mafia.run.runtime import GameContext


def _illegal_votes(ask: Ask) -> dict[str, Any] | None:
    """Every speaker nominates the first listed player; every ballot names no one at the table."""
    if ask.action == "speak":
        return {"choice": ask.targets[0]}
    return {"choice": "Nobody At All"} if ask.action == "vote" else None


# (setup, context): seeded games that between them take every edge. House games cover the usual
# course and a round-capped draw; random-legal players split the Mafia (Round 2) and eliminate on
# a revote; scripted illegal ballots are re-asked (commit -> decide); a house game under
# `layered` searches its record within turns (decide -> recall -> decide).
SWEEP: list[tuple[dict[str, Any], GameContext]] = [
    ({"seed": 0, "players": 5}, GameContext(model=HouseModel(seed=0))),
    ({"seed": 2, "players": 7}, GameContext(model=HouseModel(seed=2))),
    ({"seed": 5, "players": 10}, GameContext(model=HouseModel(seed=5))),
    ({"seed": 3, "players": 16, "round_cap": 1}, GameContext(model=HouseModel(seed=3))),
    ({"seed": 17, "players": 10}, GameContext(model=RandomLegalModel(seed=17))),
    ({"seed": 1, "players": 5}, GameContext(model=ScriptedModel(script=_illegal_votes), max_retries=1)),
    # The tool loop (decide -> recall -> decide) of a policy with recall.
    ({"seed": 0, "players": 12}, GameContext(model=HouseModel(seed=0), policy=policy_by_name("layered"))),
]


# Random-legal games played after SWEEP, in seed order, until every drawn edge is taken: prompts
# seed these players, so a change of wording moves which rare paths (ties, splits) a seed takes.
EXTRA_SEEDS = range(100, 130)


def sweep(graph: Any) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    game: set[tuple[str, str]] = set()
    turn: set[tuple[str, str]] = set()
    for setup, context in SWEEP:
        taken_game, taken_turn = taken_edges(graph, setup, context)
        game |= taken_game
        turn |= taken_turn
    drawn = drawn_edges(graph.get_graph())
    for seed in EXTRA_SEEDS:
        if not untaken(drawn, game):
            break
        extra = GameContext(model=RandomLegalModel(seed=seed))
        taken_game, taken_turn = taken_edges(graph, {"seed": seed, "players": 10}, extra)
        game |= taken_game
        turn |= taken_turn
    return game, turn


def test_every_drawn_edge_is_taken_by_the_sweep() -> None:
    graph = compile_graph()
    game, turn = sweep(graph)
    assert untaken(drawn_edges(graph.get_graph()), game) == []
    assert untaken(drawn_edges(PLAYER_GRAPH.get_graph()), turn) == []
    # Nothing is taken that is not drawn either.
    assert game <= drawn_edges(graph.get_graph())
    assert turn <= drawn_edges(PLAYER_GRAPH.get_graph())


def test_an_edge_no_game_takes_fails_the_check() -> None:
    """A drawn edge the code cannot take (the old ``speak -> game_over``) is reported."""
    graph = compile_graph()
    game, _ = taken_edges(graph, *SWEEP[0])
    planted = drawn_edges(graph.get_graph()) | {("speak", "game_over")}
    assert ("speak", "game_over") in untaken(planted, game)


def test_the_xray_drawing_expands_every_turn_node_into_the_player_subgraph() -> None:
    nodes = set(compile_graph().get_graph(xray=True).nodes)
    for turn in ("night_zero", "speak", "vote", "defense", "revote", "last_words"):
        assert {f"{turn}:build_context", f"{turn}:decide", f"{turn}:recall", f"{turn}:commit"} <= nodes
    for turn in ("night_start", "mafia_round1", "mafia_round2"):
        assert {f"{turn}:build_context", f"{turn}:decide", f"{turn}:commit"} <= nodes
