"""Where things are in the repository, for the tests in every folder: the root, the benches, the
examples, the tests' own data and golden files, and the test folders themselves."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
BENCH = ROOT / "bench"
EXAMPLES = ROOT / "examples"
DATA = TESTS / "data"
GOLDEN = TESTS / "golden"
SUPPORT = TESTS / "support"
NOT_TEST_FOLDERS = frozenset({"data", "golden", "__pycache__"})


def test_folders() -> list[Path]:
    """The folders that hold tests (one per layer) and their helpers, in a fixed order: what a
    script outside pytest puts on its import path to load them as pytest does."""
    return [TESTS, *sorted(p for p in TESTS.iterdir() if p.is_dir() and p.name not in NOT_TEST_FOLDERS)]
