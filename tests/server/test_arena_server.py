"""Arena games played as threads on a local ``langgraph dev`` server: four at once, with logs
byte-identical to the same games played in this process, and a stopped arena resumed there."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph_sdk import get_sync_client

from arena_helpers import assert_same_logs, logs_of, run_stopped
from langgraph_server import langgraph_dev
from mafia.arena import run_arena
from mafia.arena.game import ArenaStopped, GameTally
from mafia.arena.server import RESTREAMS, ServerGames, ServerRunError
from mafia.arena.spec import ArenaError

ARENA: dict[str, Any] = {
    "games": 2,
    "players": 6,
    "policies": ["full-history", "seed-window"],
    "models": ["house:2"],
    "concurrency": 4,
    "arena_id": "srv",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the module, running four games at once."""
    with langgraph_dev(tmp_path_factory.mktemp("langgraph_dev"), jobs=4) as url:
        yield url


def _timeless(pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in pair.items() if k != "wall_s_per_game"} for pair in pairs]


def _interval(run: Mapping[str, Any]) -> tuple[datetime, datetime]:
    return datetime.fromisoformat(run["created_at"]), datetime.fromisoformat(run["updated_at"])


@pytest.mark.slow
def test_four_games_at_once_on_a_server_log_as_local_runs(server: str, tmp_path: Path) -> None:
    summary = run_arena(**ARENA, server=server, out=tmp_path / "server")
    assert summary["finished"] == 4 and summary["run"]["server"] == server
    arena = tmp_path / "server" / "arena-srv"
    local = run_arena(**ARENA, out=tmp_path / "local")
    assert _timeless(local["by_pair"]) == _timeless(summary["by_pair"])  # the same results
    server_logs = logs_of(arena)
    assert len(server_logs) == 8 and server_logs == logs_of(tmp_path / "local" / "arena-srv")

    client = get_sync_client(url=server)
    games = ServerGames(server, json.loads((arena / "arena.json").read_text())["uid"])
    runs = []
    for folder in sorted(arena.glob("games/*/*/seed-*")):
        thread = games.thread_for_id(str(folder.relative_to(arena / "games")))
        (run,) = client.runs.list(thread)
        assert run["status"] == "success"
        runs.append(_interval(run))
    assert max(start for start, _ in runs) < min(end for _, end in runs)  # all four ran at once


@pytest.mark.slow
def test_a_stopped_arena_resumes_on_the_server(server: str, tmp_path: Path) -> None:
    arena = tmp_path / "arena-srv"
    first = run_stopped(arena, 1500, **{**ARENA, "players": 10}, server=server, out=tmp_path)
    assert len(first["run"]["unfinished"]) == 4, first["run"]  # none had finished

    second = run_arena(**{**ARENA, "players": 10}, server=server, out=tmp_path)
    assert second["finished"] == 4 and not second["run"]["unfinished"], (second["run"], second["finished"])
    run_arena(**{**ARENA, "players": 10}, out=tmp_path / "local")
    assert_same_logs(arena, tmp_path / "local" / "arena-srv")


@pytest.mark.slow
def test_a_server_needs_models_it_can_build(server: str, tmp_path: Path) -> None:
    from mafia.models.house import HouseModel

    with pytest.raises(ArenaError, match=r"--server: model 'HouseModel' is a Python object"):
        run_arena(games=1, players=5, models=[HouseModel(seed=0)], server=server, out=tmp_path)
    assert not any(tmp_path.iterdir())


class _Thread:
    """A server's answers about one thread whose runs end early ``early`` times, then finish."""

    def __init__(self, early: int) -> None:
        self.early, self.settled = early, 0
        self.streams: list[Any] = []
        self.threads = SimpleNamespace(
            get_state=lambda thread: {"next": ["day_start"], "values": {"step": "x"}}
        )
        self.runs = SimpleNamespace(list=lambda thread, limit: [{"status": "interrupted"}])

    def stream(self, start: Any) -> dict[str, Any]:
        self.streams.append(start)
        return {"winner": "town"} if len(self.streams) > self.early else {"step": "x"}


def _games_on(thread: _Thread, monkeypatch: pytest.MonkeyPatch) -> ServerGames:
    games = ServerGames.__new__(ServerGames)
    games.client = thread  # type: ignore[assignment]
    monkeypatch.setattr(games, "_settle", lambda thread_id: setattr(thread, "settled", thread.settled + 1))
    return games


def test_a_run_that_ends_early_goes_on_from_its_checkpoint_and_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    thread = _Thread(early=RESTREAMS)
    games = _games_on(thread, monkeypatch)
    final = games._play_out(
        thread.stream, "full-history/house/seed-0", "t", {"setup": 1}, GameTally(threading.Event())
    )
    assert final == {"winner": "town"}
    assert thread.streams == [{"setup": 1}, None, None] and thread.settled == RESTREAMS
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == RESTREAMS and "seed-0: the server's run ended before the game did" in warnings[0]


def test_a_run_that_keeps_ending_early_leaves_the_game_unfinished(monkeypatch: pytest.MonkeyPatch) -> None:
    thread = _Thread(early=RESTREAMS + 1)
    games = _games_on(thread, monkeypatch)
    with pytest.raises(
        ServerRunError, match=r"ended before the game did \(runs, newest first: \['interrupted'\]\)"
    ):
        games._play_out(thread.stream, "g", "t", None, GameTally(threading.Event()))
    assert len(thread.streams) == RESTREAMS + 1
    stopped = threading.Event()
    stopped.set()
    with pytest.raises(ArenaStopped):  # a stop asked for is not answered with another run
        again = _Thread(early=1)
        _games_on(again, monkeypatch)._play_out(again.stream, "g", "t", None, GameTally(stopped))
