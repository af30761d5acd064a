"""The ``teams`` design: one model the whole Mafia, another the whole Town, each pair of models on
each deal both ways round (the sides swapped on the same cards), and the counts of a tournament's
games agreeing on every surface."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mafia.arena.spec import Contestant, label_for
from mafia.cli import app
from mafia.context.policy import policy_by_name
from mafia.game.rules import assign_roles, on_mafia
from mafia.run.settings import config_from_input
from mafia.tournament.seating import team_pairs
from mafia.tournament.spec import TEAMS, TournamentSpec

THREE = ["house", "house-sloppy", "random-legal"]


def teams_spec(games: int, models: list[str], players: int = 7) -> TournamentSpec:
    return TournamentSpec(
        games=games,
        players=players,
        policies=(policy_by_name("seed-window"),),
        contestants=tuple(Contestant(label_for(m), m) for m in models),
        design=TEAMS,
    )


def test_every_ordered_pair_plays_each_deal_side_against_side() -> None:
    assert team_pairs(2) == [(0, 1), (1, 0)]
    assert len(team_pairs(3)) == 6 and len(set(team_pairs(3))) == 6
    spec = teams_spec(12, THREE)
    tables = list(spec.tables())
    assert len(tables) == 12 and spec.seeds == [0, 1]
    for seed in spec.seeds:
        deal = assign_roles(config_from_input(spec.setup(seed)))
        met = []
        for table in (t for t in tables if t.seed == seed):
            mafia = {c.label for c, s in zip(table.seats, deal, strict=True) if on_mafia(s.role)}
            town = {c.label for c, s in zip(table.seats, deal, strict=True) if not on_mafia(s.role)}
            assert len(mafia) == 1 and len(town) == 1 and mafia != town  # a whole side each
            met.append((mafia.pop(), town.pop()))
        assert sorted(met) == sorted((a, b) for a in THREE for b in THREE if a != b)  # both ways round
    assert {t.label for t in tables} == {f"teams-{k}" for k in range(6)}
    assert spec.record()["design"] == TEAMS


def test_the_mixed_design_keeps_its_record_and_ids() -> None:
    mixed = TournamentSpec(
        games=2,
        players=7,
        policies=(policy_by_name("seed-window"),),
        contestants=tuple(Contestant(label_for(m), m) for m in THREE[:2]),
    )
    assert "design" not in mixed.record() and mixed.default_id() != teams_spec(2, THREE[:2]).default_id()


def test_a_teams_tournament_with_self_play_counts_the_same_games_everywhere(tmp_path: Path) -> None:
    args = ["tournament", "--model", "house", "--model", "random-legal", "--design", "teams", "--games", "2"]
    args += ["--players", "5", "--self-play", "--concurrency", "2", "--out", str(tmp_path), "--quiet"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    folder = next(tmp_path.glob("tournament-*"))
    summary = json.loads((folder / "summary.json").read_text())
    # One deal: two rated games (the sides swapped) and each model's self-play game.
    assert (summary["finished"], summary["self_play_games"], summary["played"], summary["scheduled"]) == (
        2,
        2,
        4,
        4,
    )
    assert "4/4 games (2 rated of 2, 2 self-play)" in result.output
    assert summary["run"]["played"] + summary["run"]["skipped"] == summary["scheduled"]  # the bar's count
