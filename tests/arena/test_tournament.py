"""Tournaments: models seated together, balanced over roles on paired deals, resumable, and rated
from their logs; the offline models of graded strength they are played with."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce
from typer.testing import CliRunner

from arena_helpers import interrupted, logs_of, run_stopped
from mafia.arena import run_arena
from mafia.arena.spec import ArenaError, Contestant, label_for
from mafia.cli import app
from mafia.context.policy import DEFAULT_POLICY, policy_by_name
from mafia.game.rules import Role, Seat, on_mafia
from mafia.models.factory import ModelSpecError, resolve_model
from mafia.models.house import HouseModel
from mafia.tournament import run_tournament
from mafia.tournament.ratings import rate_tables, summarize_passes
from mafia.tournament.results import TableResult
from mafia.tournament.seating import seating
from mafia.tournament.spec import TournamentSpec

THREE = ["house", "house-sloppy", "random-legal"]


def spec_of(games: int, models: list[str], players: int = 8, **more: Any) -> TournamentSpec:
    return TournamentSpec(
        games=games,
        players=players,
        policies=(policy_by_name("seed-window"),),
        contestants=tuple(Contestant(label_for(m), m) for m in models),
        **more,
    )


@pytest.mark.parametrize(
    ("players", "roles"), [(8, None), (7, None), (10, {"mafia": 3}), (5, {"mafia": 1, "doctor": 0})]
)
def test_every_model_plays_every_role_equally_often_over_24_games(
    players: int, roles: dict[str, int] | None
) -> None:
    spec = spec_of(24, THREE, players, roles=roles)
    tables = list(spec.tables())
    assert len(tables) == 24 and len({(t.seed, t.turn) for t in tables}) == 24
    seats: Counter[tuple[str, Role]] = Counter()
    games: Counter[tuple[str, Role]] = Counter()
    positions: Counter[tuple[str, int]] = Counter()
    for t in tables:
        deal = spec_deal(spec, t.seed)
        held = {(c.label, s.role) for c, s in zip(t.seats, deal, strict=True)}
        seats.update((c.label, s.role) for c, s in zip(t.seats, deal, strict=True))
        games.update(held)
        positions.update((c.label, n) for n, c in enumerate(t.seats, start=1))
        mafia = {c.label for c, s in zip(t.seats, deal, strict=True) if s.role is Role.MAFIA}
        town = {c.label for c, s in zip(t.seats, deal, strict=True) if s.role is not Role.MAFIA}
        assert len(mafia) == 1 and not mafia & town and len(town) == 2  # one Mafia model, no turncoat
    for role in Role:
        for count in (seats, games):
            per_model = [count[(m, role)] for m in THREE]
            assert max(per_model) - min(per_model) <= 1, (role, per_model)
    for seat in range(1, players + 1):
        assert {positions[(m, seat)] for m in THREE} == {8}  # every seat held by every model alike


def spec_deal(spec: TournamentSpec, seed: int) -> tuple[Seat, ...]:
    from mafia.game.rules import assign_roles
    from mafia.nodes.setup import config_from_input

    return assign_roles(config_from_input(spec.setup(seed)))


def test_a_deals_games_swap_the_models_round_its_seats() -> None:
    deal = tuple(Seat(n, f"Player {n}", _role(c)) for n, c in enumerate("MTTDMTCT", start=1))
    games = [seating(deal, 3, turn) for turn in range(3)]
    assert games[0] == (0, 1, 1, 1, 0, 2, 2, 2)  # model 0 holds both Mafia seats; the Town in two blocks
    for turn, game in enumerate(games):
        assert {game[0], game[4]} == {turn}  # the Mafia passes on, turn by turn
    for seat in range(8):
        assert sorted(game[seat] for game in games) == [0, 1, 2]  # each seat goes round the models
    with pytest.raises(ValueError, match="models must be 2 to 7"):
        seating(deal, 8, 0)


def _role(letter: str) -> Role:
    return {"M": Role.MAFIA, "D": Role.DETECTIVE, "C": Role.DOCTOR, "T": Role.TOWN}[letter]


def test_paired_games_replay_the_same_deal_with_the_models_swapped(tmp_path: Path) -> None:
    summary = run_tournament(
        games=4, models=["house", "random-legal"], players=6, out=tmp_path, concurrency=2
    )
    folder = Path(summary["run"]["folder"])
    assert summary["finished"] == 4 and summary["run"]["unfinished"] == {}
    seating_of = json.loads((folder / "arena.json").read_text())["seating"]
    for seed in (0, 1):
        a, b = (folder / "games" / DEFAULT_POLICY / f"turn-{k}" / f"seed-{seed}" for k in (0, 1))
        runs = [json.loads((f / "run.json").read_text()) for f in (a, b)]
        assert runs[0]["config"] == runs[1]["config"]
        deals = [[e for e in _events(f) if e["type"] == "role_assigned"] for f in (a, b)]
        assert deals[0] == deals[1]  # the same cards
        labels = [seating_of[f"{DEFAULT_POLICY}/turn-{k}/seed-{seed}"] for k in (0, 1)]
        swap = {"house": "random-legal", "random-legal": "house"}
        assert labels[1] == [swap[m] for m in labels[0]]  # every seat's model swapped
        seat_models = [r["seat_models"] for r in runs]
        assert [seat_models[0][str(n)] for n in range(1, 7)] == labels[0]  # each game plays its seating


def _events(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_a_resumed_tournament_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    args: dict[str, Any] = {"games": 6, "models": THREE, "players": 8, "concurrency": 3, "tournament_id": "t"}
    stopped = tmp_path / "stopped" / "tournament-t"
    first = run_stopped(stopped, 2500, run_tournament, **args, out=tmp_path / "stopped")
    assert first["run"]["unfinished"], "the stop came after every game had finished"
    second = run_tournament(**args, out=tmp_path / "stopped")
    clean = run_tournament(**args, out=tmp_path / "clean")
    assert second["finished"] == clean["finished"] == 6
    assert logs_of(stopped) == logs_of(tmp_path / "clean" / "tournament-t")
    assert second["ratings"] == clean["ratings"] and second["win_rates"] == clean["win_rates"]
    assert second["costs"] == clean["costs"]


@pytest.mark.slow
def test_ctrl_c_stops_the_command_and_the_same_command_resumes(tmp_path: Path) -> None:
    args = ["tournament", "--model", "house", "--model", "random-legal", "--games", "2", "--players", "10"]
    args += ["--concurrency", "2", "--out", str(tmp_path), "--quiet"]
    stopped = interrupted(args, tmp_path, 3000)
    assert stopped.returncode == 130, (stopped.stdout, stopped.stderr)
    assert "stopped. Run the same command again to resume the tournament." in stopped.stderr
    assert "Traceback" not in stopped.stderr
    (folder,) = tmp_path.glob("tournament-*")
    assert not list(folder.glob("games/*/*/seed-*/result.json"))  # both games were stopped mid-way

    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert "2/2 games" in done.stdout and "house: rating" in done.stdout
    tid = folder.name.removeprefix("tournament-")
    run_tournament(
        games=2, models=["house", "random-legal"], players=10, out=tmp_path / "clean", tournament_id=tid
    )
    assert logs_of(folder) == logs_of(tmp_path / "clean" / folder.name)


def test_ratings_recomputed_from_the_logs_equal_the_reports(tmp_path: Path) -> None:
    summary = run_tournament(
        games=12, models=THREE, players=7, out=tmp_path, tournament_id="r", concurrency=3
    )
    folder = tmp_path / "tournament-r"
    result = CliRunner().invoke(app, ["tournament", "report", str(folder)])
    assert result.exit_code == 0, result.output
    report = folder / "report"
    shown = json.loads((report / "standings.json").read_text())
    assert {p.name for p in report.iterdir()} == {"report.md", "ratings.png", "standings.json"}

    # Read the games afresh from the raw logs: who sat where (arena.json), roles and winner (events).
    tables = []
    for game, labels in json.loads((folder / "arena.json").read_text())["seating"].items():
        events = _events(folder / "games" / game)
        over = events[-1]
        assert over["type"] == "game_over"
        roles = {r["player"]: r["role"] for r in over["roles"]}
        seats = tuple((label, roles[f"Player {n}"]) for n, label in enumerate(labels, start=1))
        seed = int(game.rsplit("seed-", 1)[1])
        tables.append(TableResult(game, seed, over["winner"], seats))
    recomputed = rate_tables(tables)
    assert recomputed == shown["ratings"] == summary["ratings"]
    page = (report / "report.md").read_text()
    best = max(recomputed["overall"], key=lambda m: recomputed["overall"][m]["mu"])
    r = recomputed["overall"][best]
    ranks = shown["outcomes"][best]["ranks"]
    shown_range = (
        str(ranks["best"]) if ranks["best"] == ranks["worst"] else f"{ranks['best']}–{ranks['worst']}"
    )
    assert f"| {shown_range} | {best} | {r['mu']:.1f} [{r['low']:.1f}, {r['high']:.1f}] |" in page
    for heading in ("Leaderboard", "Ratings by role", "Win rates by role", "Head to head", "Cost per game"):
        assert f"## {heading}" in page
    wins = Counter(t.winner for t in tables)
    assert shown["winners"] == {side: wins.get(side, 0) for side in ("town", "mafia", "draw")}


def _fixed_sides(winner: str) -> list[TableResult]:
    """Ten games in which "m" always holds the Mafia seats and "t" the Town's, all won by ``winner``."""
    seats = (("m", "Mafia"), ("t", "Detective"), ("m", "Mafia"), ("t", "Town"), ("t", "Doctor"))
    return [TableResult(f"{winner}/{seed}", seed, winner, seats) for seed in range(10)]


