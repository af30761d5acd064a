"""Games on a server that survive its infrastructure, with the server faked: which ended runs the
keeper takes up again (a lost PostgreSQL or Redis connection, a worker killed again and again) and
which it leaves (the game's own error, or past the bound); ``status`` counting such a game as being
taken up, and naming the component that is down when the server can only answer 500."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import ConflictError
from typer.testing import CliRunner

import mafia.arena.queued as queued
from mafia.arena.queued import QUEUE_FILE, collect
from mafia.cli import app
from mafia.commands.faults import MAX_TAKE_UPS, POSTGRES, REDIS, RUN_METADATA, WORKER, component_of, fault_of
from mafia.commands.server_app import take_up_games

runner = CliRunner()
GAME = {
    "game": "seed-window/house/seed-0",
    "thread": "t-0",
    "policy": "seed-window",
    "model": "house",
    "seed": 0,
}
LOST_REDIS = {"error": "ConnectionError", "message": "An internal error occurred"}
LOST_PG = {"error": "OperationalError", "message": "An internal error occurred"}
OWN = {"error": "APIConnectionError", "message": "the model provider does not answer"}
SETUP = {"setup": {"seed": 3}}


def _runs(errors: int, latest: str = "error") -> list[dict[str, Any]]:
    """A game's runs, newest first: ``latest``, then ``errors`` - 1 (or ``errors``) errored ones."""
    older = errors - 1 if latest == "error" else errors
    newest = {"status": latest, "kwargs": {"context": {"policy": "p"}}, "metadata": RUN_METADATA}
    first = {"status": "error", "kwargs": {"input": SETUP}}
    return [newest] + [{"status": "error"}] * (older - 1) + [first] * min(older, 1)


@pytest.mark.parametrize(
    ("error", "component"),
    [
        (LOST_REDIS, REDIS),
        (LOST_PG, POSTGRES),
        ({"error": "AdminShutdown"}, POSTGRES),
        (None, WORKER),
        (OWN, None),
    ],
)
def test_the_component_at_fault_is_named_from_the_error_the_server_recorded(
    error: dict[str, str] | None, component: str | None
) -> None:
    assert component_of(error) == component


def test_a_fault_is_taken_up_within_the_bound_and_left_past_it() -> None:
    first = fault_of(_runs(1), LOST_REDIS)
    assert first is not None and first.taken_up and first.retry == 1
    assert "ended by Redis; taken up again (retry 1 of" in first.line()
    last = fault_of(_runs(MAX_TAKE_UPS), LOST_PG)
    assert last is not None and last.taken_up
    past = fault_of(_runs(MAX_TAKE_UPS + 1), LOST_PG)
    assert past is not None and not past.taken_up and "queue it again" in past.line()
    assert fault_of(_runs(1), OWN) is None, "a game's own error is the user's to see"
    assert fault_of(_runs(2, latest="success"), LOST_REDIS) is None, "only a latest run that failed"
    streamed = [{**_runs(1)[0], "metadata": {}}]
    assert fault_of(streamed, LOST_REDIS) is None, "a game streamed to a client is the client's"


