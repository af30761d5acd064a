"""A token budget bounds every call as billed, not only every prompt: under ``layered`` the
prompt is built to fit beside the answer schema and the recall tool, a re-ask's rejected answer is
cut to the room the prompt and the error leave, a recall exchange is offered only while there is
room for it and its hits are fitted to what is left, and a call that still runs over is logged
with why (``over_budget`` on its attempt). What is bounded is the call's input as a provider bills
it: the messages with their role lines, the schema and the tools (``prompt_tokens +
schema_tokens``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fact_presence import audit_prompts, capture_prompts
from fakes import Ask, ScriptedModel
from fakes.adversarial import AdversarialPlayer
from mafia.arena.context_tools import budget_calls
from mafia.context.call_budget import LEFT_OUT, fit_tokens
from mafia.context.policy import ContextPolicy, policy_by_name
from mafia.context.sections import TIE_BALLOTS_ABOVE
from mafia.context.tokens import count_tokens
from mafia.game.actions import ACTION_SCHEMAS, ActionKind
from mafia.models.billing import encode, schema_text
from mafia.models.house import HouseModel
from mafia.nodes.recall_step import RECALL_TOOL
from mafia.play.runner import run_game
from mafia.records.call_kinds import rejected
from test_recall import stalemate

LAYERED = policy_by_name("layered")


def _records(model: Any, policy: ContextPolicy, players: int = 7) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    run_game({"seed": 0, "players": players}, model=model, policy=policy, on_prompt=records.append)
    return records


def _head(action: str) -> int:
    """The tokens a provider bills for a first ask's answer schema and the recall tool beside it,
    counted here from their JSON as the OpenAI client sends them."""
    tool = json.dumps(RECALL_TOOL, ensure_ascii=False, separators=(",", ":"))
    return len(encode(schema_text(ACTION_SCHEMAS[ActionKind(action)]) + tool + "\n"))


def billed_input(attempt: dict[str, Any]) -> int:
    """A call's input as billed: the messages with their role lines, the schema and the tools."""
    return int(attempt["prompt_tokens"]) + int(attempt["schema_tokens"])


def test_every_call_of_an_adversarial_layered_game_fits_the_budget() -> None:
    """Read from the prompt records: every call (the prompt, a re-ask's exchange, a recall
    exchange) within the budget as billed, its schema and tools counted."""
    records = _records(AdversarialPlayer(seed=0), LAYERED)
    attempts = [a for r in records for a in r["attempts"]]
    budget = LAYERED.token_budget or 0
    over = [(a["kind"], billed_input(a)) for a in attempts if billed_input(a) > budget]
    assert over == []
    assert sum(1 for a in attempts if a["kind"] == "invalid_text") > 10  # re-asks
    assert sum(1 for a in attempts if a["kind"] == "recall") > 10  # recall exchanges
    # The budget is used, not merely met: some call comes within the schema's size of it.
    assert max(billed_input(a) for a in attempts) > budget - 100
    unbilled: list[tuple[str, int, int]] = []
    for r in records:
        head = _head(r["action"])
        # A first call's messages are the prompt as recorded.
        assert r["attempts"][0]["context_tokens"] == count_tokens(r["system"]) + count_tokens(r["user"])
        for i, a in enumerate(r["attempts"]):
            if any(rejected(b) for b in r["attempts"][:i]):  # a re-ask's schema may list the options
                billed = a["schema_tokens"] >= head
            else:
                billed = a["schema_tokens"] == head
            if not billed or a["prompt_tokens"] < a["context_tokens"]:
                unbilled.append((r["id"], i, a["schema_tokens"]))
    assert unbilled == []


def test_a_call_over_the_budget_is_logged_with_why() -> None:
    """A budget no prompt can meet: every call is over it, and says the prompt alone is."""
    attempts = [
        a for r in _records(HouseModel(seed=0), ContextPolicy(token_budget=300), 5) for a in r["attempts"]
    ]
    assert attempts and all(billed_input(a) > 300 for a in attempts)
    assert all(a["over_budget"].startswith("the prompt alone is ") for a in attempts)


