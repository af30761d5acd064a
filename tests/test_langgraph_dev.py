"""The graph served by a local ``langgraph dev`` (Studio's server), driven through its API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import get_sync_client

from langgraph_server import langgraph_dev


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``langgraph dev`` on a free local port, started in the project as a user would."""
    with langgraph_dev(tmp_path_factory.mktemp("langgraph_dev"), in_project=True) as url:
        yield url


def test_studio_sees_the_graph_and_plays_a_game_with_streamed_prompts(server: str) -> None:
    """One server for both checks (a second one would share the project's state folder)."""
    client = get_sync_client(url=server)
    (assistant,) = [a for a in client.assistants.search() if a["graph_id"] == "mafia"]
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    assert list(schemas["input_schema"]["properties"]) == ["config"]
    assert set(schemas["context_schema"]["properties"]) == {
        "model",
        "seat_models",
        "max_retries",
        "policy",
        "text_limits",
    }

    thread = client.threads.create()
    prompts: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    for part in client.runs.stream(
        thread["thread_id"],
        "mafia",
        input={"config": {"seed": 3, "players": 6}},
        context={"model": "house:3", "policy": {"verbatim_rounds": 1}},
        stream_mode=["custom", "values"],
    ):
        assert part.event != "error", part.data
        if part.event == "custom":
            prompts.append(part.data["prompt"])
        elif part.event == "values":
            final = part.data
    assert final["winner"] in ("town", "mafia", "draw")
    events = client.threads.get_state(thread["thread_id"])["values"]["events"]
    assert events == final["events"] and events[-1]["type"] == "game_over"
    thoughts = [e for e in events if e["type"] == "thought"]
    assert len(prompts) == len(thoughts) and all(p["game_id"] == final["game_id"] for p in prompts)
