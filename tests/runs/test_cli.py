"""``mafia play``: a full game in the terminal, its logs and checkpoints, and clear errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes import free_port
from mafia.cli import app
from mafia.play.runner import RunLock

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

    same = runner.invoke(app, ["resume", found[1], "--out", str(tmp_path), "--quiet"])
    assert same.exit_code == 1 and "the game stopped" in same.output  # seat 4 keeps its own model
    args = ["resume", found[1], "--out", str(tmp_path), "--seat-model", "4=house:3", "--change-model"]
    resumed = runner.invoke(app, args)
    assert resumed.exit_code == 0, resumed.output
    assert "Winner:" in resumed.output
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert [json.dumps(e) for e in events[: len(before)]] == [json.dumps(json.loads(x)) for x in before]
    assert events[0]["type"] == "game_started" and events[-1]["type"] == "game_over"
    assert [e["setting"] for e in events if e["type"] == "run_changed"] == ["seat_models.4"]
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


def test_the_run_id_and_resume_command_come_before_the_first_turn(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "--seed", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    out = result.output
    command = f"mafia resume game-7p-seed2 --out {tmp_path}\n"
    assert out.index("Game game-7p-seed2: logs in") < out.index(command) < out.index("Day 1")
    again = runner.invoke(app, ["play", "--seed", "2", "--quiet", "--out", str(tmp_path)])
    assert "Game game-7p-seed2-2: logs in" in again.output


def test_runs_lists_each_game_with_its_state_and_resume_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert runner.invoke(app, ["runs", "--out", str(tmp_path)]).exit_code == 2
    (tmp_path / "checkpoints.sqlite").write_text("not a database")
    corrupt = runner.invoke(app, ["runs", "--out", str(tmp_path)])
    assert corrupt.exit_code == 2 and "is not a checkpoint file" in corrupt.output, corrupt.output
    (tmp_path / "checkpoints.sqlite").unlink()
    assert runner.invoke(app, ["play", "--seed", "1", "--quiet", "--out", str(tmp_path)]).exit_code == 0
    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    args = ["play", "--seed", "1", "--quiet", "--seat-model", "2=openai:m", "--out", str(tmp_path)]
    assert runner.invoke(app, args).exit_code == 1
    listed = runner.invoke(app, ["runs", "--out", str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert re.fullmatch(r"game-7p-seed1  finished: (town|mafia) won  \(\d+ events\)", lines[0])
    assert re.fullmatch(r"    Cost: \d+ calls, .*", lines[1])
    assert re.fullmatch(
        r"game-7p-seed1-2  stopped at (night zero|day \d+|night \d+)  \(\d+ events\)", lines[2]
    )
    assert re.fullmatch(r"    Cost: \d+ calls, .*", lines[3])
    assert lines[4].strip().endswith(f"mafia resume game-7p-seed1-2 --out {tmp_path}")
    assert len(lines) == 5


def test_resume_refuses_a_game_another_process_is_playing(tmp_path: Path) -> None:
    assert runner.invoke(app, ["play", "--seed", "1", "--quiet", "--out", str(tmp_path)]).exit_code == 0
    folder = tmp_path / "game-7p-seed1"
    before = (folder / "events.jsonl").read_bytes()
    lock = RunLock(folder)
    lock.acquire()
    try:
        busy = runner.invoke(app, ["resume", "game-7p-seed1", "--out", str(tmp_path)])
    finally:
        lock.release()
    assert busy.exit_code == 2 and "in use by another process" in busy.output, busy.output
    assert "Traceback" not in busy.output
    assert (folder / "events.jsonl").read_bytes() == before
