"""A person's seat from Studio: the graph served by ``langgraph dev`` pauses at the seat's turns
(thread status ``interrupted``, the payload readable through the API) and goes on with a resume
``command`` until the game ends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import get_sync_client

from langgraph_server import answer_people, langgraph_dev, thread_values

# Whole-system tests: run with `make test-slow` (and in CI), not by `make test`.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One ``langgraph dev`` for these tests (each plays on a thread of its own), in a folder of
    its own, apart from any other server."""
    with langgraph_dev(tmp_path_factory.mktemp("studio")) as url:
        yield url


def test_studio_pauses_at_a_person_and_resumes_to_the_end(server: str) -> None:
    client = get_sync_client(url=server)
    thread = client.threads.create()["thread_id"]
    context: dict[str, Any] = {"seat_models": {"4": "human"}}
    client.runs.wait(thread, "mafia", input={"setup": {"seed": 2, "players": 5}}, context=context)
    turns = answer_people(client, thread, context)
    values = thread_values(client, thread)
    assert values["winner"] is not None
    assert turns and {t["player"] for t in turns} == {"Player 4"}
    assert all(t["context"].startswith("## Transcript") and t["rules"] for t in turns)
    speeches = [e for e in values["events"] if e["type"] == "speech" and e["speaker"] == "Player 4"]
    assert speeches and all(s["text"] == "Studio here." for s in speeches)


def test_studio_keeps_the_person_when_resumed_without_context(server: str) -> None:
    client = get_sync_client(url=server)
    thread = client.threads.create()["thread_id"]
    context: dict[str, Any] = {"seat_models": {"3": "human"}, "policy": "full-history"}
    client.runs.wait(thread, "mafia", input={"setup": {"seed": 2, "players": 5}}, context=context)
    turns = answer_people(client, thread)  # no context, as the README shows the resume
    values = thread_values(client, thread)
    assert len(turns) >= 3 and {t["player"] for t in turns} == {"Player 3"}
    assert values["winner"] is not None
    assert values["run"]["policy"]["name"] == "full-history"
    speeches = [e for e in values["events"] if e["type"] == "speech" and e["speaker"] == "Player 3"]
    assert speeches and all(s["text"] == "Studio here." for s in speeches)