def test_ratings_follow_who_wins_and_do_not_depend_on_the_order_given() -> None:
    # "strong" wins every game it holds the Mafia in and its Town beats the others' Mafia.
    tables = []
    for seed in range(10):
        for mafia in ("strong", "weak"):
            town = "weak" if mafia == "strong" else "strong"
            seats = (
                (mafia, "Mafia"),
                (town, "Detective"),
                (mafia, "Mafia"),
                (town, "Town"),
                (town, "Doctor"),
            )
            tables.append(
                TableResult(f"{mafia}/{seed}", seed, "mafia" if mafia == "strong" else "town", seats)
            )
    ratings = rate_tables(tables, passes=5)
    strong, weak = ratings["overall"]["strong"], ratings["overall"]["weak"]
    assert strong["low"] > weak["high"]
    assert ratings["by_role"]["Mafia"]["strong"]["mu"] > ratings["by_role"]["Mafia"]["weak"]["mu"]
    assert rate_tables(list(reversed(tables)), passes=5) == ratings
    # The same seats and games, only the result differs: a draw is a tie of the two teams, so the
    # Town's model is rated higher than after Mafia wins and lower than after Town wins.
    town_mu = {
        w: rate_tables(_fixed_sides(w), passes=2)["overall"]["t"]["mu"] for w in ("mafia", "draw", "town")
    }
    assert town_mu["mafia"] < town_mu["draw"] < town_mu["town"]


