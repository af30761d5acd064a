"""The graph served by a local ``langgraph dev`` (Studio's server), driven through its API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import get_sync_client

from edge_sweep import untaken
from langgraph_server import langgraph_dev, thread_values
from mafia.graph import graph
from test_graph_edges import sweep

# Whole-system tests: run with `make test-slow` (and in CI), not by `make test`.
pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``langgraph dev`` on a free local port, started in the project as a user would."""
    with langgraph_dev(tmp_path_factory.mktemp("langgraph_dev"), in_project=True) as url:
        yield url


def test_studio_sees_the_graph_and_plays_a_game_with_streamed_prompts(server: str) -> None:
    """One server for every check (a second one would share the project's state folder)."""
    client = get_sync_client(url=server)
    (assistant,) = [a for a in client.assistants.search() if a["graph_id"] == "mafia"]
    assistant_id = assistant["assistant_id"]
    check_drawing(client, assistant_id)
    check_interrupt_shows_whose_turn(client)
    check_bad_runs_fail_before_the_first_turn(client)
    schemas = client.assistants.get_schemas(assistant_id)
    form, context_form = schemas["input_schema"], schemas["context_schema"]
    assert form is not None and context_form is not None
    assert list(form["properties"]) == ["setup"]
    # The server offers the graph's own context form (its keys are checked in test_graph_export).
    assert context_form["properties"].keys() == graph.get_context_jsonschema()["properties"].keys()

    thread = client.threads.create()
    prompts: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    for part in client.runs.stream(
        thread["thread_id"],
        "mafia",
        input={"setup": {"seed": 3, "players": 6}},
        context={"model": "house:3", "policy": {"verbatim_rounds": 1}},
        stream_mode=["custom", "values"],
    ):
        assert part.event != "error", part.data
        if part.event == "custom":
            prompts.append(part.data["prompt"])
        elif part.event == "values":
            final = part.data
    assert final["winner"] in ("town", "mafia", "draw")
    events = thread_values(client, thread["thread_id"])["events"]
    assert events == final["events"] and events[-1]["type"] == "game_over"
    thoughts = [e for e in events if e["type"] == "thought"]
    assert len(prompts) == len(thoughts) and all(p["game_id"] == final["game_id"] for p in prompts)


TURN_NODES = ("night_zero", "speak", "vote", "defense", "revote", "last_words", "night_start", "mafia_round1")


def check_drawing(client: Any, assistant_id: str) -> None:
    """The xray drawing holds the player subgraph's four nodes in every turn node, and a sweep of
    seeded games takes every edge of the served drawing."""
    xray = client.assistants.get_graph(assistant_id, xray=True)
    ids = {node["id"] for node in xray["nodes"]}
    for turn in TURN_NODES:
        assert {f"{turn}:build_context", f"{turn}:decide", f"{turn}:recall", f"{turn}:commit"} <= ids, turn
    plain = client.assistants.get_graph(assistant_id)
    drawn = {(edge["source"], edge["target"]) for edge in plain["edges"]}
    game, _ = sweep(_exported_graph())
    assert untaken(drawn, game) == []


def _exported_graph() -> Any:
    from mafia.graph import graph

    return graph


def check_interrupt_shows_whose_turn(client: Any) -> None:
    """Paused before a speech, the state says whose turn it is, and the run goes on from there."""
    thread = client.threads.create()
    client.runs.wait(
        thread["thread_id"],
        "mafia",
        input={"setup": {"seed": 3, "players": 6}},
        interrupt_before=["speak"],
    )
    state = client.threads.get_state(thread["thread_id"])
    assert state["next"] == ["speak"]
    values = state["values"]
    opened = next(e for e in values["events"] if e["type"] == "day_started")
    first = opened["speaking_order"][0]
    assert values["turn"] == f"Day 1 · speak · {first}"
    assert values["day"] == "Day 1" and values["alive"] == opened["living"]


def check_bad_runs_fail_before_the_first_turn(client: Any) -> None:
    """A bad setup, context (a misspelt key too) or model spec fails the run with the command
    line's one-line message, before any turn is played."""
    cases = [
        ({"setup": {"players": 3}}, {}, "invalid game setting players"),
        ({"setup": {"seed": 1}}, {"model": "nonsense"}, "model 'nonsense'"),
        ({"setup": {"seed": 1}}, {"seat_models": {"9": "house"}}, "seat_models '9': names no seat"),
        ({"setup": {"seed": 1}}, {"policy": {"bogus": 1}}, "policy.bogus: unknown setting"),
        # A misspelt key the server would drop unseen is refused, naming the keys there are.
        (
            {"setup": {"seed": 1}},
            {"modle": "house:3"},
            "modle: unknown context key; allowed: model, seat_models",
        ),
    ]
    for run_input, context, message in cases:
        thread = client.threads.create()
        run = client.runs.create(thread["thread_id"], "mafia", input=run_input, context=context)
        result = client.runs.join(thread["thread_id"], run["run_id"])
        assert message in str(result), (message, result)
        assert client.runs.get(thread["thread_id"], run["run_id"])["status"] == "error", message
        values = client.threads.get_state(thread["thread_id"])["values"] or {}
        assert not values.get("prompts"), message
