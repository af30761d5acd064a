"""A slow model call is announced: after two seconds without an answer the live view says who is
thinking, with which model and for how long, and says it again at longer waits."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mafia.cli import app
from mafia.commands.waiting import due_notices
from mafia.models.factory import CallInFlight
from fakes.openai_server import openai_server


def test_notices_come_at_two_seconds_then_at_longer_waits() -> None:
    calls = [CallInFlight("Player 3", "openai:gpt-4o-mini", 100.0)]
    told: dict[tuple[str, float], int] = {}
    assert due_notices(calls, 101.9, told) == []
    assert due_notices(calls, 102.0, told) == ["Player 3 is thinking (openai:gpt-4o-mini): 2 s so far"]
    assert due_notices(calls, 109.0, told) == []
    assert due_notices(calls, 110.0, told) == ["Player 3 is thinking (openai:gpt-4o-mini): 10 s so far"]
    assert due_notices([], 111.0, told) == [] and told == {}


def test_play_says_who_is_thinking_during_a_slow_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = threading.Lock()

    def slow_first(body: dict[str, object]) -> bool:
        if first.acquire(blocking=False):  # the first request is answered after three seconds
            time.sleep(3.0)
        return False

    with openai_server(hang=slow_first) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "unused")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        args = ["play", "--seed", "2", "--players", "5", "--round-cap", "1", "--model", "openai:slow-one"]
        result = CliRunner().invoke(app, [*args, "--no-checkpoint", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert re.search(r"Player \d+ is thinking \(openai:slow-one\): 2 s so far", result.output), result.output
