"""Which parameters of a sweep the default run plays and which wait for ``-m slow`` (``make
test-slow``): the default run keeps a sample that still holds every size, edge and kind."""

from __future__ import annotations

from typing import Any

import pytest

from mafia.context.policy import POLICIES

# The policies the default run plays in its per-policy audits (they search, summarise or trim);
# the plain windows' games of those audits run with -m slow.
SAMPLED_POLICIES = ("seed-window", "rolling-summary", "layered", "lean")

AUDIT_MODULES = (
    "test_leak_audit",  # canaries in every private field, 200 games
    "test_recall_audit",  # canaries and foreign lines through recall and summaries
    "test_fact_audit",  # every fact a player is entitled to, in every prompt
    "test_adversarial_play",  # forged engine lines, unencodable notes, hostile searches
    "test_summary_guard",  # an adversarial summariser
    "test_speech_safety",  # speeches that imitate the engine
    "test_views",  # each private field shown to exactly its players
    "test_claims",  # every claim in every later prompt
    "test_call_budget",  # every call within its budget
    "test_fault_server",  # a faulty provider behind the real client
    "test_judge_na",  # the arena's judge
    "test_random_play",  # random legal play through the graph, refereed from its log
    "test_table_driver",  # random legal play over the protocol table, refereed
    "test_graph_edges",  # a sweep takes every drawn edge
)
"""The audit modules: each keeps at least one case in the default run, however its sweeps are
sampled (``test_default_run.py`` collects the default run and holds it to that). A new module
whose name says it audits belongs here."""


def policy_kept(name: str) -> bool:
    """Whether the default run plays the registered policy ``name`` in a per-policy audit. A name
    that is no registered policy (one renamed for a case, say) is an error, never a quiet no."""
    if name not in POLICIES:
        raise KeyError(f"{name!r} is no registered policy: sample by the registered name")
    return name in SAMPLED_POLICIES


def sample(*values: Any, kept: bool, id: str | None = None) -> Any:
    """One parameter set: in the default run when ``kept``, else with -m slow."""
    return pytest.param(*values, id=id, marks=() if kept else pytest.mark.slow)


def sampled(chunks: int, default: int) -> list[Any]:
    """The chunks of a sweep: the first ``default`` in the default run, the rest with -m slow."""
    return [sample(c, kept=c < default) for c in range(chunks)]
