"""A run cancelled mid-step (as a server cancels one: the asyncio task of an async run) leaves the
step whole: its writes are all saved or none are, so the resumed game records no turn twice and
loses none, and ends as an uninterrupted game does."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import StreamMode

import mafia.graph as graph_module
from mafia.game.protocol import STEPS
from mafia.game.state import GameState, InputState, StepName
from mafia.graph import build_graph
from mafia.run.runtime import GameContext

SETUP: InputState = {"setup": {"seed": 0, "players": 7}}
CONTEXT = GameContext(model="house:2")
STEP: StepName = "night_zero"  # a turn step that routes back to itself: cancelled at its second routing
CANCEL_AT = 2


def _cancelling(route: Any, loop: asyncio.AbstractEventLoop, task: list[asyncio.Task[Any]]) -> Any:
    """``route``, asking for the run's cancel at its ``CANCEL_AT``-th call and taking a while
    (a busy machine's thread hand-off) before it answers."""
    calls = 0

    def routed(state: GameState) -> str:
        nonlocal calls
        calls += 1
        if calls == CANCEL_AT:
            loop.call_soon_threadsafe(task[0].cancel)
            time.sleep(0.2)
        return str(route(state))

    return routed


async def _cancelled_then_resumed(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    loop = asyncio.get_running_loop()
    task: list[asyncio.Task[Any]] = []
    step_route = graph_module.route  # type: ignore[attr-defined]  # the module's own import, patched
    routers = {name: step_route(name) for name in STEPS}
    routers[STEP] = _cancelling(routers[STEP], loop, task)
    monkeypatch.setattr(graph_module, "route", routers.__getitem__)
    game = build_graph().compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}

    async def play() -> None:
        # As the server streams it: each step's tasks run concurrently.
        modes: list[StreamMode] = ["values", "custom"]
        async for _ in game.astream(SETUP, config, context=CONTEXT, stream_mode=modes, durability="async"):
            pass

    task.append(asyncio.create_task(play()))
    with pytest.raises(asyncio.CancelledError):
        await task[0]
    await asyncio.sleep(0.5)  # writes a cancelled run still makes land meanwhile
    stopped = await game.aget_state(config)
    async for _ in game.astream(None, config, context=CONTEXT, durability="sync"):
        pass
    return stopped, (await game.aget_state(config)).values


def test_a_run_cancelled_while_a_step_routes_resumes_as_if_never_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stopped, resumed = asyncio.run(_cancelled_then_resumed(monkeypatch))
    monkeypatch.undo()
    assert [t.name for t in stopped.tasks] == [STEP]  # stopped within the step
    whole = build_graph().compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}
    whole.invoke(SETUP, config, context=CONTEXT)
    played = whole.get_state(config).values
    assert resumed["winner"] is not None
    assert resumed["events"] == played["events"] and resumed["prompts"] == played["prompts"]
