"""Random-legal play through the graph: 300 seeds over every table size from 5 to 16 seats.

Every game must end with exactly one result, the dead never act, and the independent referee in
``audit.py`` finds every applied action legal.
"""

from __future__ import annotations

import pytest

from audit import audit
from fakes import RandomLegalModel, table_size
from mafia.events import GameOver, parse_event
from mafia.runner import run_game

SEEDS = range(300)


@pytest.mark.parametrize("chunk", range(10))
def test_random_legal_games_are_legal_and_end(chunk: int) -> None:
    sizes = set()
    for seed in SEEDS[chunk::10]:
        players = table_size(seed)
        sizes.add(players)
        state = run_game({"seed": seed, "players": players}, model=RandomLegalModel(seed=seed))
        events = [parse_event(e) for e in state["events"]]
        assert audit(events) == [], f"seed {seed}"
        assert sum(isinstance(e, GameOver) for e in events) == 1
        assert state["winner"] in ("town", "mafia", "draw")
    assert len(sizes) >= 2


def test_seeds_cover_every_table_size() -> None:
    assert {table_size(s) for s in SEEDS} == set(range(5, 17))
