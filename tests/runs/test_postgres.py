"""Checkpoints in PostgreSQL (``--checkpoint-dsn``): a real server started here from Debian's
packages; a game killed with SIGKILL mid-game resumes from it to logs byte-identical to an
uninterrupted game's, and the command line plays, lists and resumes games kept there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes import free_port
from mafia.cli import app
from mafia.play.checkpoints import DSN_ENV
from pg_server import PgServer, unavailable
from test_crash_resume import crash_and_resume

runner = CliRunner()


@pytest.fixture(scope="module")
def pg() -> Iterator[PgServer]:
    reason = unavailable()
    if reason is not None:
        pytest.skip(reason)
    server = PgServer()
    try:
        yield server
    finally:
        server.stop()


def stored_checkpoints(dsn: str, thread: str) -> int:
    import psycopg

    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread,)).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.slow
def test_a_game_killed_mid_game_resumes_from_postgres_to_identical_logs(pg: PgServer, tmp_path: Path) -> None:
    dsn = pg.database()
    assert crash_and_resume(tmp_path, 3, 5, 0.0, 1, {DSN_ENV: dsn}) == 1, "the kill did not hit the game"
    assert not (tmp_path / "game" / "checkpoints.sqlite").exists(), "the game was checkpointed in SQLite"
    assert stored_checkpoints(dsn, "game-5p-seed3") > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "players", "delay", "kills"), [(4, 6, 0.0, 2), (5, 8, 0.003, 3), (6, 12, 0.0, 2)]
)
def test_games_killed_again_and_again_resume_from_postgres(
    pg: PgServer, tmp_path: Path, seed: int, players: int, delay: float, kills: int
) -> None:
    assert crash_and_resume(tmp_path, seed, players, delay, kills, {DSN_ENV: pg.database()}) >= 1


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
