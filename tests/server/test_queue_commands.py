"""``mafia arena|tournament status|collect|cancel DIR`` with the server faked: without ``--server``
they reach the server the folder's queued.json names, with it another; the options that only
mean something for queued games are refused without ``--queue``, in one line."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import mafia.arena.queued as queued
from mafia.arena.queued import QUEUE_FILE
from mafia.cli import app

runner = CliRunner()
QUEUED_ON = "http://127.0.0.1:2931"
GAME = {
    "game": "seed-window/house/seed-0",
    "thread": "t-0",
    "policy": "seed-window",
    "model": "house",
    "seed": 0,
}


class FakeServer:
    """A server holding one game whose run is still ``running``; records the URLs it was reached
    at and the runs cancelled."""

    reached: list[str]
    cancelled: list[str]

    def __init__(self) -> None:
        self.reached, self.cancelled = [], []
        state = {"values": {"events": []}, "next": ["speak"], "tasks": []}
        run = {"run_id": "r-0", "status": "running"}
        self.client = SimpleNamespace(
            runs=SimpleNamespace(
                list=lambda thread, limit: [run],
                cancel=lambda thread, run_id, wait: self.cancelled.append(run_id),
            ),
            threads=SimpleNamespace(get_state=lambda thread: state),
        )

    def games(self, url: str, uid: str) -> FakeServer:
        self.reached.append(url)
        return self


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """A queued folder (tmp_path) whose games were queued on QUEUED_ON, its server faked."""
    record = {"server": QUEUED_ON, "uid": "u", "queued_at": 0.0, "games": [GAME]}
    (tmp_path / QUEUE_FILE).write_text(json.dumps(record))
    fake = FakeServer()
    monkeypatch.setattr(queued, "ServerGames", fake.games)
    return fake


@pytest.mark.parametrize("noun", ["arena", "tournament"])
@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("status", "0/1 games finished (0 collected now), 1 running"),
        ("collect", "1 running"),
        ("cancel", "Cancelled 1 runs."),
    ],
)
def test_a_queue_command_without_server_reaches_the_server_the_games_were_queued_on(
    server: FakeServer, tmp_path: Path, noun: str, command: str, says: str
) -> None:
    result = runner.invoke(app, [noun, command, str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert says in result.output
    assert server.reached == [QUEUED_ON]
    assert server.cancelled == (["r-0"] if command == "cancel" else [])


@pytest.mark.parametrize("command", ["status", "collect", "cancel"])
def test_a_queue_command_with_server_reaches_that_one(
    server: FakeServer, tmp_path: Path, command: str
) -> None:
    other = "http://127.0.0.1:2932"
    result = runner.invoke(app, ["arena", command, str(tmp_path), "--server", other])
    assert result.exit_code == 0, result.output
    assert server.reached == [other]


def test_a_queue_command_refuses_a_server_that_is_not_a_url(server: FakeServer, tmp_path: Path) -> None:
    result = runner.invoke(app, ["arena", "status", str(tmp_path), "--server", "localhost"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --server 'localhost': give the server's http:// or https:// URL"
    ]
    assert server.reached == []


@pytest.mark.parametrize("noun", ["arena", "tournament"])
@pytest.mark.parametrize("options", [["--detach"], ["--cancel"], ["--detach", "--cancel"]])
def test_options_for_queued_games_are_refused_without_queue(
    tmp_path: Path, noun: str, options: list[str]
) -> None:
    ask = ["--games", "2", "--out", str(tmp_path), *options]
    if noun == "tournament":
        ask += ["--model", "house", "--model", "random-legal"]
    result = runner.invoke(app, [noun, *ask])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {', '.join(options)}: only with --queue"), lines
    assert not any(tmp_path.iterdir()), "a game was played"
