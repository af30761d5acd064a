"""The protocol table played without LangGraph: the driver writes exactly the graph's log for the
same players, and random legal play over the table takes every edge, ends, and stays legal."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from audit import audit
from fakes import Ask, ScriptedModel
from mafia.game.events import GameOver, parse_event
from mafia.game.protocol import FIRST_STEP, STEPS
from mafia.game.state import JSON
from mafia.graph import compile_graph
from mafia.play.runner import RECURSION_LIMIT
from mafia.run.runtime import GameContext
from table_driver import Picker, TableGame, play_table, random_answer, sweep_setup
from table_paths import RARE, rare_paths

# Random legal games over the table: the seeds of the graph-level sweep and many more.
SEEDS = range(1200)
CHUNKS = 8  # short tests, so both workers stay busy to the end of the run


def graph_game(setup: dict[str, Any], seed: int = 0) -> tuple[list[JSON], list[JSON]]:
    """A game through the graph, every seat played by ``Picker(seed)``: its log and prompt records."""
    picker = Picker(seed)

    def script(ask: Ask) -> dict[str, Any]:
        return {"choice": picker.pick(ask.player, ask.action, ask.targets)}

    config = {"recursion_limit": RECURSION_LIMIT}
    context = GameContext(model=ScriptedModel(script=script))
    events: list[JSON] = []
    records: list[JSON] = []
    for mode, chunk in compile_graph().stream(
        {"setup": setup}, config, context=context, stream_mode=["custom", "values"]
    ):
        if mode == "custom" and "prompt" in chunk:
            records.append(chunk["prompt"])
        elif mode == "values":
            events = chunk.get("events", events)
    return events, records


def table_game(setup: dict[str, Any], seed: int = 0, *, prompts: bool = False) -> TableGame:
    """The same game over the table."""
    return play_table(setup, Picker(seed).answer, prompts=prompts)


@pytest.mark.parametrize(("seed", "players"), [(1, 5), (2, 7), (3, 10), (4, 16)])
def test_the_driver_writes_the_graphs_log_and_prompts(seed: int, players: int) -> None:
    setup = {"seed": seed, "players": players}
    events, records = graph_game(setup, seed)
    game = table_game(setup, seed, prompts=True)
    assert game.events == events
    by_id = {r["id"]: (r["system"], r["user"]) for r in records}
    assert {r["id"]: (r["system"], r["user"]) for r in game.records} == by_id


def test_another_player_gives_another_log() -> None:
    """A planted fault: the same setup played by another seed's picker is told apart."""
    setup = {"seed": 2, "players": 7}
    assert table_game(setup, 2).events != table_game(setup, 3).events


def legal_game(seed: int) -> TableGame:
    """Sweep game ``seed``, checked: legal throughout, and one result."""
    game = play_table(sweep_setup(seed), random_answer(seed))
    events = [parse_event(e) for e in game.events]
    assert audit(events) == [], f"seed {seed}"
    assert sum(isinstance(e, GameOver) for e in events) == 1, f"seed {seed}"
    assert game.state["winner"] in ("town", "mafia", "draw")
    return game


# The first 300 seeds are checked in the default run (below, with the edges and rare paths they
# take); the other 900 with -m slow.
@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_table_games_are_legal_and_end(chunk: int) -> None:
    for seed in SEEDS[300:][chunk::CHUNKS]:
        legal_game(seed)


def test_random_table_play_takes_every_edge_and_rare_path() -> None:
    edges: set[tuple[str, str]] = set()
    paths: Counter[str] = Counter()
    for seed in SEEDS[:300]:
        game = legal_game(seed)
        assert game.path[0] == FIRST_STEP
        edges |= set(itertools.pairwise(game.path))
        paths.update(rare_paths(game.events))
    table = {(name, after) for name, spec in STEPS.items() for after in spec.follows}
    assert edges == table, sorted(table ^ edges)
    assert [name for name in RARE if paths[name] == 0] == [], paths