def _normal_mass(low: float, high: float, mu: float, sigma: float) -> float:
    """The mass of N(mu, sigma) between ``low`` and ``high``."""
    scale = sigma * math.sqrt(2)
    return 0.5 * (math.erf((high - mu) / scale) - math.erf((low - mu) / scale))


@pytest.mark.parametrize(
    ("passes", "spread"),
    [
        ([(0.0, 1.0), (2.0, 1.0)], math.sqrt(2.0)),  # order and passes alike: 1 + 1
        ([(0.0, 0.1), (4.0, 0.1)], math.sqrt(4.01)),  # the order moved the mean most
        ([(5.0, 3.0), (5.0, 3.0), (5.0, 3.0)], 3.0),  # no order effect: the passes' own sigma
    ],
    ids=["even", "order-heavy", "order-free"],
)
def test_a_ratings_interval_covers_what_its_passes_say(
    passes: list[tuple[float, float]], spread: float
) -> None:
    """A rating over passes is a mixture of the passes' normals: its spread is the law of total
    variance's (worked out by hand here), and its stated 95% interval holds at least 95% of the
    mixture, so it is never narrower than the passes say."""
    rating = summarize_passes(passes)
    assert rating["mu"] == pytest.approx(sum(mu for mu, _ in passes) / len(passes))
    assert rating["sigma"] == pytest.approx(spread)
    mass = sum(_normal_mass(rating["low"], rating["high"], mu, sigma) for mu, sigma in passes) / len(passes)
    assert mass >= 0.95 - 1e-9  # exactly 0.95 for one normal


