"""A person's seat from Studio: the graph served by ``langgraph dev`` pauses at the seat's turns
(thread status ``interrupted``, the payload readable through the API) and goes on with a resume
``command`` until the game ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph_sdk import get_sync_client

from langgraph_server import langgraph_dev


def test_studio_pauses_at_a_person_and_resumes_to_the_end(tmp_path: Path) -> None:
    with langgraph_dev(tmp_path) as url:  # in a folder of its own, apart from any other server
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
    assert values["winner"] is not None
    assert turns and {t["player"] for t in turns} == {"Player 4"}
    assert all(t["context"].startswith("## Transcript") and t["rules"] for t in turns)
    speeches = [e for e in values["events"] if e["type"] == "speech" and e["speaker"] == "Player 4"]
    assert speeches and all(s["text"] == "Studio here." for s in speeches)


def test_studio_keeps_the_person_when_resumed_without_context(tmp_path: Path) -> None:
    with langgraph_dev(tmp_path) as url:
        client = get_sync_client(url=url)
        thread = client.threads.create()["thread_id"]
        context = {"seat_models": {"3": "human"}, "policy": "full-history"}
        client.runs.wait(thread, "mafia", input={"setup": {"seed": 2, "players": 5}}, context=context)
        asked = 0
        while client.threads.get(thread)["status"] == "interrupted":
            assert asked < 100, "the game never moves on from the person's turns"
            (pending,) = client.threads.get_state(thread)["interrupts"]
            assert pending["value"]["player"] == "Player 3"
            asked += 1
            answer = {"text": "Studio here.", "choice": 1} if pending["value"]["text"] else {"choice": 1}
            client.runs.wait(thread, "mafia", command={"resume": answer})  # as the README shows it
        values = client.threads.get_state(thread)["values"]
    assert asked >= 3 and values["winner"] is not None
    assert values["run"]["policy"]["name"] == "full-history"
    speeches = [e for e in values["events"] if e["type"] == "speech" and e["speaker"] == "Player 3"]
    assert speeches and all(s["text"] == "Studio here." for s in speeches)
