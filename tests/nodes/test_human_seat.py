"""A person's seat driven from Python through LangGraph interrupts: whole games resumed with
``Command(resume=...)``, the payload a person sees, answers checked and logged like a model's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from mafia.game.actions import Answer
from mafia.graph import compile_graph
from mafia.models.factory import resolve_model, structured
from mafia.play.runner import run_game
from mafia.run.runtime import GameContext
from mafia.turn.people import HUMAN, render_context

SETUP = {"seed": 5, "players": 7}


def house_answer(payload: dict[str, Any]) -> dict[str, Any]:
    """What the house model answers to the prompt shown to the person (its context rendered back
    into the prompt's exact text: the rendering loses nothing)."""
    user = "\n".join(
        f"[{line[3:].upper()}]" if line.startswith("## ") else line
        for line in payload["context"].splitlines()
    )
    assert render_context(user) == payload["context"]
    messages = [SystemMessage(payload["rules"]), HumanMessage(user)]
    out = structured(resolve_model("house"), Answer).invoke(messages)
    return dict(out["parsed"].model_dump(mode="json"))


def test_a_person_answering_as_the_house_model_leaves_the_same_game(tmp_path: Path) -> None:
    """Seat 3 played through interrupts with the house model's own answers: the event log is
    byte-identical to the all-house game (the same checks and logs, the other seats unmoved)."""
    asked: list[dict[str, Any]] = []

    def respond(payload: dict[str, Any]) -> dict[str, Any]:
        asked.append(payload)
        return house_answer(payload)

    person = run_game(SETUP, seat_models={"3": HUMAN}, human=respond, out_dir=tmp_path / "person")
    house = run_game(SETUP, out_dir=tmp_path / "house")
    assert person["winner"] == house["winner"] is not None
    (run,) = (tmp_path / "person").iterdir()
    assert (run / "events.jsonl").read_bytes() == (
        tmp_path / "house" / run.name / "events.jsonl"
    ).read_bytes()
    assert json.loads((run / "run.json").read_text())["seat_models"] == {"3": "human"}

    assert asked and {p["player"] for p in asked} == {"Player 3"} and {p["seat"] for p in asked} == {3}
    actions = {p["action"] for p in asked}
    assert "speak" in actions and "vote" in actions
    vote = next(p for p in asked if p["action"] == "vote")
    assert vote["options"] and vote["options"][-1] == "skip" and vote["text"] is None
    assert (
        "## Your task: vote" in vote["context"]
        and "Valid targets: " + ", ".join(vote["options"]) in vote["context"]
    )
    speak = next(p for p in asked if p["action"] == "speak")
    assert speak["text"] == "speech" and speak["choice_optional"] and speak["claim_roles"]

    def records(folder: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (folder / "prompts.jsonl").read_text().splitlines()]

    # A person's turn calls no model: it bills nothing and primes no provider cache, so the cache
    # figures of later calls differ; everything else of every record is the same.
    cache = ("cached_tokens", "billed_tokens")
    billed = ("attempts", "prompt_tokens", "schema_tokens", "output_tokens", *cache)

    def without(record: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
        kept = {k: v for k, v in record.items() if k not in keys}
        if "attempts" in kept:
            kept["attempts"] = [without(a, cache) for a in kept["attempts"]]
        return kept

    mine = records(run)
    theirs = records(tmp_path / "house" / run.name)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs, strict=True):
        keys = billed if a["seat"] == 3 else cache
        if a["seat"] == 3:
            assert a["billed_tokens"] == 0 and a["attempts"][0]["prompt_tokens"] == 0
        assert without(a, keys) == without(b, keys)


def test_several_people_at_once_resume_by_interrupt_id_and_bad_answers_are_re_asked() -> None:
    """The graph driven as in Studio: two people at the table, answered in one Command per pause
    (keyed by interrupt id when both vote at once); an illegal choice and a wrong type are re-asked
    with the error, and an answer never given right ends in the logged fallback."""
    game = compile_graph(checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": "people"}, "recursion_limit": 10_000}
    context = GameContext(seat_models={"2": HUMAN, "Player 6": HUMAN}, max_retries=1)
    out = game.invoke({"setup": dict(SETUP)}, cfg, context=context)
    pauses, together, re_asked, stubborn = 0, 0, [], 0
    while out.get("__interrupt__"):
        pauses += 1
        assert pauses < 300, "the game never moves on from the people's turns"
        pending = out["__interrupt__"]
        together = max(together, len(pending))
        answers: dict[str, Any] = {}
        for turn in pending:
            payload = turn.value
            assert {"player", "action", "options", "context", "rules", "error"} <= payload.keys()
            if payload["error"] is not None:
                re_asked.append(payload)
            if payload["player"] == "Player 6" and payload["action"] == "vote":
                stubborn += 1  # never a legal ballot: re-asked once, then the fallback
                answers[turn.id] = {"choice": "nobody"}
            elif payload["options"] and payload["attempt"] == 1 and not payload["text"]:
                answers[turn.id] = 12345.5  # not an answer at all
            elif payload["text"]:
                answers[turn.id] = f"{payload['player']} here: I speak plainly."
            else:
                answers[turn.id] = {
                    "choice": f"  {payload['options'][0].upper()} "
                }  # case and spaces forgiven
        out = game.invoke(Command(resume=answers), cfg, context=context)
    assert out["winner"] is not None and pauses > 3
    assert together == 2  # both people voted in the same step
    assert any(p["attempt"] == 2 and "must be an object" in p["error"] for p in re_asked)
    assert any("is not allowed" in p["error"] for p in re_asked)
    records = game.get_state(cfg).values["prompts"]
    events = out["events"]
    fallbacks = [e for e in events if e["type"] == "fallback" and e["player"] == "Player 6"]
    assert (
        stubborn and len(fallbacks) == stubborn // 2 and all(f["kind"] == "illegal_choice" for f in fallbacks)
    )
    taken = [r for r in records if r["player"] == "Player 2" and r["action"] == "vote"]
    assert taken and all(len(r["attempts"]) == 2 and r["attempts"][0]["kind"] == "schema" for r in taken)
    assert all(r["choice"] in (None, "skip") or r["choice"].startswith("Player") for r in taken)
    speeches = [e for e in events if e["type"] == "speech" and e["speaker"] == "Player 2"]
    assert speeches and speeches[0]["text"] == "Player 2 here: I speak plainly."


def test_a_person_seat_needs_someone_to_answer() -> None:
    with pytest.raises(ValueError, match="played by a person"):
        run_game(SETUP, seat_models={"3": HUMAN})
