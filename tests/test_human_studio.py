"""A person's seat from Studio: the graph served by ``langgraph dev`` pauses at the seat's turns
(thread status ``interrupted``, the payload readable through the API) and goes on with a resume
``command`` until the game ends."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk import get_sync_client

from fakes import free_port

ROOT = Path(__file__).resolve().parent.parent
CLI = Path(sys.executable).parent / "langgraph"
API_LINE = re.compile(r"API:\W*(?:\x1b\[[0-9;]*m)?(http://127\.0\.0\.1:\d+)")


def start_server(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``langgraph dev`` serving the project's graph from a folder of its own (its state files stay
    there, apart from any other server's)."""
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["graphs"] = {name: str(ROOT / spec.removeprefix("./")) for name, spec in config["graphs"].items()}
    config["dependencies"] = [str(ROOT)]
    (work / "langgraph.json").write_text(json.dumps(config))
    port = free_port()
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true"}
    env["LANGSMITH_TRACING"] = "false"
    log = work / "server.log"
    args = [str(CLI), "dev", "--no-browser", "--no-reload", "--port", str(port)]
    with log.open("w") as out:
        proc = subprocess.Popen(
            args, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        announced = API_LINE.search(log.read_text())
        url = announced[1] if announced else url
        try:
            if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            raise AssertionError("langgraph dev did not start:\n" + log.read_text()[-3000:])
        time.sleep(0.3)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_studio_pauses_at_a_person_and_resumes_to_the_end(tmp_path: Path) -> None:
    proc, url = start_server(tmp_path)
    try:
        client = get_sync_client(url=url)
        thread = client.threads.create()["thread_id"]
        context = {"seat_models": {"4": "human"}}
        client.runs.wait(thread, "mafia", input={"setup": {"seed": 2, "players": 5}}, context=context)
        turns: list[dict[str, Any]] = []
        while client.threads.get(thread)["status"] == "interrupted":
            assert len(turns) < 100, "the game never moves on from the person's turns"
            (pending,) = client.threads.get_state(thread)["interrupts"]
            turn = pending["value"]
            turns.append(turn)
            answer = {"text": "Studio here.", "choice": 1} if turn["text"] else {"choice": 1}
            client.runs.wait(thread, "mafia", command={"resume": answer}, context=context)
        values = client.threads.get_state(thread)["values"]
    finally:
        stop(proc)
    assert values["winner"] is not None
    assert turns and {t["player"] for t in turns} == {"Player 4"}
    assert all(t["context"].startswith("## Transcript") and t["rules"] for t in turns)
    speeches = [e for e in values["events"] if e["type"] == "speech" and e["speaker"] == "Player 4"]
    assert speeches and all(s["text"] == "Studio here." for s in speeches)
