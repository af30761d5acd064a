"""A tournament's judged play from constructed games with known tallies: each model's figure per
role is the ratio of its seats' sums, its interval the percentiles over the bootstrap draws (given
here explicitly), the advantage is over every model's seats in the role, and the outcome's rank
ranges come from the same draws."""

from __future__ import annotations

from pathlib import Path

import pytest

from mafia.arena.bootstrap import draws, overlap, percentiles, ratio
from mafia.arena.seat_play import METRICS
from mafia.tournament.judged import judged_play, outcomes
from mafia.tournament.results import TableResult, Tournament
from mafia.tournament.standings import SCHEMA, standings

SEATS = (("a", "Mafia"), ("b", "Town"), ("b", "Detective"))


def table(
    game: str, winner: str, a_misfires: tuple[float, float], b_misfires: tuple[float, float]
) -> TableResult:
    """A game in which model a holds the Mafia and b the Town's two seats (b's second seat casts
    nothing), with the given misfire tallies."""
    play: tuple[dict[str, list[float]], ...] = (
        {"misfires": list(a_misfires)},
        {"misfires": list(b_misfires)},
        {},
    )
    return TableResult(game, 0, winner, SEATS, play=play)


GAMES = [table("g1", "mafia", (1, 2), (0, 2)), table("g2", "town", (0, 2), (2, 2))]
EVERY_TWICE, FIRST_TWICE, SECOND_TWICE = [1, 1], [2, 0], [0, 2]


def test_a_figure_is_the_ratio_of_sums_with_its_percentile_interval() -> None:
    got = judged_play(GAMES, ["a", "b"], [FIRST_TWICE, SECOND_TWICE, EVERY_TWICE])
    a, b = got["metrics"]["misfires"]["a"], got["metrics"]["misfires"]["b"]
    assert a["all"]["value"] == pytest.approx(1 / 4)
    assert a["Mafia"]["value"] == pytest.approx(1 / 4) and a["Town"] is None
    assert b["all"]["value"] == pytest.approx(2 / 4) and b["Town"]["n"] == 4
    # a's draws: 2/4, 0/4, 1/4; the 2.5th and 97.5th percentiles of (0, 0.25, 0.5).
    assert (a["all"]["low"], a["all"]["high"]) == pytest.approx((0.0125, 0.4875))
    # The role's baseline is every model's seats in it: a alone holds the Mafia.
    assert a["Mafia"]["baseline"] == pytest.approx(1 / 4) and a["Mafia"]["advantage"]["value"] == 0
    assert a["all"]["baseline"] == pytest.approx(3 / 8)
    assert a["all"]["advantage"]["value"] == pytest.approx(1 / 4 - 3 / 8)
    # Jointly drawn: +0.25, -0.5 and -0.125 over the three draws.
    gain = a["all"]["advantage"]
    assert (gain["low"], gain["high"]) == pytest.approx((-0.48125, 0.23125))


def test_the_outcome_wins_advantage_and_rank_ranges() -> None:
    got = outcomes(GAMES, ["a", "b"], [FIRST_TWICE, SECOND_TWICE])
    assert got["a"]["wins"]["all"]["value"] == pytest.approx(1 / 2)
    assert got["b"]["wins"]["Town"]["value"] == pytest.approx(1 / 2)
    # Every role wins half its seats over both games: no model is above its roles' baseline.
    assert got["a"]["advantage"]["value"] == pytest.approx(0.0)
    # On each draw one side won every game, and each role's baseline is that result: 0 for both.
    assert got["a"]["ranks"] == {"best": 1, "worst": 1}


def test_a_rank_range_spans_the_ranks_the_draws_give() -> None:
    # b's Town seats: model c holds the Detective and wins when b's Town loses.
    seats = (("a", "Mafia"), ("b", "Town"), ("c", "Detective"))
    games = [TableResult(f"g{k}", k, w, seats) for k, w in enumerate(["town", "mafia", "town"])]
    got = outcomes(games, ["a", "b", "c"], draws(3, 200))
    for label in "abc":
        ranks = got[label]["ranks"]
        assert 1 <= ranks["best"] <= ranks["worst"] <= 3


def test_draws_are_seeded_and_resample_every_game() -> None:
    assert draws(5, 50) == draws(5, 50)
    assert all(sum(w) == 5 and len(w) == 5 for w in draws(5, 50))
    assert draws(0) == []


def test_percentiles_and_overlap() -> None:
    assert percentiles(None, [1.0]) == (None, None, None)
    assert percentiles(0.5, [None]) == (0.5, None, None)
    assert ratio([1, 2], [2, 2], [0, 3]) == pytest.approx(1.0)
    assert ratio([1], [0]) is None
    assert overlap((0.0, 0.5), (0.5, 1.0)) and not overlap((0.0, 0.4), (0.5, 1.0))
    assert overlap((None, 0.2), (0.5, 1.0))


DOCS = Path(__file__).resolve().parents[2] / "docs" / "arenas-and-tournaments.md"


def _doc_table(heading: str) -> list[list[str]]:
    """The body rows of the first table under a heading of the tournaments page, cell by cell."""
    lines = DOCS.read_text(encoding="utf-8").split(heading, 1)[1].splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith("|"))
    block = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        block.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    return block[2:]


def test_standings_json_holds_the_documented_schema() -> None:
    request = {"id": "t", "players": 5, "policies": ["seed-window"], "models": {"a": {}, "b": {}}, "games": 2}
    s = standings(Tournament(Path("t"), request, GAMES, []), passes=2)
    documented = {
        field.strip("`") for row in _doc_table("### standings.json") for field in row[0].split(", ")
    }
    assert documented == set(s) and s["schema"] == SCHEMA
    figure = s["judged"]["metrics"]["misfires"]["a"]["all"]
    assert set(figure) == {"value", "low", "high", "n", "baseline", "advantage"}
    assert set(s["outcomes"]["a"]) == {"wins", "advantage", "ranks"}


def test_every_metric_is_documented_with_its_definition() -> None:
    rows = {row[0].strip("`"): row[2] for row in _doc_table("### Judged play")}
    assert rows == {m.key: m.definition for m in METRICS}
