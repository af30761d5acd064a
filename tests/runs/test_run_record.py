"""A run's record against the context a resume gives: a policy recorded before a setting existed
is the same policy, and a real change is refused naming what changed."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime
from langgraph.types import Command

import mafia.graph as graph_module
import mafia.play.runner as runner
from langgraph_server import person_answer
from mafia.context.policy import DEFAULT_POLICY, POLICIES, UNRECORDED_POLICY, policy_by_name
from mafia.context.sections import VOICE
from mafia.game.state import GameState, GameUpdate
from mafia.graph import compile_graph
from mafia.nodes.setup import setup
from mafia.play.runner import RECURSION_LIMIT, recorded_run, resume_game, run_game
from mafia.run.record import describe_context, differences
from mafia.run.runtime import GameContext


def _record(policy: str) -> dict[str, Any]:
    return describe_context(GameContext(policy=policy_by_name(policy)), ())


def test_a_policy_recorded_before_a_setting_existed_is_the_same_policy() -> None:
    """An older release recorded fewer policy fields; the missing ones take their defaults, which
    is how the run played, so resuming it with the policy rebuilt from the record is no change."""
    old = _record("seed-window")
    old["policy"] = {k: v for k, v in old["policy"].items() if k not in {"memory_scores", "bullet_rounds"}}
    assert differences(old, _record("seed-window")) == []


def test_a_changed_setting_of_a_same_named_policy_is_refused_by_that_setting() -> None:
    recorded = _record("seed-window")
    given = _record("seed-window")
    given["policy"] = {**given["policy"], "verbatim_rounds": given["policy"]["verbatim_rounds"] + 1}
    (mismatch,) = differences(recorded, given)
    assert mismatch.setting == "policy"
    assert "verbatim_rounds=" in mismatch.before and "verbatim_rounds=" in mismatch.after
    assert mismatch.before != mismatch.after


def test_a_different_policy_is_refused_by_name() -> None:
    (mismatch,) = differences(_record("seed-window"), _record("full-history"))
    assert (mismatch.before, mismatch.after) == ("seed-window", "full-history")


# ---- a run keeps the policy it was started with when the default changes --------------------


def _plays_seed_window(prompts: list[dict[str, Any]]) -> bool:
    """Whether every prompt was built under ``seed-window``, told apart from the default ``lean``
    by the identity's note on the persona's voice, which ``lean`` leaves out."""
    return bool(prompts) and all(VOICE in p["system"] + p["user"] for p in prompts)


def _stopped(saver: InMemorySaver, monkeypatch: pytest.MonkeyPatch, recorded: bool) -> None:
    """A game started under ``seed-window`` (the default before ``lean``) and stopped by Ctrl-C at
    the person's first turn; with ``recorded`` off, checkpointed as a release before runs were
    recorded left it (no ``run`` in its state)."""

    def unrecorded(state: GameState, runtime: Runtime[GameContext]) -> GameUpdate:
        update = setup(state, runtime)
        update.pop("run")
        return update

    def ctrl_c(turn: dict[str, Any]) -> Any:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        if not recorded:
            patch.setitem(graph_module.NODES, "setup", unrecorded)
            patch.setattr(runner, "_compiled", {})
        with pytest.raises(KeyboardInterrupt):
            run_game(
                {"seed": 2, "players": 5, "round_cap": 3},
                checkpointer=saver,
                thread_id="t",
                human=ctrl_c,
                seat_models={"3": "human"},
                policy=POLICIES[UNRECORDED_POLICY],
            )
    runner._compiled.clear()
    assert (recorded_run(saver, "t")[0] is not None) is recorded


@pytest.mark.parametrize("recorded", [True, False], ids=["recorded", "before-runs-were-recorded"])
def test_a_resumed_run_keeps_its_policy_when_the_default_is_another(
    recorded: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert DEFAULT_POLICY != UNRECORDED_POLICY
    saver = InMemorySaver()
    _stopped(saver, monkeypatch, recorded)
    prompts: list[dict[str, Any]] = []
    final = resume_game("t", checkpointer=saver, human=person_answer, on_prompt=prompts.append)
    assert final["winner"] is not None and _plays_seed_window(prompts)


@pytest.mark.parametrize("context", [None, {}], ids=["no-context", "empty-context"])
@pytest.mark.parametrize("recorded", [True, False], ids=["recorded", "before-runs-were-recorded"])
def test_the_graph_resumed_without_a_context_keeps_the_runs_policy(
    recorded: bool, context: dict[str, Any] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    saver = InMemorySaver()
    _stopped(saver, monkeypatch, recorded)
    game = compile_graph(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": "t"}, "recursion_limit": RECURSION_LIMIT}
    before = len(game.get_state(cfg).values.get("prompts", []))
    out: dict[str, Any] = {"__interrupt__": game.get_state(cfg).interrupts}
    while "__interrupt__" in out:
        (pending,) = out["__interrupt__"]
        out = game.invoke(Command(resume=person_answer(pending.value)), cfg, context=context)
    assert out["winner"] is not None
    assert _plays_seed_window(game.get_state(cfg).values["prompts"][before:])
