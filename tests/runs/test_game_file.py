"""The TOML game file: the checked-in example plays, options on the command line override the
file, and seat entries take the settings of [model] they do not set."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mafia.cli import app, resume_command
from mafia.models.settings import ModelSettings
from mafia.run.game_file import load_game_file, parse_game_file
from repo import EXAMPLES

runner = CliRunner()
EXAMPLE = EXAMPLES / "game.toml"


def test_the_example_file_loads_and_plays_with_the_house_model(tmp_path: Path) -> None:
    file = load_game_file(EXAMPLE)
    assert file.model == ModelSettings(model="house:7")
    assert file.seats == {"3": ModelSettings(model="house:3")}
    result = runner.invoke(app, ["play", "--config", str(EXAMPLE), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    events = [json.loads(x) for x in (tmp_path / "game-8p-seed7" / "events.jsonl").read_text().splitlines()]
    assert events[0]["players"] == ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal"]
    assert events[-1]["type"] == "game_over"


def test_options_on_the_command_line_override_the_file(tmp_path: Path) -> None:
    game = tmp_path / "game.toml"
    game.write_text(f'seed = 7\nplayers = 6\nquiet = true\nout = "{tmp_path / "from-file"}"\n')
    quiet = runner.invoke(app, ["play", "--config", str(game), "--no-checkpoint"])
    assert quiet.exit_code == 0, quiet.output
    assert "Day 1" not in quiet.output and (tmp_path / "from-file" / "game-6p-seed7").is_dir()
    loud = runner.invoke(
        app, ["play", "--config", str(game), "--seed", "2", "--no-quiet", "--out", str(tmp_path / "flag")]
    )
    assert loud.exit_code == 0, loud.output
    assert "Day 1" in loud.output and (tmp_path / "flag" / "game-6p-seed2").is_dir()


def test_names_in_the_file_set_the_table_size(tmp_path: Path) -> None:
    game = tmp_path / "game.toml"
    game.write_text('names = ["A", "B", "C", "D", "E", "F"]\n')
    result = runner.invoke(app, ["play", "--config", str(game), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "game-6p-seed0").is_dir()


def test_seat_entries_take_the_default_settings_they_do_not_set() -> None:
    data = {
        "model": {"model": "openai:big", "base_url": "http://127.0.0.1:9/v1", "temperature": 0.5},
        "seats": {"3": {"temperature": 0.1}, "Ann": "openai:small"},
    }
    file = parse_game_file(data, Path("game.toml"))
    base = "http://127.0.0.1:9/v1"
    assert file.seats["3"] == ModelSettings(model="openai:big", temperature=0.1, base_url=base)
    assert file.seats["Ann"] == ModelSettings(model="openai:small", temperature=0.5, base_url=base)


def test_a_resume_hint_needs_only_the_run_and_its_folder(tmp_path: Path) -> None:
    # The run records its models, people and policy (a game file's too): the hint names no model.
    hint = resume_command("t-1", tmp_path)
    assert hint.endswith(f"mafia resume t-1 --out {tmp_path}")
    assert resume_command("t-1", tmp_path, "host=db").endswith(f"--out {tmp_path} --checkpoint-dsn host=db")
