"""A run keeps its seats: a resume giving a seat another model (a house variant included) or a
person where there was a model is refused, as a differing policy is, through the command line,
Python and the graph the SDK drives; and a single-valued option given twice is refused in one line
rather than silently taking the last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from typer.testing import CliRunner

from mafia.cli import app
from mafia.graph import compile_graph
from mafia.play.runner import RECURSION_LIMIT, resume_game, run_game
from mafia.run.record import RunMismatch

runner = CliRunner()
GAME = {"seed": 1, "players": 5, "round_cap": 2}


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--seat-model", "2=random-legal"], "'random-legal'"),
        (["--seat-model", "2=house-sloppy:1"], "'house-sloppy:1'"),
        (["--seat-model", "Player 2=house:9"], "'house:9'"),
        (["--human", "2"], "'human'"),
    ],
    ids=["variant", "sloppy", "by-name", "human"],
)
def test_a_cli_resume_with_a_differing_seat_is_refused(tmp_path: Path, flags: list[str], named: str) -> None:
    out = ["--out", str(tmp_path)]
    played = runner.invoke(app, ["play", "--seed", "1", "--players", "5", "--quiet", *out])
    assert played.exit_code == 0, played.output
    run = tmp_path / "game-5p-seed1"
    before = (run / "run.json").read_bytes()
    refused = runner.invoke(app, ["resume", run.name, *out, *flags, "--quiet"])
    assert refused.exit_code == 2, refused.output
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "--seat-model 2" in refused.stderr and named in refused.stderr
    assert "--change-model" in refused.stderr
    assert (run / "run.json").read_bytes() == before  # nothing rewritten
    same = runner.invoke(app, ["resume", run.name, *out, "--seat-model", "2=house", "--quiet"])
    assert same.exit_code == 0, same.output


def test_a_python_resume_with_a_differing_seat_is_refused() -> None:
    saver = InMemorySaver()
    run_game(GAME, seat_models={"2": "house:4"}, checkpointer=saver, thread_id="t")
    for seat, spec in (("2", "random-legal:4"), ("2", "house:5"), ("3", "house-sloppy")):
        with pytest.raises(RunMismatch, match=rf"seat_models\.{seat}: the run was started with"):
            resume_game("t", checkpointer=saver, seat_models={"2": "house:4", seat: spec})
    assert resume_game("t", checkpointer=saver, seat_models={"2": "house:4"})["winner"] is not None


def test_the_graph_the_sdk_drives_refuses_a_differing_seat_on_resume() -> None:
    game = compile_graph(checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": "table"}, "recursion_limit": RECURSION_LIMIT}
    out = game.invoke({"setup": {"seed": 2, "players": 5}}, cfg, context={"seat_models": {"3": "human"}})
    assert "__interrupt__" in out
    refused = r"seat_models\.2: the run was started with 'house'; got 'random-legal'"
    with pytest.raises(RunMismatch, match=refused):
        game.invoke(Command(resume="x"), cfg, context={"seat_models": {"3": "human", "2": "random-legal"}})


@pytest.mark.parametrize(
    "args",
    [
        ["play", "--policy", "layered", "--policy", "full-history"],
        ["play", "--seed", "1", "--seed=2"],
        ["play", "--model", "house", "--players", "5", "--model", "house:2"],
        ["resume", "x", "--max-retries", "1", "--max-retries", "2"],
        ["runs", "--out", "a", "--out", "b"],
    ],
    ids=["policy", "seed", "model", "retries", "out"],
)
def test_a_repeated_single_valued_option_is_refused_in_one_line(tmp_path: Path, args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    option = next(a.partition("=")[0] for a in args if a.startswith("--"))
    assert line.startswith("error: ") and f"{option} was given twice" in line, line


def test_repeatable_options_may_repeat(tmp_path: Path) -> None:
    args = ["play", "--seed", "1", "--players", "5", "--quiet", "--out", str(tmp_path)]
    result = runner.invoke(app, [*args, "--seat-model", "2=house:1", "--seat-model", "3=house:2"])
    assert result.exit_code == 0, result.output