def test_one_game_rated_once_is_openskills_own_update() -> None:
    """With every entity once in one game, a rating is exactly what openskill's Plackett-Luce
    gives: its mean and its sigma (the variance a game removes is subtracted, never added)."""
    seats = (("m", "Mafia"), ("t", "Detective"), ("m", "Mafia"), ("t", "Town"), ("t", "Doctor"))
    for winner, ranks in (("mafia", [1.0, 2.0]), ("town", [2.0, 1.0])):
        ratings = rate_tables([TableResult("g", 0, winner, seats)], passes=1)
        model = PlackettLuce()
        teams = [[model.rating(), model.rating()], [model.rating(), model.rating()]]  # [side, model]
        (_, mafia), (_, town) = model.rate(teams, ranks=ranks)
        for label, want in (("m", mafia), ("t", town)):
            got = ratings["overall"][label]
            assert (got["mu"], got["sigma"]) == (pytest.approx(want.mu), pytest.approx(want.sigma))
            assert got["sigma"] < model.sigma  # a game rated narrows the interval


def test_house_variants_are_model_specs_of_graded_skill() -> None:
    models = [resolve_model(spec) for spec in ("house", "house-sloppy:4", "random-legal:9")]
    houses = [m for m in models if isinstance(m, HouseModel)]
    assert len(houses) == len(models)
    assert [(m.skill, m.seed) for m in houses] == [(1.0, 0), (0.5, 4), (0.0, 9)]
    with pytest.raises(ModelSpecError, match="house seed must be an integer"):
        resolve_model("random-legal:x")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "house"], "--model: give two or more models"),
        (["--model", "house", "--model", "random-legal", "--games", "5"], "--games 5: each deal is played"),
        (["--model", "a=house:1", "--model", "b=house:2", "--policy", "nope"], "--policy: no context policy"),
        (["--model", "house", "--model", "random-legal", "--players", "4"], "players"),
        (
            [
                "--model",
                "house",
                "--model",
                "random-legal",
                "--policy",
                "full-history",
                "--policy",
                "seed-window",
            ],
            "--policy: a tournament plays one context policy",
        ),
        (
            ["--model", "house", "--model", "random-legal", "--concurrency", "0"],
            "--concurrency: must be 1 or more",
        ),
        (["--model", "house", "--model", "random-legal", "--server", "nope"], "--server 'nope'"),
        (["--model", "house", "--model", "house:x"], "house seed must be an integer"),
        (
            ["--model", "house", "--model", "random-legal", "--design", "duel"],
            "--design duel: use one of mixed, teams",
        ),
        (
            [
                "--model",
                "house",
                "--model",
                "random-legal",
                "--model",
                "house-sloppy",
                "--design",
                "teams",
                "--games",
                "9",
            ],
            "--games 9: each deal is played once per ordered pair of models (each pair both ways round), "
            "so give a multiple of 6",
        ),
    ],
)
def test_a_bad_tournament_is_one_line_and_exit_code_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["tournament", *args, "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not list(tmp_path.iterdir())  # nothing written


def test_a_tournament_needs_two_models_that_fit_the_table() -> None:
    with pytest.raises(ArenaError, match="give two or more models"):
        spec_of(4, ["house"])
    with pytest.raises(ArenaError, match="6 models do not fit 5 seats with 1 Mafia; give at most 5"):
        spec_of(6, [f"house:{k}" for k in range(6)], 5, roles={"mafia": 1}).check_table()
    with pytest.raises(ArenaError, match="a tournament seats the models itself"):
        TournamentSpec(
            games=2,
            players=5,
            policies=(policy_by_name("seed-window"),),
            contestants=(Contestant("a", "house", {"1": "house:1"}), Contestant("b", "house")),
        )
    with pytest.raises(ArenaError, match="not a tournament folder"):
        from mafia.tournament.report import write_report

        write_report(Path("/nonexistent/tournament-x"))


def test_a_report_of_a_damaged_or_foreign_folder_is_one_line(tmp_path: Path) -> None:
    run_tournament(games=2, models=["house", "random-legal"], players=5, out=tmp_path, tournament_id="d")
    run_arena(games=1, players=5, out=tmp_path, arena_id="a")
    events = tmp_path / "tournament-d" / "games" / DEFAULT_POLICY / "turn-1" / "seed-0" / "events.jsonl"
    with events.open("a") as log:
        log.write("{not json\n")
    for folder, message in (
        ("tournament-d", f"{events}:{len(events.read_text().splitlines())}: not valid JSON"),
        ("arena-a", "an arena, not a tournament; `mafia arena report` reads it"),
        ("nowhere", "not a tournament folder (it has no arena.json)"),
    ):
        result = CliRunner().invoke(app, ["tournament", "report", str(tmp_path / folder)])
        assert result.exit_code == 2 and message in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "tournament-d" / "report").exists()


