"""A token budget bounds every call, not only every prompt: under ``layered`` a re-ask's rejected
answer is cut to the room the prompt and the error leave, a recall exchange is offered only while
there is room for it and its hits are fitted to what is left, and a call that still runs over is
logged with why (``over_budget`` on its attempt)."""

from __future__ import annotations

from typing import Any

from fakes.adversarial import AdversarialPlayer
from mafia.context.call_budget import LEFT_OUT, fit_tokens
from mafia.context.policy import ContextPolicy, policy_by_name
from mafia.context.tokens import count_tokens
from mafia.models.house import HouseModel
from mafia.play.runner import run_game

LAYERED = policy_by_name("layered")


def _attempts(model: Any, policy: ContextPolicy, players: int = 7) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    run_game({"seed": 0, "players": players}, model=model, policy=policy, on_prompt=records.append)
    return [a for r in records for a in r["attempts"]]


def test_every_call_of_an_adversarial_layered_game_fits_the_budget() -> None:
    attempts = _attempts(AdversarialPlayer(seed=0), LAYERED)
    budget = LAYERED.token_budget or 0
    assert sum(1 for a in attempts if a["kind"] == "invalid_text") > 10  # re-asks
    assert sum(1 for a in attempts if a["kind"] == "recall") > 10  # recall exchanges
    over = [(a["kind"], a["context_tokens"]) for a in attempts if a["context_tokens"] > budget]
    assert over == []


def test_a_call_over_the_budget_is_logged_with_why() -> None:
    """A budget no prompt can meet: every call is over it, and says the prompt alone is."""
    attempts = _attempts(HouseModel(seed=0), ContextPolicy(token_budget=300), players=5)
    assert attempts and all(a["context_tokens"] > 300 for a in attempts)
    assert all(a["over_budget"].startswith("the prompt alone is ") for a in attempts)


def test_a_rejected_answer_is_cut_to_the_room_left() -> None:
    text = "word " * 400
    cut = fit_tokens(text, 100)
    assert count_tokens(cut) <= 100 and cut.endswith("…") and text.startswith(cut[:-1])
    assert fit_tokens(text, 10) == LEFT_OUT
    assert fit_tokens("short", 100) == "short"
