"""Role claims survive: a structured or spoken claim, in a speech, defense or last words, reaches
the claims ledger of every later prompt, however old its day is.

``recorded_claims`` reads what the log records (the structured claim, else what the text states);
the audit checks every later prompt of every living player against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from fakes import Ask, ScriptedModel
from logbuilder import LogBuilder
from mafia.context import ContextPolicy, build_context
from mafia.context.extraction import extract
from mafia.game.actions import ActionKind
from mafia.game.events import DefenseSpeech, EventBase, Fallback, GameStarted, LastWords, Speech, parse_event
from mafia.game.rules import SKIP, Role
from mafia.models.house import HouseModel
from mafia.play.runner import run_game
from mafia.prompts import anchors

ROLES = ["Mafia", "Town", "Detective", "Doctor", "Town", "Mafia", "Town", "Town"]


def recorded_claims(events: Sequence[EventBase]) -> set[tuple[str, str]]:
    """(player, role) for every claim the log records: structured, else read from the text."""
    seats = next(e.players for e in events if isinstance(e, GameStarted))
    found: set[tuple[str, str]] = set()
    for e in events:
        if isinstance(e, Speech | DefenseSpeech | LastWords):
            roles = [*([e.claim] if e.claim else []), *extract(e.text, e.speaker, seats).claims]
            found |= {(e.speaker, r.value) for r in roles}
    return found


def ledger(user: str) -> set[tuple[str, str]]:
    return {(m["player"], m["role"]) for m in anchors.CLAIM_LINE.finditer(user)}


def claims_game() -> tuple[LogBuilder, list[int]]:
    """Five days; day 1 holds a structured claim, a spoken one, a defense claim and past-tense last
    words; the later days are quiet. Returns the log and the indices where each later day opens."""
    log = LogBuilder(ROLES)
    log.night_zero().start_day()
    for speaker in log.speaking_order:
        if speaker == "Player 4":
            log.speak(speaker, "Trust me on this one.", claim=Role.DOCTOR)
        elif speaker == "Player 3":
            log.speak(speaker, "Detective here, again. Player 1 is Mafia.", "Player 1")
        elif speaker == "Player 2":
            log.speak(speaker, "Player 5 is odd.", "Player 5")
        else:
            log.speak(speaker, "Nothing to add.")
    result = log.vote({p: "Player 1" if i % 2 else "Player 5" for i, p in enumerate(log.living)})
    assert result.kind == "tie"
    log.defend("Player 1", "Checked nobody, I am a plain villager.")
    log.defend("Player 5", "Not me.", claim=Role.TOWN)
    log.revote(dict.fromkeys(log.living, "Player 5"))
    log.last_words("For the record, I was the Doctor.")
    log.night()
    openings = []
    for _ in range(4):
        log.start_day()
        openings.append(len(log.events))
        for speaker in log.speaking_order:
            log.speak(speaker, "Quiet day.")
        log.vote(dict.fromkeys(log.living, SKIP))
        log.night()
    return log, openings


def missing_claims(events: Sequence[EventBase], openings: Sequence[int], policy: ContextPolicy) -> list[str]:
    """Every (prompt, claim) pair where a claim recorded before the prompt is not in its ledger."""
    misses = []
    for cut in openings:
        view = list(events[:cut])
        expected = recorded_claims(view)
        living = view[-1].living  # type: ignore[attr-defined]
        for player in living:
            for action in (ActionKind.SPEAK, ActionKind.VOTE):
                shown = ledger(build_context(view, player, action, policy).user)
                misses += [f"{player} {action} @{cut}: {c}" for c in sorted(expected - shown)]
    return misses


def test_every_recorded_claim_reaches_every_later_prompt() -> None:
    log, openings = claims_game()
    expected = recorded_claims(log.events)
    assert expected == {
        ("Player 4", "Doctor"),
        ("Player 3", "Detective"),
        ("Player 1", "Town"),
        ("Player 5", "Town"),
        ("Player 5", "Doctor"),
    }
    assert missing_claims(log.events, openings, ContextPolicy()) == []
    # Day 1 is compressed in the last prompts: its words are gone, its claims are not.
    last = build_context(log.events[: openings[-1]], "Player 2", ActionKind.SPEAK).user
    assert "Trust me on this one." not in last
    assert "Earlier days, one line each (facts only):\nDay 1: " in last


def test_the_audit_catches_a_missing_ledger() -> None:
    log, openings = claims_game()
    misses = missing_claims(log.events, openings, ContextPolicy(claims_ledger=False))
    assert any("('Player 5', 'Doctor')" in m for m in misses)


def test_a_structured_claim_is_shown_on_its_line_and_the_ledger_keeps_the_spoken_one_too() -> None:
    log = LogBuilder(ROLES)
    log.night_zero().start_day()
    first, second = log.speaking_order[:2]
    log.speak(first, "I am the Doctor, just kidding.", claim=Role.TOWN)
    log.speak(second, "No claim from me.")
    user = build_context(log.events, "Player 8", ActionKind.SPEAK).user
    said = f'- {first} said: "I am the Doctor, just kidding." (claims Town)'
    assert said in user.split("\n")
    assert anchors.SPEECH_LINE.search(said) is not None
    assert ledger(user) == {(first, "Town"), (first, "Doctor")}


def test_the_ledger_keeps_a_spoken_claim_beside_the_structured_one() -> None:
    log = LogBuilder(ROLES)
    log.night_zero().start_day()
    speaker = log.speaking_order[0]
    log.speak(speaker, "I am Town... I am the Doctor.", claim=Role.TOWN)
    log.speak(log.speaking_order[1], "Nothing to add.")
    user = build_context(log.events, "Player 8", ActionKind.SPEAK).user
    assert ledger(user) == {(speaker, "Town"), (speaker, "Doctor")}


@pytest.mark.parametrize("kind", ["defense", "last_words"])
def test_claim_tails_parse(kind: str) -> None:
    line = (
        anchors.format_defense("Player 2", "Not me.", "Doctor")
        if kind == "defense"
        else anchors.format_last_words("Player 2", "Bye.", "Doctor")
    )
    pattern = anchors.DEFENSE_LINE if kind == "defense" else anchors.LAST_WORDS_LINE
    match = pattern.match(line)
    assert match is not None and match["speaker"] == "Player 2"


def test_structured_claims_go_through_a_game() -> None:
    """Claims stated in answers land on the events and in later prompts; a value naming no role
    ("Jester") is no claim and costs no re-ask."""
    claims = {"Player 1": "the doc", "Player 2": "Jester", "Player 3": " TOWNIE "}

    def script(ask: Ask) -> dict[str, Any] | None:
        if ask.action == "speak" and ask.player in claims:
            return {"text": "Nothing to say yet.", "claim": claims[ask.player]}
        return None

    model = ScriptedModel(script=script)
    state = run_game({"seed": 1, "players": 7, "round_cap": 2}, model=model)
    events = [parse_event(e) for e in state["events"]]
    said = {e.speaker: e.claim for e in events if isinstance(e, Speech) and e.round == 1}
    assert (said["Player 1"], said["Player 2"], said["Player 3"]) == (Role.DOCTOR, None, Role.TOWN)
    assert not [e for e in events if isinstance(e, Fallback)]
    assert not [a for a in model.log if a.retry]
    later = [a.text for a in model.log if "Day 2:" in a.text]
    assert later and all("- Player 1 claimed Doctor (day 1)" in t for t in later)
    assert all("- Player 2 claimed" not in t for t in later)
    assert any('- Player 3 said: "Nothing to say yet." (claims Town)' in t for t in later)


def test_the_house_model_states_what_its_words_claim() -> None:
    claimed: list[tuple[str, Role]] = []
    for seed in range(3):
        state = run_game({"seed": seed, "players": 8}, model=HouseModel(seed=seed))
        events = [parse_event(e) for e in state["events"]]
        seats = next(e.players for e in events if isinstance(e, GameStarted))
        for e in events:
            if isinstance(e, Speech | DefenseSpeech | LastWords) and e.claim is not None:
                assert e.claim in extract(e.text, e.speaker, seats).claims, e.text
                claimed.append((e.text, e.claim))
    assert claimed
