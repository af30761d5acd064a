"""Model settings reach the provider: a game through the real `langchain-openai` client against a
local server shows each setting in the requests it receives."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from fakes.openai_server import OpenAIServer, openai_server, task_of
from mafia.game.actions import ACTION_SCHEMAS, ActionKind
from mafia.models import factory
from mafia.models.settings import LOCAL_API_KEY, ModelSettings
from mafia.play.runner import run_game

GAME = {"seed": 4, "players": 5, "round_cap": 3}


def _play(settings: ModelSettings) -> dict[str, Any]:
    state = run_game(GAME, model=settings, max_retries=1)
    assert state["winner"] in ("town", "mafia", "draw")
    return state


def test_call_settings_are_sent_with_every_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAFIA_TEST_KEY", "k-123")
    with openai_server() as server:
        settings = ModelSettings(
            model="openai:local-a",
            base_url=server.base_url,
            api_key_env="MAFIA_TEST_KEY",
            timeout=30,
            max_tokens=3000,
            action_max_tokens={"vote": 700},
            temperature=0.7,
            seed=11,
            request_retries=1,
            extra_body={"repeat_penalty": 1.15},
        )
        _play(settings)
    model = factory.resolve_model(settings)
    assert (model.request_timeout, model.max_retries) == (30, 1)  # type: ignore[attr-defined]
    assert server.bodies and all(h["authorization"] == "Bearer k-123" for h in server.headers)
    for body in server.bodies:
        assert body["model"] == "local-a"
        assert (body["temperature"], body["seed"], body["repeat_penalty"]) == (0.7, 11, 1.15)
        assert body["response_format"]["type"] == "json_schema"
    limits = {task_of(b): b["max_completion_tokens"] for b in server.bodies}
    assert limits.pop("VOTE", 700) == 700 and set(limits.values()) == {3000}


def test_a_base_url_without_a_key_variable_never_gets_the_environment_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    with openai_server() as server:
        _play(ModelSettings(model="openai:local-b", base_url=server.base_url))
    assert {h["authorization"] for h in server.headers} == {f"Bearer {LOCAL_API_KEY}"}


def test_json_mode_states_the_schema_in_the_system_message() -> None:
    with openai_server() as server:
        _play(ModelSettings(model="openai:local-c", base_url=server.base_url, method="json_mode"))
    for body in server.bodies:
        assert body["response_format"] == {"type": "json_object"}
        system = body["messages"][0]
        assert system["role"] == "system" and "It must match this JSON schema:" in system["content"]
    # The system message stays one text per player across the game (a provider's cached prefix).
    firsts = {
        b["messages"][0]["content"].split("\n", 1)[0]: b["messages"][0]["content"] for b in server.bodies
    }
    assert len(firsts) <= GAME["players"]


def test_function_calling_sends_the_schema_as_a_tool() -> None:
    with openai_server() as server:
        _play(ModelSettings(model="openai:local-d", base_url=server.base_url, method="function_calling"))
    assert all(b["tools"] and b["tool_choice"]["type"] == "function" for b in server.bodies)


def _vote(model: Any, parsed: list[object]) -> None:
    """One vote call; its parsed answer goes to ``parsed`` (checked on the test's own thread: an
    assert in this thread could not fail the test)."""
    messages = [
        SystemMessage("You are Player 1. Your role is Town."),
        HumanMessage("[YOUR TASK: VOTE]\nValid targets: Player 2, skip"),
    ]
    out = factory.structured(model, ACTION_SCHEMAS[ActionKind.VOTE]).invoke(messages)
    parsed.append(out["parsed"])


def _calls_at_once(server: OpenAIServer, hold: threading.Event, settings: ModelSettings, wanted: int) -> None:
    model = factory.resolve_model(settings)
    parsed: list[object] = []
    threads = [threading.Thread(target=_vote, args=(model, parsed)) for _ in range(3)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while server.in_flight < wanted and time.monotonic() < deadline:
        time.sleep(0.01)
    hold.set()
    for thread in threads:
        thread.join(60)
    assert len(server.bodies) == 3
    assert len(parsed) == 3 and None not in parsed, parsed


def test_max_concurrent_caps_the_calls_in_flight_on_a_provider() -> None:
    hold = threading.Event()
    with openai_server(hold=hold) as server:
        # Without a cap all three held requests are in flight together: the server can see it.
        _calls_at_once(server, hold, ModelSettings(model="openai:local-e", base_url=server.base_url), 3)
        assert server.most_in_flight == 3
    hold = threading.Event()
    with openai_server(hold=hold) as server:
        capped = ModelSettings(model="openai:local-f", base_url=server.base_url, max_concurrent=2)
        _calls_at_once(server, hold, capped, 2)
        assert server.most_in_flight == 2


def test_settings_are_built_once_and_equal_settings_share_a_model() -> None:
    first = factory.resolve_model(ModelSettings(model="house:3", timeout=5))
    assert factory.resolve_model(ModelSettings(model="house:3", timeout=5)) is first
    assert factory.resolve_model(ModelSettings(model="house:3", timeout=6)) is not first
    assert factory.model_settings(first) is None  # the house model takes no call settings


def test_cancelled_calls_end_at_once_and_are_never_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "_cancelled", threading.Event())
    started = threading.Event()

    def slow() -> str:
        started.set()
        threading.Event().wait(600)  # a server that never answers
        return "late"

    errors: list[BaseException] = []

    def call() -> None:
        try:
            factory._cancellable(slow)
        except BaseException as exc:
            errors.append(exc)

    waiter = threading.Thread(target=call)
    waiter.start()
    started.wait(60)
    factory.cancel_calls()
    waiter.join(60)
    assert not waiter.is_alive() and isinstance(errors[0], factory.CallCancelled)
    assert not isinstance(errors[0], Exception)  # no answer handler can take it for a bad answer
    with pytest.raises(factory.CallCancelled):
        factory._cancellable(lambda: "never run")
