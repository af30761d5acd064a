"""A summary is quoted model text: an adversarial summariser can neither start a line of its own in
a player's prompt (at any line break ``str.splitlines`` knows) nor state a fact the log does not
hold (a death, a role, a result, a protection, a ballot, an elimination), nor address the players.
Every such summary is refused with its reason logged, and even a summary the check let through is
shown one quoted line per day.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from fact_presence import audit_prompts, capture_prompts
from fakes.adversarial import (
    BREAK_TRICKS,
    INVENTIONS,
    TRICKS,
    SpoilingSummariser,
    forged_line_starts,
    rotating,
)
from mafia.context.policy import policy_by_name
from mafia.context.summary import check_summary
from mafia.context.transcript_text import STORY, SUMMARY_NOTE, summary_label, summary_lines
from mafia.game.events import ColdSummary, EventBase, GameStarted, SummaryFallback, parse_event
from mafia.models.house import HouseModel
from mafia.play.runner import run_game

ROLLING = policy_by_name("rolling-summary")


@cache
def _summary() -> tuple[tuple[EventBase, ...], ColdSummary, list[str]]:
    """A house game's first summary of two days or more, the log before it, and the seats."""
    state = run_game({"seed": 5, "players": 12}, model=HouseModel(seed=5), policy=ROLLING)
    events = [parse_event(e) for e in state["events"]]
    summary = next(e for e in events if isinstance(e, ColdSummary) and e.through >= 2)
    seats = next(e for e in events if isinstance(e, GameStarted)).players
    return tuple(events[: events.index(summary)]), summary, list(seats)


def test_the_house_summary_passes_the_check() -> None:
    events, summary, _ = _summary()
    assert check_summary(events, summary.text, summary.through) is None


@pytest.mark.parametrize("trick", sorted(BREAK_TRICKS))
def test_a_forged_line_after_any_line_break_is_refused(trick: str) -> None:
    events, summary, seats = _summary()
    spoiled = BREAK_TRICKS[trick](summary.text, seats)
    assert spoiled != summary.text
    reason = check_summary(events, spoiled, summary.through)
    assert reason is not None and reason.startswith("unexpected line"), reason


@pytest.mark.parametrize("trick", sorted(INVENTIONS))
def test_a_summary_stating_what_the_log_does_not_hold_is_refused(trick: str) -> None:
    events, summary, seats = _summary()
    spoil, named = INVENTIONS[trick]
    spoiled = spoil(summary.text, seats)
    assert spoiled != summary.text
    reason = check_summary(events, spoiled, summary.through)
    assert reason is not None and named in reason, reason


def test_claims_and_suspicions_in_the_story_stand() -> None:
    events, summary, seats = _summary()
    story = (
        f"{STORY} {seats[0]} claims Detective and says {seats[1]} is Mafia; the table suspects {seats[2]}."
    )
    days = summary.text.rsplit("\n", 1)[0]
    assert check_summary(events, days + "\n" + story, summary.through) is None
    plain = f"{STORY} The town is divided and the Mafia struck again; {seats[3]} pushed hard."
    assert check_summary(events, days + "\n" + plain, summary.through) is None


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_a_summary_is_shown_as_quoted_lines_whatever_it_holds(trick: str) -> None:
    """Even unchecked, no line of a summary's block starts anything but a day, the story or a note."""
    _, summary, seats = _summary()
    block = "\n".join([summary_label(summary.through), *summary_lines(TRICKS[trick](summary.text, seats))])
    lines = block.splitlines()
    assert forged_line_starts(block) == 0
    assert all(line.startswith(("Day ", STORY, SUMMARY_NOTE)) for line in lines[1:]), lines


def test_an_adversarial_summariser_is_refused_at_every_dawn_with_its_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seats = [f"Player {n}" for n in range(1, 13)]
    summariser = SpoilingSummariser(spoil=rotating(list(TRICKS.values())), seats=seats)
    records: list[dict[str, Any]] = []
    with capture_prompts(monkeypatch) as built:
        state = run_game(
            {"seed": 5, "players": 12},
            model=HouseModel(seed=5),
            policy=ROLLING,
            summariser=summariser,
            on_prompt=records.append,
        )
    events = [parse_event(e) for e in state["events"]]
    fallbacks = [e for e in events if isinstance(e, SummaryFallback)]
    assert len(fallbacks) >= 2 and not [e for e in events if isinstance(e, ColdSummary)]
    assert all(f.reason for f in fallbacks)
    assert sum(forged_line_starts(r["system"] + "\n" + r["user"]) for r in records) == 0
    assert audit_prompts(built) == []