class FakeAsyncServer:
    """Threads as the server lists them (in error unless ``idle`` names them, with the winner of
    each game over in ``won``); records the runs created; ``conflict`` makes every create fail as
    when another process's keeper was first."""

    def __init__(
        self,
        threads: dict[str, tuple[dict[str, Any] | None, list[dict[str, Any]]]],
        conflict: bool = False,
        idle: frozenset[str] = frozenset(),
        won: frozenset[str] = frozenset(),
    ):
        self.created: list[tuple[str, Any, Any, str]] = []
        whole: dict[str, dict[str, Any]] = {
            tid: {
                "thread_id": tid,
                "metadata": {"game": f"g/{tid}"},
                "status": "idle" if tid in idle else "error",
                "error": error,
                "values": {"winner": "town" if tid in won else None},
            }
            for tid, (error, _) in threads.items()
        }
        listed: list[dict[str, Any]] = [
            *whole.values(),
            {"thread_id": "not-a-game", "metadata": {}, "status": "error", "error": LOST_REDIS},
        ]

        async def search(
            status: str,
            limit: int,
            offset: int,
            select: list[str] | None = None,
            extract: dict[str, str] | None = None,
        ) -> list[dict[str, Any]]:
            found = [thread for thread in listed if thread["status"] == status][offset : offset + limit]
            if select is not None:  # as the server does: "error" is not a field one can select
                found = [{key: thread[key] for key in select} for thread in found]
            if extract is not None:
                assert extract == {"winner": "values.winner"}
                found = [
                    {**t, "extracted": {"winner": whole[t["thread_id"]]["values"]["winner"]}} for t in found
                ]
            return found

        async def get(thread_id: str) -> dict[str, Any]:
            return whole[thread_id]

        async def runs_list(thread_id: str, limit: int) -> list[dict[str, Any]]:
            return threads[thread_id][1]

        async def get_state(thread_id: str) -> dict[str, Any]:
            """A game's state; one whose first run ended before any step was saved has none."""
            return {"values": {} if thread_id.startswith("unbegun") else {"events": []}}

        async def create(
            thread_id: str, graph: str, input: Any, context: Any, multitask_strategy: str, metadata: Any
        ) -> None:
            assert metadata == RUN_METADATA, "a new run is marked as queued, for the next fault"
            if conflict:
                request = httpx.Request("POST", "http://127.0.0.1:1/runs")
                raise ConflictError("busy", response=httpx.Response(409, request=request), body=None)
            self.created.append((thread_id, input, context, multitask_strategy))

        self.client = SimpleNamespace(
            threads=SimpleNamespace(search=search, get=get, get_state=get_state),
            runs=SimpleNamespace(list=runs_list, create=create),
        )


def test_the_keeper_starts_one_run_from_the_last_checkpoint_for_each_game_a_fault_ended() -> None:
    server = FakeAsyncServer(
        {
            "redis": (LOST_REDIS, _runs(1)),
            "pg": (LOST_PG, _runs(2)),
            "killed": (None, _runs(1)),
            "own": (OWN, _runs(1)),
            "worn": (LOST_REDIS, _runs(MAX_TAKE_UPS + 1)),
            "unbegun": (LOST_REDIS, _runs(2)),
        }
    )
    started = asyncio.run(take_up_games(server.client))  # type: ignore[arg-type]
    assert started == 4
    goes_on = [(t, None, {"policy": "p"}, "reject") for t in ("redis", "pg", "killed")]
    assert server.created == [*goes_on, ("unbegun", SETUP, {"policy": "p"}, "reject")], (
        "a game with no step saved starts again from its first run's setup"
    )


def test_the_keeper_takes_up_a_game_a_fault_ended_whose_thread_shows_idle() -> None:
    """After a PostgreSQL restart, a run that failed on a dead pooled connection was seen ended in
    error with its thread idle (its error recorded): its game is taken up all the same, while an
    idle game that is over or was not ended by a fault is left as it is."""
    server = FakeAsyncServer(
        {
            "idle-pg": (LOST_PG, _runs(2)),
            "over": (None, _runs(1, latest="success")),
            "over-after-fault": (LOST_PG, _runs(1)),
            "cancelled": (None, _runs(1, latest="interrupted")),
            "own": (OWN, _runs(1)),
        },
        idle=frozenset({"idle-pg", "over", "over-after-fault", "cancelled", "own"}),
        won=frozenset({"over", "over-after-fault"}),
    )
    assert asyncio.run(take_up_games(server.client)) == 1  # type: ignore[arg-type]
    assert server.created == [("idle-pg", None, {"policy": "p"}, "reject")]


def test_a_game_another_keeper_took_up_first_is_not_counted() -> None:
    server = FakeAsyncServer({"redis": (LOST_REDIS, _runs(1))}, conflict=True)
    assert asyncio.run(take_up_games(server.client)) == 0  # type: ignore[arg-type]


def _queued_folder(folder: Path, url: str) -> None:
    record = {"server": url, "uid": "u", "queued_at": 0.0, "games": [GAME]}
    (folder / QUEUE_FILE).write_text(json.dumps(record))


