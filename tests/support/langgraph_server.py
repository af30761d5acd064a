"""A local ``langgraph dev`` server for tests that drive games through the LangGraph API.

Started in the project as a user would (its state files go to the ignored ``.langgraph_api/``;
without reload, writing them is harmless), or in a folder of its own with a copy of the project's
``langgraph.json`` whose paths point into the project, so that two servers never share state files.
A server started again in the same folder finds what the last one left there; ``DevServer.kill``
ends one as a crash would (SIGKILL).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk.client import SyncLangGraphClient

from fakes import free_port
from repo import ROOT

CLI = Path(sys.executable).parent / "langgraph"
API_LINE = re.compile(r"API:\W*(?:\x1b\[[0-9;]*m)?(http://127\.0\.0\.1:\d+)")


def _config_in(work: Path) -> Path:
    """The project's langgraph.json with its paths made absolute, written to ``work``."""
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["dependencies"] = [str(ROOT / d) for d in config["dependencies"]]
    config["graphs"] = {name: str(ROOT / path) for name, path in config["graphs"].items()}
    path = work / "langgraph.json"
    path.write_text(json.dumps(config))
    return path


@dataclass
class DevServer:
    """A running ``langgraph dev``: its URL and its process (the leader of its own group)."""

    url: str
    proc: subprocess.Popen[bytes]

    def kill(self) -> None:
        """End the server as a crash would: SIGKILL to every process it started, no shutdown."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


@contextmanager
def langgraph_dev(work: Path, jobs: int | None = None, in_project: bool = False) -> Iterator[str]:
    """Start ``langgraph dev`` (``jobs`` runs at once, else its default) on a free local port, in the
    project or in ``work``; yields its URL and stops it afterwards. Its log is ``work/server.log``."""
    with dev_server(work, jobs, in_project) as server:
        yield server.url


@contextmanager
def dev_server(work: Path, jobs: int | None = None, in_project: bool = False) -> Iterator[DevServer]:
    """``langgraph_dev``, yielding the server itself (to kill it); stopped cleanly afterwards
    unless it was killed."""
    port = free_port()
    env = {
        **os.environ,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGSMITH_TRACING": "false",
    }
    args = [str(CLI), "dev", "--no-browser", "--no-reload", "--port", str(port)]
    if jobs is not None:
        args += ["--n-jobs-per-worker", str(jobs)]
    if not in_project:
        args += ["--config", str(_config_in(work))]
    log_path = work / "server.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            args,
            cwd=ROOT if in_project else work,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                announced = API_LINE.search(log_path.read_text())  # a taken port is replaced silently
                url = announced[1] if announced else url
                try:
                    if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("langgraph dev did not start:\n" + log_path.read_text()[-3000:])
                time.sleep(0.3)
            yield DevServer(url, proc)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


def person_answer(turn: dict[str, Any]) -> dict[str, Any]:
    """What a person in Studio answers at a turn: a speech or message when one is asked, and the
    first legal choice."""
    return {"text": "Studio here.", "choice": 1} if turn["text"] else {"choice": 1}


def thread_values(client: SyncLangGraphClient, thread: str) -> dict[str, Any]:
    """The game state of ``thread`` as the server holds it (a graph's state is one mapping)."""
    values = client.threads.get_state(thread)["values"]
    assert isinstance(values, dict), values
    return values


def answer_people(client: Any, thread: str, context: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Answer every person's turn ``thread`` pauses at, as Studio's resume form does (with
    ``context`` if given, else none), until it no longer pauses (a run that fails leaves the
    thread's status ``error`` for the caller to see); returns the turns answered."""
    turns: list[dict[str, Any]] = []
    while client.threads.get(thread)["status"] == "interrupted":
        assert len(turns) < 100, "the game never moves on from the person's turns"
        (pending,) = client.threads.get_state(thread)["interrupts"]
        turns.append(pending["value"])
        resume = {"command": {"resume": person_answer(pending["value"])}}
        given = {"context": context} if context else {}
        client.runs.wait(thread, "mafia", **resume, **given, raise_error=False)
    return turns
