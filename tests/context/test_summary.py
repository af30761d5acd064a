"""Rolling summaries of the cold days: written once for the table at dawn and shown in every prompt,
written by the house model deterministically, billed as the summariser's calls, rolled forward
(the previous picks offered again), and replaced by the deterministic compression, with the reason
logged, whenever the summariser fails, answers badly or gives no item the log holds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import httpx2  # the HTTP client openai is built on
import openai
import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from fact_presence import audit_prompts, capture_prompts
from fakes import Ask, ScriptedModel
from fakes.adversarial import SpoilingSummariser as Summariser
from mafia.context import ContextPolicy
from mafia.context.builder import SEPARATOR
from mafia.context.policy import policy_by_name
from mafia.context.summary import SUMMARISER, ground_answer, summary_request
from mafia.context.summary_items import SummaryAnswer
from mafia.context.transcript_text import COMPRESSED_LABEL
from mafia.game.events import (
    ColdSummary,
    DayStarted,
    DefenseSpeech,
    Elimination,
    EventBase,
    LastWords,
    NightResolution,
    Speech,
    SummaryFallback,
    parse_event,
)
from mafia.game.rules import SKIP
from mafia.models.house import HouseModel
from mafia.play.runner import run_game
from mafia.prompts import anchors

ROLLING = policy_by_name("rolling-summary")
GAME = {"seed": 5, "players": 12}


def _events(state: dict[str, Any]) -> list[EventBase]:
    return [parse_event(e) for e in state["events"]]


def _play(summariser: Any = None, records: list[dict[str, Any]] | None = None) -> list[EventBase]:
    out = records if records is not None else []
    state = run_game(
        GAME, model=HouseModel(seed=5), policy=ROLLING, summariser=summariser, on_prompt=out.append
    )
    return _events(state)


def test_the_house_summary_is_written_once_a_dawn_checked_and_shown_to_every_player(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records: list[dict[str, Any]] = []
    with capture_prompts(monkeypatch) as built:
        events = _play(records=records)
    summaries = [e for e in events if isinstance(e, ColdSummary)]
    assert summaries and not [e for e in events if isinstance(e, SummaryFallback)]
    calls = [r for r in records if r["player"] == SUMMARISER]
    assert len(calls) == len(summaries) and all(r["billed_tokens"] > 0 for r in calls)
    first = summaries[0]
    shown = [b for b in built if f"Summary of Days 1-{first.through}" in b.prompt.user]
    assert len({b.player for b in shown}) > 3  # one summary, shared by the table
    assert all(b.prompt.round_number >= first.round for b in shown)
    assert audit_prompts(built) == []
    assert _play() == events  # the same seed and models: the same summaries, byte for byte


NIGHT_ACTIONS = ("night_kill", "protect", "investigate", "guard")


def test_the_summary_call_opens_with_the_previous_nights_turns_bytes() -> None:
    """The summariser's call sends the turns' system message, then the public transcript exactly
    as the night's turns sent it, its own part after it. Its schema is the summary's own (items,
    not the turn's answer), so a provider's cache, which starts from the tools, does not serve it
    from the turns' calls: the price of an answer no free text can be read from."""
    records: list[dict[str, Any]] = []
    _play(records=records)
    calls = [r for r in records if r["player"] == SUMMARISER]
    assert calls
    for call in calls:
        night = [r for r in records if r["round"] == call["round"] - 1 and r["action"] in NIGHT_ACTIONS]
        assert night, call["id"]
        for turn in night:
            shared = turn["user"].split(SEPARATOR + anchors.STATE)[0] + SEPARATOR
            assert turn["system"] == call["system"] and call["user"].startswith(shared), turn["id"]
        assert 0 < call["schema_tokens"] < night[0]["schema_tokens"]  # the items' schema, not the turn's


def _no_one_dies(ask: Ask) -> dict[str, Any]:
    """Every ballot and every kill skipped, no claim: days go cold without a death or a new claim."""
    return {"choice": SKIP} if ask.action not in ("speak", "defense", "last_words", "night_zero") else {}


def _dawn(events: list[EventBase], day: int) -> list[EventBase]:
    """The log up to and with the dawn of ``day`` (its ``DayStarted``), as the summariser sees it."""
    dawn = next(i for i, e in enumerate(events) if isinstance(e, DayStarted) and e.round == day)
    return events[: dawn + 1]


def test_a_summary_that_is_not_due_is_not_asked() -> None:
    # Nobody dies and nobody claims: the first cold day (Day 1, cold at the dawn of Day 3 behind
    # the two-day window) alone is not due; the second cold day makes the two that are.
    state = run_game({"seed": 2, "players": 6, "round_cap": 5}, model=ScriptedModel(script=_no_one_dies))
    events = _events(state)
    assert not any(isinstance(e, Elimination) for e in events)
    assert all(not e.deaths for e in events if isinstance(e, NightResolution))
    assert not any(isinstance(e, Speech | DefenseSpeech | LastWords) and e.claim for e in events)
    assert summary_request(_dawn(events, 3), ROLLING, 3) is None  # one cold day of the two due
    due = summary_request(_dawn(events, 4), ROLLING, 4)
    assert due is not None and due.through == 2
    every_day = dataclasses.replace(ROLLING, summary_every=1, name="")
    assert summary_request(_dawn(events, 3), every_day, 3) is not None  # only the cadence held it
    played = run_game(
        {"seed": 2, "players": 6, "round_cap": 5},
        model=ScriptedModel(script=_no_one_dies),
        policy=ROLLING,
        summariser=HouseModel(seed=2),
    )
    assert [(e.round, e.through) for e in _events(played) if isinstance(e, ColdSummary)][:1] == [(4, 2)]
    assert summary_request(events, ContextPolicy(), 4) is None  # the default policy: never


def _fallbacks(events: list[EventBase]) -> list[SummaryFallback]:
    return [e for e in events if isinstance(e, SummaryFallback)]


def _kept(items: dict[str, Any], _: Sequence[str]) -> dict[str, Any]:
    return items


def _broken(_: dict[str, Any], __: Sequence[str]) -> dict[str, Any]:
    raise RuntimeError("the summariser is down")


def _lies(_: dict[str, Any], seats: Sequence[str]) -> dict[str, Any]:
    said = {"day": 1, "speaker": seats[0], "words": "the vote was 6 to 1"}
    return {"facts": [0], "speeches": [said], "patterns": []}


class Silent(Summariser):
    """Answers without the summary tool call: a bad answer."""

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage("no tool call here"))])