def test_a_rejected_answer_is_cut_to_the_room_left() -> None:
    text = "word " * 400
    cut = fit_tokens(text, 100)
    assert count_tokens(cut) <= 100 and cut.endswith("…") and text.startswith(cut[:-1])
    assert fit_tokens(text, 22) == LEFT_OUT
    assert fit_tokens(text, 10) == "…"  # where even the note does not fit
    assert fit_tokens("short", 100) == "short"


def _long_illegal_ballot(ask: Ask) -> dict[str, Any] | None:
    """Speeches that nominate at length; every first ballot names someone not at the table (an
    error quotes its start back); re-asked, the ballot is a skip."""
    if ask.action == "vote" and not ask.retry:
        return {"choice": "Somebody who is not at this table, " * 30}
    words = {"text": "I have listened to everyone today and I will keep listening. " * 6}
    if ask.action == "speak":  # every speech nominates, so every day votes
        return {**words, "choice": next(t for t in ask.targets if t != "skip")}
    return words


def test_a_re_ask_whose_error_leaves_no_room_is_asked_with_a_shorter_prompt() -> None:
    """A long error after a full prompt: the re-ask's prompt is rendered again under a lower
    budget, so the prompt, the rejected answer and the error fit the budget together."""
    records = _records(ScriptedModel(script=_long_illegal_ballot), LAYERED, players=12)
    budget = LAYERED.token_budget or 0
    votes = [r for r in records if r["action"] == "vote"]
    reasks = [a for r in votes for a in r["attempts"][1:]]
    assert reasks and all(r["attempts"][0]["kind"] == "illegal_choice" for r in votes)
    # The first asks came close to the budget: the error could not fit beside them.
    assert any(billed_input(r["attempts"][0]) + 300 > budget for r in votes)
    assert [billed_input(a) for a in reasks if billed_input(a) > budget] == []


def test_an_arena_counts_a_call_within_the_budget_as_billed() -> None:
    """The arena's budget column counts a call as billed: messages within the budget whose schema
    brings the call over it are over."""
    turns = [
        {"attempts": [{"prompt_tokens": 1100, "schema_tokens": 427, "context_tokens": 1080}]},
        {"attempts": [{"prompt_tokens": 1000, "schema_tokens": 427, "context_tokens": 980}]},
    ]
    assert budget_calls(turns, 1500) == {"within": 1, "calls": 2}
    assert budget_calls(turns, None) == {"within": 0, "calls": 0}


def test_a_prompt_over_its_budget_writes_a_tie_and_protections_shorter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over its budget, a defense's prompt leaves the tie's ballots to today's transcript (which
    holds them) and a Doctor's protections name each player once with their nights; every fact
    stays (or, for an old day, is one the prompt says it left to recall)."""
    policy = ContextPolicy(token_budget=1, recall=True, prune_beliefs=True, name="tight")
    with capture_prompts(monkeypatch) as built:
        run_game(
            {"seed": 4, "players": 7, "round_cap": 3}, model=ScriptedModel(script=stalemate), policy=policy
        )
    ties = [b.prompt for b in built if "tie's ballots left to the transcript" in b.prompt.trimmed]
    assert ties
    for prompt in ties:
        assert TIE_BALLOTS_ABOVE in prompt.user and "Votes: " in section_text(prompt, "transcript")
        assert "Votes: " not in section_text(prompt, "defense")
    grouped = [
        b.prompt
        for b in built
        if b.prompt.section("memory") is not None and "Your protections: " in section_text(b.prompt, "memory")
    ]
    assert any("(nights " in section_text(p, "memory") for p in grouped)
    assert audit_prompts(built) == []


def section_text(prompt: Any, name: str) -> str:
    found = prompt.section(name)
    return found.text if found is not None else ""
