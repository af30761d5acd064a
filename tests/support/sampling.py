"""Which parameters of a sweep the default run plays and which wait for ``-m slow`` (``make
test-slow``): the default run keeps a sample that still holds every size, edge and kind."""

from __future__ import annotations

from typing import Any

import pytest

# The policies the default run plays in its per-policy audits (they search, summarise or trim);
# the plain windows' games of those audits run with -m slow.
SAMPLED_POLICIES = ("seed-window", "rolling-summary", "layered", "lean")


def sample(*values: Any, kept: bool, id: str | None = None) -> Any:
    """One parameter set: in the default run when ``kept``, else with -m slow."""
    return pytest.param(*values, id=id, marks=() if kept else pytest.mark.slow)


def sampled(chunks: int, default: int) -> list[Any]:
    """The chunks of a sweep: the first ``default`` in the default run, the rest with -m slow."""
    return [sample(c, kept=c < default) for c in range(chunks)]
