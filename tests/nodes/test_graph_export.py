"""The exported graph as ``langgraph dev`` loads it: by file path, through its factory, uncheckpointed,
a narrow input; the factory refuses a run's unknown context keys before the server drops them."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore
from langgraph_sdk.runtime import _ExecutionRuntime, _ReadRuntime

from mafia.models.house import HouseModel
from mafia.models.settings import ModelSettings
from mafia.play.runner import RECURSION_LIMIT
from mafia.run.runtime import GameContext
from repo import ROOT


def _exported() -> Any:
    """What langgraph.json names, loaded by path as the server loads it."""
    spec = json.loads((ROOT / "langgraph.json").read_text())["graphs"]["mafia"]
    path, _, name = spec.partition(":")
    module_spec = importlib.util.spec_from_file_location("exported_mafia_graph", ROOT / path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return getattr(module, name)


def _load_by_path() -> Any:
    """The graph the exported factory gives when the server reads the graph's schemas."""
    return _exported()(_ReadRuntime(access_context="assistants.read", store=InMemoryStore()))


def test_the_factory_refuses_a_runs_unknown_context_key() -> None:
    factory = _exported()

    def run_with(context: dict[str, Any]) -> Any:
        return factory(
            _ExecutionRuntime(access_context="threads.create_run", store=InMemoryStore(), context=context)
        )

    with pytest.raises(ValueError, match=r"^modle: unknown context key; allowed: model, seat_models, "):
        run_with({"modle": "house:3", "model": "house:2"})
    with pytest.raises(ValueError, match=r"^policy: no context policy 'ful-history'"):
        run_with({"policy": "ful-history"})
    assert run_with({"model": "house:2", "policy": "full-history"}) is _load_by_path()
    # LangGraph's own keys, as a run sent with config.configurable carries them, are not refused.
    assert run_with({"thread_id": "t", "checkpoint_ns": "", "langgraph_request_id": "r"}) is _load_by_path()


def test_export_loads_by_path_without_a_checkpointer() -> None:
    graph = _load_by_path()
    assert graph.checkpointer is None
    schema = graph.get_input_jsonschema()
    assert list(schema["properties"]) == ["setup"]
    assert set(graph.get_output_jsonschema()["properties"]) == {"game_id", "events", "winner"}


def test_export_plays_a_game_with_run_time_context() -> None:
    graph = _load_by_path()
    out = graph.invoke(
        {"setup": {"seed": 8, "players": 6}},
        {"recursion_limit": RECURSION_LIMIT},
        context=GameContext(model=HouseModel(seed=8)),
    )
    assert out["winner"] in ("town", "mafia", "draw")
    assert out["events"][0]["type"] == "game_started" and out["events"][-1]["type"] == "game_over"


def test_phases_appear_in_the_drawing() -> None:
    mermaid = _load_by_path().get_graph().draw_mermaid()
    for node in ("setup", "speak", "vote", "mafia_round2", "night_resolution", "game_over"):
        assert node in mermaid


def test_context_schema_is_json_for_studio() -> None:
    schema = _load_by_path().get_context_jsonschema()
    assert set(schema["properties"]) == {
        "model",
        "seat_models",
        "max_retries",
        "policy",
        "summariser",
        "text_limits",
        "change_run",
    }
    assert [kind["type"] for kind in schema["properties"]["model"]["anyOf"]] == ["string", "object"]
    json.dumps(schema)


def test_export_plays_with_default_context_when_none_is_given() -> None:
    out = _load_by_path().invoke({"setup": {"seed": 5, "players": 5}}, {"recursion_limit": RECURSION_LIMIT})
    assert out["events"][-1]["type"] == "game_over"


def test_export_accepts_the_context_as_json() -> None:
    graph = _load_by_path()
    context = {
        "model": "house:4",
        "max_retries": 1,
        "policy": {"verbatim_rounds": 1, "token_budget": 3000},
        "text_limits": {"speech": 400},
    }
    records: list[dict[str, Any]] = []
    for mode, chunk in graph.stream(
        {"setup": {"seed": 4, "players": 5}},
        {"recursion_limit": RECURSION_LIMIT},
        context=context,
        stream_mode=["custom", "values"],
    ):
        if mode == "custom":
            records.append(chunk["prompt"])
    assert records and all(r["total_tokens"] <= 3000 for r in records)
    assert GameContext(**context).policy.verbatim_rounds == 1
    assert GameContext(**context).text_limits.speech == 400


def test_a_model_given_as_json_settings_is_checked_and_plays() -> None:
    context = GameContext(model={"model": "house:4", "timeout": 30}, seat_models={"2": {"model": "house:1"}})
    assert context.model == ModelSettings(model="house:4", timeout=30)
    out = _load_by_path().invoke(
        {"setup": {"seed": 4, "players": 5}}, {"recursion_limit": RECURSION_LIMIT}, context=context
    )
    assert out["events"][-1]["type"] == "game_over"
    with pytest.raises(ValueError, match="timeout"):
        GameContext(model={"model": "house", "timeout": -1})


def test_a_bad_context_names_the_field() -> None:
    with pytest.raises(ValueError, match="verbatim_rounds"):
        GameContext(**{"policy": {"verbatim_rounds": 0}})
    with pytest.raises(ValueError, match="max_retries"):
        GameContext(max_retries=-1)