@given(
    roles=st.lists(st.sampled_from(list(Role)), min_size=5, max_size=16).filter(
        lambda r: 1 <= sum(map(on_mafia, r)) < len(r) - sum(map(on_mafia, r))
    ),
    data=st.data(),
)
@settings(max_examples=200, deadline=None, database=None)
def test_any_deal_seats_one_mafia_model_and_rotates_every_seat_through_every_model(
    roles: list[Role], data: st.DataObject
) -> None:
    deal = tuple(Seat(n, f"Player {n}", role) for n, role in enumerate(roles, start=1))
    town = sum(1 for r in roles if not on_mafia(r))  # the Mafia's side: the Mafia and the Godfather
    models = data.draw(st.integers(min_value=2, max_value=town + 1))
    games = [seating(deal, models, turn) for turn in range(models)]
    for turn, game in enumerate(games):
        assert {m for m, s in zip(game, deal, strict=True) if on_mafia(s.role)} == {turn}
        assert set(game) == set(range(models))  # every model sits at every table
    for seat in range(len(deal)):
        assert sorted(game[seat] for game in games) == list(range(models))


def test_summaries_and_recall_searches_are_counted_apart_in_a_tournament(tmp_path: Path) -> None:
    # A policy with summaries: the summariser's calls belong to no seat, so they are shown apart
    # from the models' costs (whose re-asks count no recall search).
    summary = run_tournament(
        games=2,
        models=["house", "random-legal"],
        players=9,  # games long enough to be summarised
        policy="rolling-summary",
        out=tmp_path,
        tournament_id="s",
        round_cap=6,
    )
    folder = tmp_path / "tournament-s"
    summaries = [
        r
        for game in (folder / "games").glob("**/prompts.jsonl")
        for r in _prompts(game)
        if r["action"] == "summary"
    ]
    assert summaries and summary["summaries"]["calls"] == len(summaries) / 2
    result = CliRunner().invoke(app, ["tournament", "report", str(folder)])
    assert result.exit_code == 0, result.output
    page = (folder / "report" / "report.md").read_text()
    assert "The summariser's calls (no seat's): " in page
    assert all(c["recalls"] == 0 for c in summary["costs"].values())


def _prompts(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]
