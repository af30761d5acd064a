"""``collect`` on a queued arena, its server faked: a game is written only once its newest run
has ended (a thread's runs are listed newest first)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import mafia.arena.queued as queued
from mafia.arena.queued import QUEUE_FILE, collect

GAME = {
    "game": "seed-window/house/seed-0",
    "thread": "t-0",
    "policy": "seed-window",
    "model": "house",
    "seed": 0,
}


def _server(*statuses: str) -> Any:
    """A server whose one game's state shows its winner and no next step, and whose runs of it
    have ``statuses``, listed newest first as a LangGraph server lists a thread's runs."""
    state = {"values": {"winner": "town", "events": [], "prompts": []}, "next": [], "tasks": []}
    runs = [
        {"status": status, "created_at": f"2026-01-01T00:{59 - age:02d}:00+00:00"}
        for age, status in enumerate(statuses)
    ]
    client = SimpleNamespace(
        runs=SimpleNamespace(list=lambda thread, limit: runs),
        threads=SimpleNamespace(get_state=lambda thread: state),
    )
    return SimpleNamespace(client=client)


def _queued(folder: Path) -> None:
    record = {"server": "http://127.0.0.1:1", "uid": "u", "queued_at": 0.0, "games": [GAME]}
    (folder / QUEUE_FILE).write_text(json.dumps(record))


@pytest.mark.parametrize(("status", "finished", "running"), [("running", 0, 1), ("success", 1, 0)])
def test_a_game_whose_run_still_plays_is_not_collected_though_its_state_shows_a_winner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, status: str, finished: int, running: int
) -> None:
    # Measured on a loaded server: the state showed the winner before it held the last step's
    # events, and the log written from it lacked its game_over.
    _queued(tmp_path)
    monkeypatch.setattr(queued, "_server_games", lambda record, server: _server(status))
    progress = collect(tmp_path, write=False)
    assert (progress.finished, progress.running) == (finished, running)


@pytest.mark.parametrize(
    ("statuses", "where"),
    [
        (("running", "error"), "running"),  # resumed after its first run failed: still playing
        (("pending", "success", "interrupted"), "queued"),
        (("success", "running"), "finished"),  # an old run's record never ended; the newest did
    ],
    ids=["resumed-running", "requeued-pending", "ended-after-a-stale-run"],
)
def test_a_game_stands_where_its_newest_run_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, statuses: tuple[str, ...], where: str
) -> None:
    """A game played by more than one run (a resumed or retried one) is read by its newest run,
    whatever its older runs ended as."""
    _queued(tmp_path)
    monkeypatch.setattr(queued, "_server_games", lambda record, server: _server(*statuses))
    progress = collect(tmp_path, write=False)
    stood = {
        "finished": progress.finished,
        "running": progress.running,
        "queued": progress.queued,
        "stopped": len(progress.stopped),
    }
    assert stood == {name: int(name == where) for name in stood}
