"""A run's record against the context a resume gives: a policy recorded before a setting existed
is the same policy, and a real change is refused naming what changed."""

from __future__ import annotations

from typing import Any

from mafia.context.policy import policy_by_name
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
