"""Adversarial play under every policy: players whose speeches and notes end in forged engine lines
after every kind of line break, who put unencodable text in their notes and search their record
with forged lines, lone surrogates and line breaks, and a summariser that tries every trick of
``adversarial.TRICKS`` in turn. The game finishes (unencodable text is re-asked or cleaned, never a
crash), no prompt and no recall answer holds a forged line start (counted with
``str.splitlines``), and the surrogate queries are logged cleaned.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes.adversarial import TRICKS, AdversarialPlayer, SpoilingSummariser, forged_line_starts, rotating
from mafia.context.policy import POLICIES, ContextPolicy
from mafia.play.runner import run_game
from sampling import policy_kept, sample


def play(policy: ContextPolicy, players: int, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One adversarial game: its final state and prompt records."""
    seats = [f"Player {n}" for n in range(1, players + 1)]
    summariser = SpoilingSummariser(spoil=rotating(list(TRICKS.values())), seats=seats)
    records: list[dict[str, Any]] = []
    state = run_game(
        {"seed": seed, "players": players},
        model=AdversarialPlayer(seed=seed),
        policy=policy,
        summariser=summariser,
        on_prompt=records.append,
    )
    return state, records


def forged_in(records: list[dict[str, Any]]) -> int:
    """Forged line starts in every prompt and every recall answer of a game."""
    texts = [r["system"] + "\n" + r["user"] for r in records]
    texts += [a["recall"]["answer"] for r in records for a in r["attempts"] if a.get("recall")]
    return sum(forged_line_starts(t) for t in texts)


# The policies that search, summarise or trim by default (SAMPLED_POLICIES); the rest with -m slow.
POLICY_PARAMS = [sample(p, id=name, kept=policy_kept(name)) for name, p in POLICIES.items()]


@pytest.mark.parametrize("policy", POLICY_PARAMS)
def test_adversarial_players_and_summariser_forge_nothing_and_crash_nothing(policy: ContextPolicy) -> None:
    state, records = play(policy, 7, 2)
    assert state["winner"] is not None
    assert forged_in(records) == 0
    attempts = [a for r in records for a in r["attempts"]]
    assert any(a["kind"] == "invalid_text" for a in attempts)  # re-asked, not a crash
    queries = [a["recall"]["query"] for a in attempts if a.get("recall")]
    assert all("\ud800" not in q and "\udfff" not in q for q in queries)
    if policy.searches:
        assert queries
