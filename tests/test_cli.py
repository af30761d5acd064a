"""``mafia play``: a full game in the terminal, its logs and checkpoints, and clear errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes import free_port
from mafia.cli import app

runner = CliRunner()


def test_play_shows_the_game_and_writes_logs(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "--seed", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Day 1" in out and "Game over" in out and "Winner:" in out
    assert "Vote" in out or "no vote" in out
    folder = tmp_path / "game-7p-seed2"
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert events[0]["type"] == "game_started" and events[-1]["type"] == "game_over"
    assert (folder / "prompts.jsonl").stat().st_size > 0
    assert (tmp_path / "checkpoints.sqlite").exists()


def test_reveal_shows_private_actions_and_quiet_hides_the_day(tmp_path: Path) -> None:
    revealed = runner.invoke(
        app, ["play", "--seed", "3", "--reveal", "--no-checkpoint", "--out", str(tmp_path)]
    )
    assert revealed.exit_code == 0, revealed.output
    assert "(mafia" in revealed.output and "(doctor)" in revealed.output
    quiet = runner.invoke(app, ["play", "--seed", "3", "--quiet", "--no-checkpoint", "--out", str(tmp_path)])
    assert quiet.exit_code == 0
    assert "Day 1" not in quiet.output and "Winner:" in quiet.output
    assert "(mafia" not in quiet.output


def test_seat_models_and_roles(tmp_path: Path) -> None:
    args = ["play", "--players", "10", "--roles", "mafia=3,doctor=0", "--seat-model", "3=house:9"]
    result = runner.invoke(app, [*args, "--no-checkpoint", "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "3 Mafia" in result.output and "0 Doctor" in result.output


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--players", "4"], "players: must be between 5 and 16"),
        (["--players", "17"], "players: must be between 5 and 16"),
        (["--roles", "mafia=4"], "roles.mafia"),
        (["--roles", "werewolf=1"], "--roles"),
        (["--roles", "mafia"], "--roles"),
        (["--seat-model", "3"], "--seat-model"),
        (["--model", "nonsense"], "model 'nonsense'"),
        (["--model", "openai:gpt-4o-mini"], "OPENAI_API_KEY"),
        (["--names", "Ann,Ann,Bo,Cy,Di,Ed,Flo"], "names: names must be unique"),
        (["--round-cap", "0"], "round_cap"),
    ],
)
def test_bad_settings_exit_with_a_message_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], needle: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, ["play", *args, "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert needle in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "checkpoints.sqlite").exists()


def test_a_provider_outage_stops_with_a_message_and_the_game_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    args = ["play", "--seed", "3", "--seat-model", "4=openai:test-model", "--out", str(tmp_path)]
    stopped = runner.invoke(app, args)
    assert stopped.exit_code == 1, stopped.output
    assert "the game stopped" in stopped.output and "Traceback" not in stopped.output
    found = re.search(r"mafia resume\s+(\S+)", stopped.output)
    assert found is not None, stopped.output
    folder = tmp_path / "game-7p-seed3"
    before = (folder / "events.jsonl").read_text().splitlines()
    assert before and '"game_over"' not in before[-1]

    resumed = runner.invoke(app, ["resume", found[1], "--out", str(tmp_path), "--model", "house:3"])
    assert resumed.exit_code == 0, resumed.output
    assert "Winner:" in resumed.output
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert [json.dumps(e) for e in events[: len(before)]] == [json.dumps(json.loads(x)) for x in before]
    assert events[0]["type"] == "game_started" and events[-1]["type"] == "game_over"
    prompts = [json.loads(line) for line in (folder / "prompts.jsonl").read_text().splitlines()]
    thoughts = [e for e in events if e["type"] == "thought"]
    assert sorted(p["id"] for p in prompts) == sorted(
        f"{t['round']}:{t['action']}:{t['player']}" for t in thoughts
    )


def test_resume_names_what_is_missing(tmp_path: Path) -> None:
    no_db = runner.invoke(app, ["resume", "game-7p-seed0-abc", "--out", str(tmp_path)])
    assert no_db.exit_code == 2 and "no checkpoints at" in no_db.output
    assert runner.invoke(app, ["play", "--seed", "1", "--quiet", "--out", str(tmp_path)]).exit_code == 0
    unknown = runner.invoke(app, ["resume", "nope", "--out", str(tmp_path)])
    assert unknown.exit_code == 2 and "no checkpointed game with thread id 'nope'" in unknown.output
