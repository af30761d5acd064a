"""Golden files: the exact prompt of every action for every role under the default context policy
(what a run sends unless told otherwise), reviewable as text.

Each file under tests/golden/ holds one rendered prompt (system and user messages) with its section
token counts. The test compares byte for byte; after an intended change, regenerate them with
``UPDATE_GOLDEN=1 pytest tests/context/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from logbuilder import build_case, context_cases
from mafia.context import RenderedPrompt, clear_caches
from mafia.context.policy import DEFAULT_POLICY, policy_by_name
from mafia.game.actions import ActionKind
from mafia.game.rules import SKIP, Role
from mafia.prompts import anchors
from repo import GOLDEN

CASES = context_cases()


def golden_text(prompt: RenderedPrompt, role: Role, game_over: bool) -> str:
    """A prompt as a reviewable file: what it is, its token counts, then both messages."""
    counts = "\n".join(f"  {name}: {tokens}" for name, tokens in prompt.token_counts())
    return (
        f"action: {prompt.action.value}\nrole: {role.value}\nplayer: {prompt.player}\n"
        f"game_over: {str(game_over).lower()}\npolicy: {prompt.policy}\n"
        f"tokens: {prompt.total_tokens} (stable {prompt.stable_tokens})\n{counts}\n"
        f"===== SYSTEM =====\n{prompt.system}\n===== USER =====\n{prompt.user}\n"
    )


def golden_path(action: ActionKind, role: Role) -> Path:
    return GOLDEN / f"{action.value}__{role.value.lower()}.txt"


ORDER = sorted(CASES, key=lambda k: (k[0].value, k[1].value))


@pytest.mark.parametrize(("action", "role"), ORDER, ids=str)
def test_golden_prompt(action: ActionKind, role: Role) -> None:
    case = CASES[(action, role)]
    text = golden_text(build_case(case, policy_by_name(DEFAULT_POLICY)), role, game_over=case[3])
    path = golden_path(action, role)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing {path.name}: run with UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs (UPDATE_GOLDEN=1)"


def test_every_action_and_role_has_a_golden_file() -> None:
    expected = {golden_path(a, r).name for a, r in CASES}
    assert expected == {p.name for p in GOLDEN.glob("*.txt")}
    roles_by_action = {a: {r for b, r in CASES if b is a} for a, _ in CASES}
    assert set(roles_by_action) == set(ActionKind)
    for action in (ActionKind.SPEAK, ActionKind.VOTE, ActionKind.DEFENSE, ActionKind.REVOTE):
        assert roles_by_action[action] == set(Role)
    assert roles_by_action[ActionKind.LAST_WORDS] == set(Role)


def test_same_log_renders_byte_identical_prompts_twice() -> None:
    """Two builds from two independently built copies of the log, caches cleared in between."""
    first = {key: build_case(case) for key, case in CASES.items()}
    clear_caches()
    again = context_cases()
    for key, case in again.items():
        prompt = build_case(case)
        assert prompt.system == first[key].system
        assert prompt.user == first[key].user
        assert prompt.token_counts() == first[key].token_counts()


def test_parallel_builds_match_sequential_ones() -> None:
    """Player turns are built in parallel threads by the graph: the shared caches must not matter."""
    clear_caches()
    keys = sorted(CASES, key=str) * 3
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda k: build_case(CASES[k]), keys))
    for key, prompt in zip(keys, results, strict=True):
        sequential = build_case(CASES[key])
        assert (prompt.system, prompt.user) == (sequential.system, sequential.user)


# Value-level checks of the golden prompts no other test reads: who speaks, in which role, what the
# task asks, its exact options and the role's own facts, checked in the rendered prompt itself (a
# golden file alone would be regenerated along with a fault).
P1, P2, P3, P4, P5 = (f"Player {n}" for n in range(1, 6))
DETECTIVE_RESULT = anchors.format_result(1, P5, "Mafia")
DOCTOR_HISTORY = "Your protections: Player 3 (night 1)"
VALUES: dict[tuple[ActionKind, Role], tuple[str, list[str] | None, list[str]]] = {
    (ActionKind.DEFENSE, Role.DETECTIVE): (
        P3,
        None,
        [DETECTIVE_RESULT, "(tied with Player 4 at 2 votes each)"],
    ),
    (ActionKind.DEFENSE, Role.DOCTOR): (P4, None, [DOCTOR_HISTORY, "(tied with Player 3 at 2 votes each)"]),
    (ActionKind.LAST_WORDS, Role.DOCTOR): (P4, None, [DOCTOR_HISTORY]),
    (ActionKind.REVOTE, Role.DETECTIVE): (P3, [P2, P5, SKIP], [DETECTIVE_RESULT]),
    (ActionKind.REVOTE, Role.MAFIA): (P1, [P2, P5, SKIP], [anchors.format_partners([(P5, True)])]),
    (ActionKind.SPEAK, Role.DETECTIVE): (P3, [P1, P2, P4, P5], [DETECTIVE_RESULT]),
    (ActionKind.VOTE, Role.DETECTIVE): (P3, [P1, P2, P5, SKIP], [DETECTIVE_RESULT]),
    (ActionKind.VOTE, Role.DOCTOR): (P4, [P1, P2, P5, SKIP], [DOCTOR_HISTORY]),
}


def value_faults(prompt: RenderedPrompt, action: ActionKind, role: Role) -> list[str]:
    """How ``prompt`` differs from the values expected of ``action`` for ``role`` (none: it holds them)."""
    player, options, facts = VALUES[(action, role)]
    faults = []
    if (prompt.player, prompt.action) != (player, action):
        faults.append(f"asks {prompt.player} for {prompt.action.value}")
    if anchors.format_identity(player, role.value) not in prompt.user:
        faults.append("identity")
    *_, task = prompt.user.rsplit(anchors.format_task_header(action.value), 1)
    found = anchors.TARGETS_LINE.search(task)
    if (anchors.split_names(found["targets"]) if found else None) != options:
        faults.append("options")
    faults += [f"fact {fact!r}" for fact in facts if prompt.user.count(fact) != 1]
    return faults


@pytest.mark.parametrize("key", sorted(VALUES, key=str), ids=str)
def test_golden_prompt_values(key: tuple[ActionKind, Role]) -> None:
    assert value_faults(build_case(CASES[key]), *key) == []


def test_golden_value_checks_fail_on_a_wrong_prompt() -> None:
    """A planted fault: the Detective's vote checked against the Doctor's values."""
    prompt = build_case(CASES[(ActionKind.VOTE, Role.DETECTIVE)])
    faults = value_faults(prompt, ActionKind.VOTE, Role.DOCTOR)
    assert faults == ["asks Player 3 for vote", "identity", f"fact {DOCTOR_HISTORY!r}"]
