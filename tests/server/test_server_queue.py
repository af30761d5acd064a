"""Arenas queued on a LangGraph server with Postgres and Redis (``mafia serve``, two processes on
one database and Redis): the games are background runs that outlive the client, a killed server
process's games are taken up by the other, a cancelled game goes on from its last whole step, and
``collect`` writes every game byte-identical to the same game played locally."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_sync_client
from typer.testing import CliRunner

from arena_helpers import assert_same_logs, logs_of
from mafia.arena import run_arena
from mafia.arena.queued import QUEUE_FILE, collect
from mafia.cli import app
from mafia.tournament import run_tournament
from server_cluster import Cluster, cluster, unavailable

WHY = unavailable()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(WHY is not None, reason=f"no Postgres + Redis server here: {WHY}"),
]

ARENA: dict[str, Any] = {"players": 5, "policies": ["full-history", "seed-window"], "models": ["house:2"]}
STARTED, SUCCEEDED = "Starting background run", "Background run succeeded"
runner = CliRunner()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two server processes on one database and Redis, four games at once each."""
    with cluster(tmp_path_factory.mktemp("serve"), processes=2, workers=4) as made:
        yield made


# Generous limits: a busy two-core machine plays the 24 games of an arena in minutes.
LIMIT_S = 900


def _until(done: Callable[[], bool], what: str, limit_s: float = LIMIT_S) -> None:
    deadline = time.monotonic() + limit_s
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.2)


def _collected(arena: Path, limit_s: float = LIMIT_S, **options: Any) -> None:
    """Collect the arena's (or tournament's) games until every one has finished (none may stop);
    ``options`` go to ``collect``."""

    def all_written() -> bool:
        progress = collect(arena, **options)
        assert not progress.stopped, progress.stopped
        return progress.finished == progress.total

    _until(all_written, "every game is collected", limit_s)


def _same_as_local(arena: Path, out: Path, *, context: str = "", **ask: Any) -> None:
    local = run_arena(**ask, out=out / "local")
    assert local["finished"] == len(logs_of(arena)) // 2
    assert_same_logs(arena, out / "local" / arena.name, context)


def _mid_game(arena: Path, games: int) -> Callable[[], bool]:
    """Whether ``games`` of the arena's games have begun on the server and none has finished."""
    record = json.loads((arena / QUEUE_FILE).read_text())
    client = get_sync_client(url=record["server"])

    def begun() -> bool:
        states = [client.threads.get_state(g["thread"])["values"] for g in record["games"]]
        return sum(bool(s) for s in states) >= games

    return begun


def test_an_arena_queued_on_two_server_processes_logs_as_the_local_arena(
    servers: Cluster, tmp_path: Path
) -> None:
    ask = {**ARENA, "games": 12, "arena_id": "two"}  # 24 games
    summary = run_arena(**ask, server=servers.processes[0].url, queue=True, out=tmp_path)
    arena = tmp_path / "arena-two"
    assert summary["finished"] < 24, "queueing returned only once the games were played"
    _collected(arena)
    assert json.loads((arena / "summary.json").read_text())["finished"] == 24
    assert all(SUCCEEDED in p.log() for p in servers.processes), "a server process took no game"
    _same_as_local(arena, tmp_path, **ask)


def test_a_tournament_queued_on_the_server_logs_and_rates_as_the_local_tournament(
    servers: Cluster, tmp_path: Path
) -> None:
    ask: dict[str, Any] = {"games": 4, "players": 5, "models": ["house:1", "house:2"], "tournament_id": "cup"}
    args = ["tournament", "--games", "4", "--players", "5", "--model", "house:1", "--model", "house:2"]
    args += [
        "--id",
        "cup",
        "--out",
        str(tmp_path),
        "--server",
        servers.processes[1].url,
        "--queue",
        "--detach",
    ]
    queued_now = runner.invoke(app, args)
    assert queued_now.exit_code == 0, queued_now.output
    folder = tmp_path / "tournament-cup"
    status = runner.invoke(app, ["tournament", "status", str(folder)])  # the server from queued.json
    assert status.exit_code == 0 and "games finished" in status.output, status.output
    collected = runner.invoke(app, ["tournament", "collect", str(folder), "--wait"])
    assert collected.exit_code == 0, collected.output
    queued = json.loads((folder / "summary.json").read_text())
    local = run_tournament(**ask, out=tmp_path / "local")
    assert queued["finished"] == local["finished"] == 4
    assert_same_logs(folder, tmp_path / "local" / folder.name)
    assert len(logs_of(folder)) == 8
    assert queued["ratings"] == local["ratings"]


