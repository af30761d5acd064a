"""The protocol table is what the game runs: every action has a row, every step's router passes
exactly the steps its row names and fails on any other, the graph's edges are the table's, a
misspelt step fails the type check, and no module imports a layer above its own."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest

from edge_sweep import drawn_edges
from mafia.game.actions import ActionKind
from mafia.game.events import EVENT_TYPES, NIGHT_EVENTS
from mafia.game.protocol import ACTIONS, FIRST_STEP, STEPS, StepError, route
from mafia.game.rules import ROLES, Role
from mafia.game.state import StepName
from mafia.graph import compile_graph
from mafia.models.house.decisions import HANDLERS, Knobs, UnhandledAction, decide
from mafia.models.house.prompt_reading import PromptView
from mafia.prompts.templates import TEMPLATE_FIELDS
from repo import ROOT

SRC = ROOT / "src" / "mafia"


def test_every_action_has_one_row_and_every_step_one_spec() -> None:
    assert set(ACTIONS) == set(ActionKind)
    assert set(STEPS) == set(get_args(StepName))
    for kind, spec in ACTIONS.items():
        assert spec.template == f"tasks/{kind.value}"
        assert (SRC / "prompts" / f"{spec.template}.txt").exists()
        assert (spec.fallback_text is not None) == (spec.text_field is not None), kind
        assert not spec.claims or spec.text_field is not None, kind


def test_every_role_and_action_has_its_row_templates_and_house_tactic() -> None:
    """A role's row names its side, its playbook (a template that exists) and its night action (an
    action with a row) with how that is logged, told and applied: its event (a class of the log
    with a type of its own), the verb that tells it and the rule the players read; every action has
    its task template (with its placeholders) and the house model's tactic."""
    assert set(ROLES) == set(Role)
    for role, spec in ROLES.items():
        assert (SRC / "prompts" / f"{spec.playbook(role)}.txt").exists(), role
        assert spec.playbook(role) in TEMPLATE_FIELDS, role
        assert spec.night_action is None or spec.night_action in ACTIONS, role
        assert spec.side in ("mafia", "town"), role
        assert (spec.night is None) == (spec.night_action is None), role
        if spec.night is not None:
            assert spec.night.verb and spec.night.rule, role
            assert NIGHT_EVENTS[role] in EVENT_TYPES, role
            assert NIGHT_EVENTS[role].model_fields["type"].default == spec.night.event, role
            assert set(spec.night.fields) <= set(NIGHT_EVENTS[role].model_fields), role
    events = [spec.night.event for spec in ROLES.values() if spec.night is not None]
    assert len(set(events)) == len(events)
    assert set(HANDLERS) == set(ActionKind)
    for kind, action in ACTIONS.items():
        assert (SRC / "prompts" / f"{action.template}.txt").exists(), kind
        assert action.template in TEMPLATE_FIELDS, kind


def test_the_house_model_refuses_an_action_it_has_no_tactic_for() -> None:
    view = PromptView(me="Player 1", action="bodyguard_guard", living=["Player 1", "Player 2"])
    with pytest.raises(UnhandledAction, match="no tactic for the action 'bodyguard_guard'"):
        decide(view, frozenset(), random.Random(0), Knobs())


def test_every_row_names_only_steps_of_the_table() -> None:
    for name, spec in STEPS.items():
        assert set(spec.follows) <= set(STEPS), name
        assert len(set(spec.follows)) == len(spec.follows), name


def test_a_router_fails_loudly_on_a_step_its_row_does_not_declare() -> None:
    """Each router passes every follower its row declares and stops at any other step: nothing is
    routed by default."""
    for name, spec in STEPS.items():
        router = route(name)
        for step in get_args(StepName):
            state: Any = {"step": step}
            if step in spec.follows:
                assert router(state) == step
            else:
                with pytest.raises(StepError, match=f"step {name!r} named {step!r} next"):
                    router(state)


def test_the_graph_draws_the_tables_edges_and_no_other() -> None:
    expected: set[tuple[str, str]] = {("__start__", FIRST_STEP)}
    for name, spec in STEPS.items():
        expected |= {(name, after) for after in spec.follows} if spec.follows else {(name, "__end__")}
    assert drawn_edges(compile_graph().get_graph()) == expected


def test_a_step_asks_or_runs_and_applies_what_it_asks() -> None:
    for name, spec in STEPS.items():
        if name == FIRST_STEP:
            continue
        assert (spec.ask is None) == (spec.run is not None), name
        if spec.ask is not None:
            assert spec.record is not None or spec.settle is not None, name


# ---- a misspelt step fails the type check ---------------------------------------------------

_GOOD_ROUTER = """
from mafia.game.state import GameUpdate


def record(queue: list[str]) -> GameUpdate:
    return {"step": "mafia_round2" if queue else "night_resolution"}
"""


def _mypy(files: list[Path]) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", *map(str, files)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return run.stdout + run.stderr


@pytest.mark.slow
def test_a_misspelt_step_fails_mypy(tmp_path: Path) -> None:
    """The rules that name the step after Round 1 and a router, each copied as is (clean) and with
    one step misspelt."""
    rules = (SRC / "game" / "rules.py").read_text()
    assert rules.count('KillProgress("mafia_round2")') == 1
    files = {
        "rules_clean.py": rules,
        "rules_typo.py": rules.replace('KillProgress("mafia_round2")', 'KillProgress("mafia_rund2")'),
        "router_clean.py": _GOOD_ROUTER,
        "router_typo.py": _GOOD_ROUTER.replace('"night_resolution"', '"night_resolutoin"'),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    out = _mypy([tmp_path / name for name in files])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert not [e for e in errors if "_clean.py" in e], out
    assert any("rules_typo.py" in e and "mafia_rund2" in e for e in errors), out
    assert any("router_typo.py" in e and "night_resolutoin" in e for e in errors), out


# ---- layers ---------------------------------------------------------------------------------


def _lint_imports(src: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's contracts (pyproject.toml) checked on the package under ``src``."""
    return subprocess.run(
        [
            str(Path(sys.executable).parent / "lint-imports"),
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(src)},
    )


@pytest.mark.slow
def test_the_layers_contract_fails_on_an_upward_import(tmp_path: Path) -> None:
    """The package as it is keeps the contracts; with one module of the game importing the player
    subgraph, the layers contract breaks and names the import."""
    shutil.copytree(SRC, tmp_path / "mafia", ignore=shutil.ignore_patterns("__pycache__"))
    kept = _lint_imports(tmp_path)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    rules = tmp_path / "mafia" / "game" / "rules.py"
    rules.write_text(rules.read_text() + "\nimport mafia.nodes.player  # planted\n")
    broken = _lint_imports(tmp_path)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "mafia.game.rules -> mafia.nodes.player" in broken.stdout, broken.stdout


@pytest.mark.slow
def test_the_graph_and_runner_load_without_the_command_line() -> None:
    code = (
        "import sys, mafia.play.runner, mafia.run.tracing, mafia.game.protocol; "
        "print(sorted(m for m in ('typer', 'mafia.commands.cli_frame', 'mafia.commands.checks')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
