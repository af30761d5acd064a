"""Ctrl-C ends `mafia play` promptly even while a simultaneous step waits on requests that a
server never answers, with the resume hint printed and the logs flushed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fakes.openai_server import openai_server, task_of

# Decisions taken in simultaneous steps: held requests there leave worker threads blocked on HTTP.
SIMULTANEOUS = {"VOTE", "REVOTE", "PROTECT", "INVESTIGATE", "MAFIA_ROUND2"}
# A correctness bound: a hung process never exits at all; this only has to be finite and generous.
EXIT_BOUND = 30.0


@pytest.mark.slow
def test_ctrl_c_exits_with_requests_in_flight(tmp_path: Path) -> None:
    with openai_server(hang=lambda body: task_of(body) in SIMULTANEOUS) as server:
        game = tmp_path / "game.toml"
        game.write_text(f'seed = 3\n[model]\nmodel = "openai:local"\nbase_url = "{server.base_url}"\n')
        env = {**os.environ, "LANGSMITH_TRACING": "false", "PYTHONUNBUFFERED": "1"}
        mafia = Path(sys.executable).parent / "mafia"
        proc = subprocess.Popen(
            [str(mafia), "play", "--config", str(game), "--out", str(tmp_path / "runs")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            # As in a terminal: a test runner may have been started with SIGINT ignored, which a
            # child would inherit (and a process told to ignore Ctrl-C rightly keeps ignoring it).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            while server.held < 2 and proc.poll() is None:  # a simultaneous step has stalled
                time.sleep(0.05)
            assert proc.poll() is None, proc.communicate()
            proc.send_signal(signal.SIGINT)
            sent = time.monotonic()
            stdout, stderr = proc.communicate(timeout=EXIT_BOUND)
            waited = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 130, (stdout, stderr)
    assert waited < EXIT_BOUND
    assert "stopped." in stderr and "mafia resume" in stderr
    assert "Traceback" not in stderr
    folder = next((tmp_path / "runs").glob("game-*"))
    events = (folder / "events.jsonl").read_text().splitlines()
    assert events and events[0].startswith('{"type":"game_started"')
    assert (tmp_path / "runs" / "checkpoints.sqlite").stat().st_size > 0