def test_a_cancelled_game_goes_on_from_its_last_whole_step(servers: Cluster, tmp_path: Path) -> None:
    ask = {**ARENA, "players": 8, "games": 2, "arena_id": "cut"}
    run_arena(**ask, server=servers.processes[1].url, queue=True, out=tmp_path)
    arena = tmp_path / "arena-cut"
    _until(_mid_game(arena, 4), "every game has begun")
    cancelled = runner.invoke(app, ["arena", "cancel", str(arena)])  # the server from queued.json
    assert cancelled.exit_code == 0, cancelled.output
    assert int(cancelled.output.split()[1]) >= 1, cancelled.output
    progress = collect(arena)
    assert progress.stopped, "no game was stopped by the cancel"
    run_arena(**ask, server=servers.processes[1].url, queue=True, out=tmp_path)  # queued again
    _collected(arena)
    _same_as_local(arena, tmp_path, **ask)


def test_a_client_killed_mid_arena_leaves_the_games_to_finish_and_collect_writes_them(
    servers: Cluster, tmp_path: Path
) -> None:
    # More games than the two processes take at once: some are still queued when the client dies.
    args = ["arena", "--games", "12", "--players", "8", "--policy", "seed-window", "--model", "house:2"]
    args += ["--id", "gone", "--out", str(tmp_path), "--server", servers.processes[0].url, "--queue"]
    env = {**os.environ, "LANGSMITH_TRACING": "false"}
    client = subprocess.Popen(
        [str(Path(sys.executable).parent / "mafia"), *args], env=env, stdout=subprocess.PIPE, text=True
    )
    arena = tmp_path / "arena-gone"
    _until(lambda: (arena / QUEUE_FILE).exists(), "the games are queued")
    client.send_signal(signal.SIGKILL)
    client.wait()
    progress = collect(arena, write=False)
    assert progress.finished < 12, "every game was over before the client was killed"
    assert not progress.stopped, f"games the server does not hold once the client is gone: {progress.stopped}"
    _collected(arena)
    ask: dict[str, Any] = {
        "games": 12,
        "players": 8,
        "policies": ["seed-window"],
        "models": ["house:2"],
        "arena_id": "gone",
    }
    _same_as_local(arena, tmp_path, **ask)


def _runs_of(process_log: str, event: str, threads: set[str] | None = None) -> set[str]:
    """The runs (of ``threads``, if given) whose ``event`` a server process logged."""
    return {
        line.split("'run_id': '")[1].split("'")[0]
        for line in process_log.splitlines()
        if f"'event': '{event}'" in line
        and (threads is None or line.split("'thread_id': '")[-1][:36] in threads)
    }


def test_a_server_process_killed_mid_arena_leaves_its_games_to_the_other(
    servers: Cluster, tmp_path: Path
) -> None:
    ask = {**ARENA, "players": 7, "games": 4, "arena_id": "crash"}  # 8 games
    queued_on = servers.processes[1]
    run_arena(**ask, server=queued_on.url, queue=True, out=tmp_path)
    arena = tmp_path / "arena-crash"
    threads = {str(g["thread"]) for g in json.loads((arena / QUEUE_FILE).read_text())["games"]}

    def playing() -> list[Any]:
        """The server processes in the middle of one of the arena's games."""
        return [
            p
            for p in servers.processes
            if _runs_of(p.log(), STARTED, threads) - _runs_of(p.log(), SUCCEEDED, threads)
        ]

    _until(lambda: bool(playing()), "a server process plays one of the arena's games")
    busy = playing()
    doomed = queued_on if queued_on in busy else busy[0]  # the one queued on, where it plays
    servers.crash(doomed)  # SIGKILL; another process takes its place for the tests after this one
    lost = _runs_of(doomed.log(), STARTED, threads) - _runs_of(doomed.log(), SUCCEEDED, threads)
    _collected(arena, server=servers.processes[0].url)  # a survivor: every process holds every game
    swept = set().union(*(_runs_of(p.log(), "Swept stale run") for p in servers.processes))
    assert lost and lost <= swept, f"runs of the killed process never taken up: {lost - swept}"
    _same_as_local(arena, tmp_path, context=_taken_up(arena, doomed.log(), lost), **ask)


def _taken_up(arena: Path, killed_log: str, lost: set[str]) -> str:
    """The games whose runs the killed process left unfinished (for a failure's message)."""
    threads = {
        line.split("'thread_id': '")[1][:36]
        for line in killed_log.splitlines()
        if f"'event': '{STARTED}'" in line and line.split("'run_id': '")[1].split("'")[0] in lost
    }
    games = json.loads((arena / QUEUE_FILE).read_text())["games"]
    playing = sorted(str(g["game"]) for g in games if g["thread"] in threads)
    return f"games the killed process was playing: {playing}"
