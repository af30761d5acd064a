"""The ``swiss`` design: rounds pairing models of similar standing, never the same two twice while
others can meet, byes rotating; each pair played as a teams pair; a tournament paired round by
round from its logs, so a resumed one pairs and plays exactly as an uninterrupted one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena_helpers import logs_of
from mafia.arena.spec import label_for
from mafia.cli import app
from mafia.tournament.pairing import Round, default_rounds, first_order, pair_round, standing
from mafia.tournament.results import load_tournament
from mafia.tournament.swiss import scores

FOUR = ["house", "house-sloppy", "random-legal", "house:7"]


def test_pairs_are_of_similar_standing_and_never_repeat_while_others_can_meet() -> None:
    ranked = standing({"a": 0.1, "b": 0.5, "c": -0.2, "d": 0.5}, ["a", "b", "c", "d"])
    assert ranked == ["b", "d", "a", "c"]  # best first, equal scores in the given order
    first = pair_round(ranked, [])
    assert first == Round((("b", "d"), ("a", "c")))  # neighbours in the standing
    second = pair_round(ranked, [first])
    assert second == Round((("b", "a"), ("d", "c")))  # the nearest partner not met yet
    third = pair_round(ranked, [first, second])
    assert third == Round((("b", "c"), ("d", "a")))  # the only pairs left unplayed
    assert pair_round(ranked, [first, second, third]) == first  # all met: the nearest again
    # Top down, b-d then a-c would repeat e-f: the search pairs a with e and c with f instead.
    six = ["b", "d", "a", "c", "e", "f"]
    assert pair_round(six, [Round((("e", "f"),))]) == Round((("b", "d"), ("a", "e"), ("c", "f")))


def test_a_bye_goes_to_the_lowest_standing_model_without_one_and_rotates() -> None:
    ranked = ["a", "b", "c", "d", "e"]
    first = pair_round(ranked, [])
    assert first == Round((("a", "b"), ("c", "d")), bye="e")
    second = pair_round(ranked, [first])
    assert second == Round((("a", "c"), ("b", "e")), bye="d")  # e had one; no pair repeats
    history = [first, second]
    for _ in range(3):
        history.append(pair_round(ranked, history))
    assert sorted(r.bye or "" for r in history) == ranked  # five rounds, five different byes
    assert pair_round(ranked, history).bye == "e"  # every model has had one: the lowest again


def test_pairings_are_a_function_of_the_seed_models_and_results() -> None:
    labels = ["house", "house-sloppy", "random-legal", "house-7", "house-3", "house-5"]
    assert first_order(labels, 3) == first_order(labels, 3)
    assert sorted(first_order(labels, 3)) == sorted(labels)
    assert len({tuple(first_order(labels, seed)) for seed in range(6)}) > 1  # the seed shuffles
    history: list[Round] = []
    for _ in range(3):
        history.append(pair_round(first_order(labels, 3), history))
    again: list[Round] = []
    for _ in range(3):
        again.append(pair_round(first_order(labels, 3), again))
    assert history == again
    assert [default_rounds(n) for n in (2, 3, 4, 5, 8, 9)] == [1, 2, 2, 3, 3, 4]


def _swiss(out: Path, *more: str) -> list[str]:
    args = ["tournament", *(a for m in FOUR for a in ("--model", m)), "--design", "swiss"]
    return [*args, "--rounds", "2", "--games", "8", "--players", "5", "--out", str(out), *more]


def test_a_swiss_tournament_plays_resumes_alike_and_counts_the_same_everywhere(tmp_path: Path) -> None:
    played = CliRunner().invoke(app, [*_swiss(tmp_path), "--concurrency", "2"])
    assert played.exit_code == 0, played.output
    assert "round 1/2: 4/8 games" in played.output and "round 2/2: 8/8 games" in played.output
    assert "\n8/8 games; summary" in played.output
    (folder,) = tmp_path.glob("tournament-*")
    asked = json.loads((folder / "arena.json").read_text())
    labels = set(asked["models"])
    rounds = [[tuple(p) for p in r["pairs"]] for r in asked["pairings"]]
    assert asked["rounds"] == 2 and len(rounds) == 2
    for pairs in rounds:
        assert sorted(m for p in pairs for m in p) == sorted(labels)  # every model plays each round
    assert not {frozenset(p) for p in rounds[0]} & {frozenset(p) for p in rounds[1]}  # no pair twice
    # Round two follows the standing after round one's games, read back from their logs.
    first = [t for t in load_tournament(folder).tables if t.seed == asked["seeds"][0]]
    order = first_order([label_for(m) for m in FOUR], 0)
    assert pair_round(standing(scores(first, order), order), [Round(tuple(rounds[0]))]).pairs == tuple(
        rounds[1]
    )
    for number, seed in enumerate(asked["seeds"]):  # one deal a round: each pair both ways round
        games = {k: v for k, v in asked["seating"].items() if k.endswith(f"/seed-{seed}")}
        sides = sorted((v[0], next(m for m in v if m != v[0])) for v in games.values())
        swapped = sorted(s for a, b in rounds[number] for s in ((a, b), (b, a)))
        assert len(games) == 4 and sorted({frozenset(s) for s in sides}, key=sorted) == sorted(
            {frozenset(s) for s in swapped}, key=sorted
        )
    summary = json.loads((folder / "summary.json").read_text())
    assert (summary["played"], summary["scheduled"], summary["finished"], summary["rounds"]) == (8, 8, 8, 2)
    assert [r["pairs"] for r in summary["pairings"]] == [r["pairs"] for r in asked["pairings"]]

    logs = logs_of(folder)
    # Stopped in round two: one of its games and every checkpoint lost; the same command resumes.
    shutil.rmtree(folder / "games" / "seed-window" / "swiss-3" / "seed-1")
    (folder / "games" / "checkpoints.sqlite").unlink()
    resumed = CliRunner().invoke(app, [*_swiss(tmp_path), "--concurrency", "1"])
    assert resumed.exit_code == 0, resumed.output
    assert "round 2/2: 8/8 games" in resumed.output and "\n8/8 games; summary" in resumed.output
    again = json.loads((folder / "summary.json").read_text())
    assert (again["run"]["played"], again["run"]["skipped"]) == (1, 7)  # no game played twice
    assert logs_of(folder) == logs  # the same pairings, byte for byte the same games
    assert {k: v for k, v in again.items() if k != "run"} == {k: v for k, v in summary.items() if k != "run"}
    # Stopped between the rounds: round two neither paired nor played; it is paired again alike.
    round_two = [k for k in asked["seating"] if k.endswith(f"/seed-{asked['seeds'][1]}")]
    for game in round_two:
        shutil.rmtree(folder / "games" / game)
    (folder / "games" / "checkpoints.sqlite").unlink()
    cut = {**asked, "pairings": asked["pairings"][:1]}
    cut["seating"] = {k: v for k, v in asked["seating"].items() if k not in round_two}
    (folder / "arena.json").write_text(json.dumps(cut))
    boundary = CliRunner().invoke(app, [*_swiss(tmp_path), "--concurrency", "2", "--quiet"])
    assert boundary.exit_code == 0, boundary.output
    assert json.loads((folder / "summary.json").read_text())["run"]["played"] == 4
    assert (
        logs_of(folder) == logs
        and json.loads((folder / "arena.json").read_text())["pairings"] == asked["pairings"]
    )

    page = tmp_path / "page.html"
    report = CliRunner().invoke(app, ["tournament", "report", str(folder), "--html", str(page)])
    assert report.exit_code == 0, report.output
    standings = json.loads((folder / "report" / "standings.json").read_text())
    assert (standings["played"], standings["scheduled"], standings["design"], standings["rounds"]) == (
        8,
        8,
        "swiss",
        2,
    )
    markdown = (folder / "report" / "report.md").read_text()
    assert "8 finished games of 8" in markdown and "## Swiss rounds" in markdown
    assert f"| 1 | {rounds[0][0][0]} v {rounds[0][0][1]}" in markdown
    html = page.read_text()
    assert "8 finished games of 8" in html and 'id="swiss-rounds"' in html


@pytest.mark.parametrize(
    ("more", "message"),
    [
        (["--design", "swiss", "--rounds", "0"], "--rounds 0: must be 1 or more"),
        (["--rounds", "2"], "--rounds: only the swiss design plays rounds"),
        (["--design", "teams", "--rounds", "2"], "--rounds: only the swiss design plays rounds"),
        (
            ["--design", "swiss", "--games", "6"],
            "--games 6: each of 2 rounds plays its pairs (1 a round) both ways round on each of its "
            "deals, so give a multiple of 4 (e.g. 4 or 8)",
        ),
        (
            ["--design", "swiss", "--games", "4", "--server", "http://127.0.0.1:9", "--queue"],
            "--queue: a swiss tournament pairs each round on the results of the one before",
        ),
    ],
)
def test_a_bad_swiss_ask_is_one_line_and_exit_code_2(tmp_path: Path, more: list[str], message: str) -> None:
    args = ["tournament", "--model", "house", "--model", "random-legal", "--model", "house-sloppy"]
    result = CliRunner().invoke(app, [*args, *more, "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing written


def test_swiss_needs_two_models(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["tournament", "--model", "house", "--design", "swiss", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2 and "--model: give two or more models" in result.output, result.output
