"""Checkpoints in PostgreSQL (``--checkpoint-dsn``), as the command line names them: it plays,
lists and resumes games kept there, and a database it cannot use is one line. The checkpoint
tests that hold for every store (a game killed mid-game resumes to identical logs, a stopped run
resumes as recorded) run on PostgreSQL too through the ``store`` fixture (tests/support/stores.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes import free_port
from mafia.cli import app
from mafia.play.checkpoints import DSN_ENV
from pg_server import PgServer

runner = CliRunner()


@pytest.mark.slow
def test_play_runs_and_resume_keep_their_checkpoints_in_postgres(
    pg: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = pg.database()
    played = runner.invoke(
        app, ["play", "--seed", "1", "--quiet", "--out", str(tmp_path), "--checkpoint-dsn", dsn]
    )
    assert played.exit_code == 0, played.output
    assert f"--checkpoint-dsn '{dsn}'" in played.output, "the resume hint names the database it was given"
    assert not (tmp_path / "checkpoints.sqlite").exists()
    # A second game, with the database taken from the environment.
    monkeypatch.setenv(DSN_ENV, dsn)
    again = runner.invoke(app, ["play", "--seed", "1", "--quiet", "--out", str(tmp_path)])
    assert again.exit_code == 0 and "--checkpoint-dsn" not in again.output, "the environment's is not printed"
    listed = runner.invoke(app, ["runs", "--out", str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    states = [line.split("  ")[:2] for line in listed.output.splitlines() if not line.startswith(" ")]
    assert [thread for thread, _ in states] == ["game-7p-seed1", "game-7p-seed1-2"]
    assert all(state.startswith("finished") for _, state in states)
    log = (tmp_path / "game-7p-seed1-2" / "events.jsonl").read_bytes()
    resumed = runner.invoke(app, ["resume", "game-7p-seed1-2", "--out", str(tmp_path), "--quiet"])
    assert resumed.exit_code == 0, resumed.output
    assert (tmp_path / "game-7p-seed1-2" / "events.jsonl").read_bytes() == log, (
        "a finished game is left as it is"
    )
    missing = runner.invoke(app, ["resume", "no-such-game", "--out", str(tmp_path)])
    assert missing.exit_code == 2 and "no checkpointed game" in missing.output


@pytest.mark.parametrize(
    ("dsn", "message"),
    [
        ("host=127.0.0.1 port", "not a PostgreSQL connection string"),
        (
            "host=127.0.0.1 port={port} user=mafia connect_timeout=5",  # a port nothing listens on
            "cannot connect to the checkpoint database",
        ),
    ],
)
def test_a_database_that_cannot_be_used_is_one_line_and_exit_code_2(
    tmp_path: Path, dsn: str, message: str
) -> None:
    dsn = dsn.format(port=free_port())
    result = runner.invoke(
        app, ["play", "--seed", "1", "--quiet", "--out", str(tmp_path), "--checkpoint-dsn", dsn]
    )
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not list(tmp_path.glob("game-*")), "nothing was started"
