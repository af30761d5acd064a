"""The protocol table is what the game runs: every action has a row, every step's router passes
exactly the steps its row names and fails on any other, the graph's edges are the table's, a
misspelt step fails the type check, and no module imports a layer above its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest

from edge_sweep import drawn_edges
from mafia.game.actions import ActionKind
from mafia.game.protocol import ACTIONS, FIRST_STEP, STEPS, StepError, route
from mafia.game.state import StepName
from mafia.graph import compile_graph

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "mafia"


def test_every_action_has_one_row_and_every_step_one_spec() -> None:
    assert set(ACTIONS) == set(ActionKind)
    assert set(STEPS) == set(get_args(StepName))
    for kind, spec in ACTIONS.items():
        assert spec.template == f"tasks/{kind.value}"
        assert (SRC / "prompts" / f"{spec.template}.txt").exists()
        assert (spec.fallback_text is not None) == (spec.text_field is not None), kind
        assert not spec.claims or spec.text_field is not None, kind


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
    expected = {("__start__", FIRST_STEP)}
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


def _imports(path: Path) -> set[str]:
    """The modules a source file imports (absolute imports, as the project writes them)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def _module(path: Path) -> str:
    return ".".join(path.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__")


MODULES = {_module(p): _imports(p) for p in SRC.rglob("*.py")}
CLI = ("typer", "mafia.cli", "mafia.cli_frame", "mafia.checks")


def _violations(importer_prefix: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{module} imports {name}"
        for module, names in MODULES.items()
        if module.startswith(importer_prefix)
        for name in names
        if name.startswith(forbidden)
    )


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert _violations("mafia.nodes", CLI) == []
    assert _violations("mafia.graph", CLI) == []
    assert (
        _violations(
            "mafia.game.protocol",
            (*CLI, "mafia.nodes.player", "mafia.nodes.turns", "mafia.nodes.setup", "langgraph"),
        )
        == []
    )
    assert _violations("mafia.game_settings", (*CLI, "mafia.nodes", "langgraph")) == []
    assert _violations("mafia.tracing", ("mafia.nodes", *CLI)) == []
    assert _violations("mafia.arena", ("mafia.nodes",)) == []
    assert (
        _violations("mafia.context", ("mafia.nodes.player", "mafia.nodes.turns", "mafia.graph", *CLI)) == []
    )
    importers = {m for m, names in MODULES.items() if "mafia.cli_frame" in names}
    assert importers <= {"mafia.cli", "mafia.arena.cli"}


def test_the_layer_check_catches_a_planted_import() -> None:
    MODULES["mafia.nodes.planted"] = {"mafia.cli_frame"}
    try:
        assert _violations("mafia.nodes", CLI) == ["mafia.nodes.planted imports mafia.cli_frame"]
    finally:
        del MODULES["mafia.nodes.planted"]


def test_the_graph_and_runner_load_without_the_command_line() -> None:
    code = (
        "import sys, mafia.runner, mafia.tracing, mafia.game.protocol; "
        "print(sorted(m for m in ('typer', 'mafia.cli_frame', 'mafia.checks') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
