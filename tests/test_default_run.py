"""The default run (``make test``) keeps a case of every audit module: pytest's own collection of
the audit modules, with the markers the project's configuration selects by default, must select at
least one case of each (``sampling.AUDIT_MODULES``), so no sampling rule can leave an audit out of
the run every change goes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from repo import ROOT, TESTS
from sampling import AUDIT_MODULES


class Selected:
    """A plugin that keeps the node ids the collection selected (after the markers' deselection)."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.ids = [item.nodeid for item in session.items]


def module_paths() -> dict[str, Path]:
    """Every test module under tests/, by module name (wherever its layer's folder puts it)."""
    return {path.stem: path for path in sorted(TESTS.rglob("test_*.py"))}


def default_selection(paths: list[Path]) -> dict[Path, int]:
    """The cases of ``paths`` that the default run selects, per module: pytest's collection in this
    process with the project's configuration (its default ``-m``), nothing run."""
    selected = Selected()
    args = ["--collect-only", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT), "-c"]
    code = pytest.main([*args, str(ROOT / "pyproject.toml"), *map(str, paths)], plugins=[selected])
    assert code in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED), f"collection failed: {code}"
    counts = dict.fromkeys(paths, 0)
    for node in selected.ids:
        counts[ROOT / node.split("::")[0]] += 1
    return counts


def test_every_audit_module_is_listed_and_exists() -> None:
    modules = module_paths()
    assert sorted(set(AUDIT_MODULES) - set(modules)) == []  # a renamed or moved-away audit
    assert len(set(AUDIT_MODULES)) == len(AUDIT_MODULES)
    unlisted = sorted(name for name in modules if "audit" in name and name not in AUDIT_MODULES)
    assert unlisted == [], "a module that says it audits is in sampling.AUDIT_MODULES"


def test_the_default_run_selects_a_case_of_every_audit_module() -> None:
    modules = module_paths()
    counts = default_selection([modules[name] for name in AUDIT_MODULES])
    empty = sorted(path.stem for path, n in counts.items() if n == 0)
    assert empty == [], f"audit modules with no case in the default run: {empty}"
