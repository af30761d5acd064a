"""A tournament played as threads on a local ``langgraph dev`` server: the house variants are built
there from their specs, and the logs and ratings equal the same tournament played in this process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena_helpers import logs_of
from langgraph_server import langgraph_dev
from mafia.tournament import run_tournament

TOURNAMENT: dict[str, Any] = {
    "games": 4,
    "models": ["house", "random-legal"],
    "players": 6,
    "concurrency": 4,
    "tournament_id": "srv",
}

# A whole-system test: run with `make test-slow` (and in CI), not by `make test`.
pytestmark = pytest.mark.slow


def test_a_tournament_on_a_server_logs_and_rates_as_a_local_one(tmp_path: Path) -> None:
    (tmp_path / "langgraph_dev").mkdir()
    with langgraph_dev(tmp_path / "langgraph_dev", jobs=4) as url:
        served = run_tournament(**TOURNAMENT, server=url, out=tmp_path / "server")
    local = run_tournament(**TOURNAMENT, out=tmp_path / "local")
    assert served["finished"] == 4 and served["run"]["server"] == url and not served["run"]["unfinished"]
    server_logs = logs_of(tmp_path / "server" / "tournament-srv")
    assert len(server_logs) == 8 and server_logs == logs_of(tmp_path / "local" / "tournament-srv")
    assert served["ratings"] == local["ratings"] and served["head_to_head"] == local["head_to_head"]