@pytest.mark.parametrize(
    ("summariser", "reason"),
    [
        (Summariser(spoil=_broken), "the summariser failed: RuntimeError"),
        (Silent(spoil=_kept), ""),
        (Summariser(spoil=_lies, seats=["Player 1"]), "no item the log holds"),
    ],
    ids=["raises", "answers-without-a-summary", "answers-only-lies"],
)
def test_a_failing_summariser_falls_back_to_the_compressed_days(
    monkeypatch: pytest.MonkeyPatch, summariser: Summariser, reason: str
) -> None:
    records: list[dict[str, Any]] = []
    with capture_prompts(monkeypatch) as built:
        events = _play(summariser, records)
    fallbacks = _fallbacks(events)
    assert fallbacks and not [e for e in events if isinstance(e, ColdSummary)]
    assert all(f.reason and f.summariser for f in fallbacks)
    assert all(f.reason.startswith(reason) for f in fallbacks)
    assert any(COMPRESSED_LABEL in b.prompt.user for b in built)
    assert not any("Summary of Days" in b.prompt.user for b in built)
    assert all(r["fallback"] for r in records if r["player"] == SUMMARISER)
    assert audit_prompts(built) == []


def _outage(_: dict[str, Any], __: Sequence[str]) -> dict[str, Any]:
    raise openai.APIConnectionError(request=httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions"))


def test_a_provider_fault_of_the_summariser_stops_the_game_as_a_players_does() -> None:
    """Not a fallback: the game stops at that dawn, and resuming it asks the summariser again."""
    with pytest.raises(openai.APIConnectionError):
        _play(Summariser(spoil=_outage))


def test_a_summary_rolls_forward_from_the_previous_picks() -> None:
    """Each summary after the first is offered the previous one's picks (its fact numbers, its
    quotes and patterns as players read them), and the house keeps them: the summary is recursive."""
    records: list[dict[str, Any]] = []
    events = _play(records=records)
    summaries = [e for e in events if isinstance(e, ColdSummary)]
    assert len(summaries) >= 2
    calls = [r for r in records if r["player"] == SUMMARISER]
    for before, after, call in zip(summaries, summaries[1:], calls[1:], strict=False):
        assert f"Days 1-{before.through}; Previous picks: facts " in call["user"]
        assert set(before.facts) <= set(after.facts)
        assert all(s in after.speeches for s in before.speeches[:1])


def test_the_grounding_reads_an_answer_against_the_log() -> None:
    events = _play()
    summary = next(e for e in events if isinstance(e, ColdSummary))
    upto = events[: events.index(summary)]
    answer = SummaryAnswer.model_validate(
        {
            "facts": summary.facts,
            "speeches": [s.model_dump() for s in summary.speeches],
            "patterns": [p.model_dump() for p in summary.patterns],
        }
    )
    grounded = ground_answer(upto, answer, summary.through)
    assert not grounded.refused and (grounded.facts, grounded.speeches) == (summary.facts, summary.speeches)
    lied = answer.model_copy(update={"facts": [*answer.facts, 10**4]})
    assert ground_answer(upto, lied, summary.through).refused == ["fact 10000: no fact F10000 is listed"]


def test_the_summariser_may_be_a_seat_model() -> None:
    records: list[dict[str, Any]] = []
    events = _play("seat:2", records)
    assert next(e.summariser for e in events if isinstance(e, ColdSummary)) == "seat:2"