@pytest.mark.parametrize(("errors", "taken_up"), [(1, 1), (MAX_TAKE_UPS + 1, 0)])
def test_status_counts_a_game_a_fault_ended_as_being_taken_up_until_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, errors: int, taken_up: int
) -> None:
    _queued_folder(tmp_path, "http://127.0.0.1:1")
    state = {"values": {"events": []}, "next": ["speak"], "tasks": []}
    client = SimpleNamespace(
        runs=SimpleNamespace(list=lambda thread, limit: _runs(errors)),
        threads=SimpleNamespace(get_state=lambda thread: state, get=lambda thread: {"error": LOST_REDIS}),
    )
    monkeypatch.setattr(queued, "_server_games", lambda record, server: SimpleNamespace(client=client))
    progress = collect(tmp_path, write=False)
    assert progress.taken_up == taken_up
    assert len(progress.stopped) == 1 - taken_up
    if taken_up:
        assert "1 being taken up again after a server fault" in progress.line()
    else:
        assert "ended by Redis 6 times; queue it again" in progress.stopped[str(GAME["game"])]


@pytest.fixture
def failing_server() -> Iterator[tuple[str, dict[str, str | None]]]:
    """A server on 127.0.0.1 that answers every API request with 500, as a LangGraph server with its
    database down does, and its health check with ``health`` (set by the test)."""
    health: dict[str, str | None] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            ok = self.path == "/mafia/health" and bool(health)
            body = json.dumps(health).encode() if ok else b'{"detail": "Not Found"}'
            self.send_response(200 if ok else 404 if self.path == "/mafia/health" else 500)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", health
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@pytest.mark.parametrize("component", ["PostgreSQL", "Redis"])
def test_status_names_the_component_that_is_down(
    tmp_path: Path, failing_server: tuple[str, dict[str, str | None]], component: str
) -> None:
    url, health = failing_server
    health.update({"PostgreSQL": None, "Redis": None, component: "connection refused"})
    _queued_folder(tmp_path, url)
    result = runner.invoke(app, ["arena", "status", str(tmp_path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert f"answers, but its {component} is down (connection refused)" in lines[0]
    assert "500" not in lines[0]


def test_status_says_the_server_fails_when_it_cannot_say_why(
    tmp_path: Path, failing_server: tuple[str, dict[str, str | None]]
) -> None:
    url, _ = failing_server  # no health check: another server than mafia serve
    _queued_folder(tmp_path, url)
    result = runner.invoke(app, ["arena", "status", str(tmp_path)])
    assert result.exit_code == 2
    assert f"the server at {url} fails (" in result.output and "is down" not in result.output


def test_status_says_no_server_answers_when_none_does(tmp_path: Path) -> None:
    from fakes import free_port

    _queued_folder(tmp_path, f"http://127.0.0.1:{free_port()}")
    result = runner.invoke(app, ["arena", "status", str(tmp_path)])
    assert result.exit_code == 2
    assert (
        result.output.strip().splitlines()[0].startswith(f"error: {tmp_path}: no server answers at http://")
    )


def test_following_the_games_waits_out_a_server_in_trouble(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fakes import free_port
    from mafia.arena import cli as arena_cli

    _queued_folder(tmp_path, f"http://127.0.0.1:{free_port()}")
    looks: list[int] = []

    def look(folder: Path, **options: Any) -> queued.Progress:
        looks.append(1)
        if len(looks) < 3:  # down for two looks, then back with every game over
            raise httpx.ConnectError("refused")
        return queued.Progress(total=1, finished=1)

    monkeypatch.setattr(queued, "collect", look)
    monkeypatch.setattr(arena_cli, "FOLLOW_S", 0.0)
    result = runner.invoke(app, ["arena", "collect", str(tmp_path), "--wait"])
    assert result.exit_code == 0, result.output
    assert result.output.count("no server answers at") == 1, "the same trouble is said once"
    assert "1/1 games finished" in result.output
    assert len(looks) == 3


@pytest.mark.slow
def test_status_names_postgres_while_the_real_server_has_it_down(tmp_path: Path) -> None:
    from mafia.arena import run_arena
    from server_cluster import cluster, unavailable

    if (why := unavailable()) is not None:
        pytest.skip(f"no Postgres + Redis server here: {why}")
    with cluster(tmp_path / "serve", processes=1, workers=1) as made:
        run_arena(games=1, players=5, arena_id="down", server=made.processes[0].url, queue=True, out=tmp_path)
        made.pg.halt()
        try:
            result = runner.invoke(app, ["arena", "status", str(tmp_path / "arena-down")])
        finally:
            made.pg.start()
        back = runner.invoke(app, ["arena", "status", str(tmp_path / "arena-down")])
    assert result.exit_code == 2, result.output
    assert "answers, but its PostgreSQL is down" in result.output and "Redis" not in result.output
    assert back.exit_code == 0 and "games finished" in back.output, back.output
