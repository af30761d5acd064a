"""Random legal play through the graph: the sweep's games that take every edge and every rare path
(chosen by playing the sweep over the protocol table, tests/game/test_table_driver.py, which plays
1,200 seeds), each played through LangGraph and checked against the table's log.

Every game must end with exactly one result, the dead never act, the independent referee in
``audit.py`` finds every applied action legal, and the graph writes exactly the log the table
driver writes for the same players.
"""

from __future__ import annotations

import itertools

import pytest

from audit import audit
from mafia.game.events import GameOver, parse_event
from mafia.game.protocol import STEPS
from sampling import sampled
from table_driver import sweep_setup
from table_paths import RARE, rare_paths
from test_table_driver import graph_game, table_game

# Thirteen seeds that between them take every edge and rare path twice and sit at every table
# size, and every 25th seed of the sweep besides.
COVERING = (2, 3, 5, 6, 7, 9, 11, 24, 49, 154, 212, 214, 292)
GRAPH_SEEDS = sorted({*COVERING, *range(0, 300, 25)})
CHUNKS = 5
# A third of the covering seeds in the default run (the edge sweep, tests/nodes/test_graph_edges.py, takes
# every edge through the graph); the other two thirds and the other 25th seeds with -m slow.
GROUPS = [
    *(COVERING[i::3] for i in range(3)),
    *(sorted({*GRAPH_SEEDS} - {*COVERING})[i::2] for i in range(2)),
]
CHUNK_PARAMS = sampled(CHUNKS, 1)


@pytest.mark.parametrize("chunk", CHUNK_PARAMS)
def test_random_legal_games_through_the_graph_are_legal_and_end(chunk: int) -> None:
    for seed in GROUPS[chunk]:
        setup = sweep_setup(seed)
        events, _ = graph_game(setup, seed)
        parsed = [parse_event(e) for e in events]
        assert audit(parsed) == [], f"seed {seed}"
        assert sum(isinstance(e, GameOver) for e in parsed) == 1
        assert events[-1]["winner"] in ("town", "mafia", "draw")
        assert events == table_game(setup, seed).events, f"seed {seed}: the graph left the table"


def test_the_graph_seeds_take_every_edge_and_rare_path() -> None:
    edges: set[tuple[str, str]] = set()
    paths: set[str] = set()
    sizes: set[int] = set()
    for seed in COVERING:
        game = table_game(sweep_setup(seed), seed)
        edges |= set(itertools.pairwise(game.path))
        paths |= rare_paths(game.events)
        sizes.add(len(game.state["seats"]))
    assert edges == {(name, after) for name, spec in STEPS.items() for after in spec.follows}
    assert paths == set(RARE)
    assert sizes == set(range(5, 17))


@pytest.mark.parametrize("seed", range(1, 121, 20))
def test_random_games_with_the_bodyguard_through_the_graph_are_legal_and_follow_the_table(seed: int) -> None:
    setup = {**sweep_setup(seed), "roles": {"bodyguard": 1}}
    events, _ = graph_game(setup, seed)
    parsed = [parse_event(e) for e in events]
    assert audit(parsed) == [], f"seed {seed}"
    assert any(e["type"] == "role_assigned" and e["role"] == "Bodyguard" for e in events)
    assert events == table_game(setup, seed).events, f"seed {seed}: the graph left the table"
