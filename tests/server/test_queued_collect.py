"""``collect`` on a queued arena, its server faked: a game is written only once its run has ended."""

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


def _server(status: str) -> Any:
    """A server whose one game's state shows its winner and no next step, and whose latest run of
    it has ``status``."""
    state = {"values": {"winner": "town", "events": [], "prompts": []}, "next": [], "tasks": []}
    client = SimpleNamespace(
        runs=SimpleNamespace(list=lambda thread, limit: [{"status": status}]),
        threads=SimpleNamespace(get_state=lambda thread: state),
    )
    return SimpleNamespace(client=client)


@pytest.mark.parametrize(("status", "finished", "running"), [("running", 0, 1), ("success", 1, 0)])
def test_a_game_whose_run_still_plays_is_not_collected_though_its_state_shows_a_winner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, status: str, finished: int, running: int
) -> None:
    # Measured on a loaded server: the state showed the winner before it held the last step's
    # events, and the log written from it lacked its game_over.
    record = {"server": "http://127.0.0.1:1", "uid": "u", "queued_at": 0.0, "games": [GAME]}
    (tmp_path / QUEUE_FILE).write_text(json.dumps(record))
    monkeypatch.setattr(queued, "_server_games", lambda record, server: _server(status))
    progress = collect(tmp_path, write=False)
    assert (progress.finished, progress.running) == (finished, running)
