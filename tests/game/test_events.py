"""Event log: exact JSONL round trip for every event type, and rejection of malformed events."""

from __future__ import annotations

import json
import pickle

import pytest
from pydantic import ValidationError

from mafia.game import events as ev
from mafia.game.rules import Role

AWKWARD = 'line\nbreak "quotes" \\ tab\t é 🎲 \u2028 sep \u2029 para \x85 nel \x1c fs'


def every_event() -> list[ev.EventBase]:
    """A small log holding each event type once, with text that is awkward for JSON Lines."""
    return [
        ev.GameStarted(
            round=0,
            game_id="g-1",
            players=["Ann", "Bob", "Cy", "Di", "Ed"],
            mafia=1,
            detective=1,
            doctor=1,
            town=2,
            round_cap=20,
        ),
        ev.RoleAssigned(round=0, player="Bob", role=Role.MAFIA, persona=AWKWARD, partners=[]),
        ev.NightZeroStrategy(round=0, speaker="Bob", strategy=AWKWARD),
        ev.DayStarted(round=1, living=["Ann", "Bob", "Cy", "Di", "Ed"], speaking_order=["Ann"]),
        ev.Speech(round=1, speaker="Ann", text=AWKWARD, nomination="Bob"),
        ev.DefenseSpeech(round=1, speaker="Bob", text="not me"),
        ev.VoteRound(
            round=1,
            revote=True,
            nominees=["Bob", "Cy"],
            ballots=[ev.Ballot(voter="Ann", target="Bob"), ev.Ballot(voter="Bob", target="skip")],
            counts=[
                ev.Count(option="Bob", votes=1),
                ev.Count(option="Cy", votes=0),
                ev.Count(option="skip", votes=1),
            ],
            outcome="no_elimination",
            tied=["Bob", "Cy"],
        ),
        ev.Elimination(round=2, player="Cy"),
        ev.LastWords(round=2, speaker="Cy", text=AWKWARD),
        ev.MafiaDiscussion(
            round=2,
            speaker="Bob",
            target="Di",
            message=AWKWARD,
            coordination_round=1,
        ),
        ev.MafiaVote(
            round=2,
            votes=[ev.Ballot(voter="Bob", target="Di")],
            final_target="Di",
            decided_by="direct",
            coordination_round=1,
        ),
        ev.DoctorProtection(round=2, protector="Ed", protected="Ed", reasoning=AWKWARD),
        ev.night_event(Role.BODYGUARD, 2, "Fay", "Ed", AWKWARD),
        ev.night_event(Role.VIGILANTE, 2, "Gil", "Bob", AWKWARD),
        ev.Investigation(round=2, detective="Di", target="Bob", result="Mafia", reasoning="quiet day"),
        ev.NightResolution(round=2, deaths=["Di", "Bob"], intended_kill="Di", protected="Ed"),
        ev.Thought(
            round=2,
            player="Ann",
            action="vote",
            observations=AWKWARD,
            strategy="s",
            reasoning="r",
            suspicions=[ev.SuspicionNote(player="Bob", level=8, reasoning="pushed Cy")],
            relationships=["Bob & Ed (alliance): n"],
            pattern_notes=["Bob votes last"],
        ),
        ev.Fallback(
            round=3, player="Ed", action="vote", error=AWKWARD, kind="schema", attempts=3, applied="skip"
        ),
        ev.TextTruncated(round=3, player="Ed", action="speak", field="speech", length=9000, limit=1200),
        ev.ColdSummary(
            round=3,
            through=1,
            facts=[1, 2],
            speeches=[ev.ReportedSpeech(day=1, speaker="Ann", words=AWKWARD)],
            patterns=[ev.SpeechPattern(pattern="accused", player="Ann", target="Bob", days=[1])],
            summariser="house",
        ),
        ev.SummaryFallback(round=3, through=1, reason=AWKWARD, summariser="seat:2"),
        ev.SummaryItemsRefused(round=3, through=1, refused=[AWKWARD], summariser="house"),
        ev.RunChanged(round=3, setting="seat_models.4", before="openai:gone", after="house:3"),
        ev.GameOver(
            round=3,
            winner="town",
            reason="no Mafia left",
            roles=[ev.RoleReveal(player="Bob", role=Role.MAFIA)],
        ),
    ]


def test_sample_log_covers_every_event_type() -> None:
    assert {type(e) for e in every_event()} == set(ev.EVENT_TYPES)


def test_jsonl_round_trip_is_exact() -> None:
    original = every_event()
    text = ev.to_jsonl(original)
    parsed = ev.from_jsonl(text)
    assert parsed == original
    assert [type(e) for e in parsed] == [type(e) for e in original]
    assert ev.to_jsonl(parsed) == text
    assert text.encode("utf-8") == ev.to_jsonl(parsed).encode("utf-8")


def test_jsonl_has_one_line_per_event_with_type_first() -> None:
    original = every_event()
    lines = ev.to_jsonl(original).split("\n")
    assert lines[-1] == ""
    assert len(lines) - 1 == len(original)
    for line, event in zip(lines, original, strict=False):
        data = json.loads(line)
        assert next(iter(data)) == "type"
        assert data["type"] == type(event).model_fields["type"].default


def test_from_jsonl_skips_blank_lines() -> None:
    original = every_event()[:3]
    text = "\n" + ev.to_jsonl(original).replace("\n", "\n\n")
    assert ev.from_jsonl(text) == original


def test_dump_then_parse_is_identity() -> None:
    for event in every_event():
        assert ev.parse_event(ev.dump_event(event)) == event


def test_every_event_pickles_by_its_class_name() -> None:
    """A class built from a roles-table row is found by name in the module, as a written one is."""
    for event in every_event():
        assert getattr(ev, type(event).__name__) is type(event)
        assert pickle.loads(pickle.dumps(event)) == event


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"type": "werewolf_bite", "round": 1, "player": "Ann"}, id="unknown-type"),
        pytest.param({"round": 1, "player": "Ann"}, id="missing-type"),
        pytest.param({"type": "elimination", "round": 1}, id="missing-field"),
        pytest.param(
            {"type": "elimination", "round": 1, "player": "Ann", "role": "Town"},
            id="extra-field",
        ),
        pytest.param(
            {
                "type": "investigation",
                "round": 1,
                "detective": "Di",
                "target": "Bob",
                "result": "Town",
                "reasoning": "",
            },
            id="bad-literal",
        ),
    ],
)
def test_parse_event_rejects_malformed(data: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ev.parse_event(data)


def test_events_are_immutable() -> None:
    event = ev.Speech(round=1, speaker="Ann", text="hi")
    with pytest.raises(ValidationError):
        event.text = "changed"  # type: ignore[misc]


def test_a_relationship_logged_as_an_object_loads_as_its_line() -> None:
    """Logs written when a relationship was an object still load: the object reads as one line."""
    thought = ev.Thought.model_validate(
        {
            "round": 1,
            "player": "Ann",
            "action": "vote",
            "observations": "o",
            "strategy": "s",
            "reasoning": "r",
            "relationships": [{"players": ["Bob", "Ed"], "kind": "alliance", "note": "vote together"}],
        }
    )
    assert thought.relationships == ["Bob & Ed (alliance): vote together"]


def test_a_summary_logged_as_free_text_loads_without_its_text() -> None:
    """Logs written when a summary was the summariser's free text still load, as a summary of no
    picked item: the text, never grounded, is dropped and only the days' engine lines remain."""
    line = json.dumps(
        {
            "type": "cold_summary",
            "round": 4,
            "through": 2,
            "text": "Day 1: ...\nStory: Ann is the Doctor.",
            "summariser": "house",
        }
    )
    (event,) = ev.from_jsonl(line + "\n")
    assert isinstance(event, ev.ColdSummary)
    assert (event.through, event.facts, event.speeches, event.patterns) == (2, [], [], [])
    assert "Doctor" not in json.dumps(ev.dump_event(event))


def test_a_night_of_one_death_or_none_is_logged_as_older_releases_wrote_it() -> None:
    """At most one death: the one-death fields (``actual_kill``, ``night_death``), so the logs of
    games without a second night kill stay byte-identical, and an older log reads as a list."""
    one = ev.NightResolution(round=1, deaths=["Ann"], intended_kill="Ann")
    assert one.model_dump()["actual_kill"] == "Ann" and "deaths" not in one.model_dump()
    none = ev.DayStarted(round=2, night_deaths=[], living=["Bob"], speaking_order=["Bob"])
    assert none.model_dump()["night_death"] is None and "night_deaths" not in none.model_dump()
    old = {"type": "night_resolution", "round": 1, "actual_kill": "Ann", "intended_kill": "Ann"}
    assert ev.parse_event(old).deaths == ["Ann"]  # type: ignore[attr-defined]
    assert ev.parse_event({**old, "actual_kill": None}).deaths == []  # type: ignore[attr-defined]


def test_a_night_of_two_deaths_is_logged_as_a_list_and_reads_back() -> None:
    two = ev.NightResolution(round=1, deaths=["Ann", "Bob"], intended_kill="Ann")
    dumped = two.model_dump()
    assert dumped["deaths"] == ["Ann", "Bob"] and "actual_kill" not in dumped
    assert ev.parse_event(dumped) == two
    day = ev.DayStarted(round=2, night_deaths=["Ann", "Bob"], living=["Cy"], speaking_order=["Cy"])
    assert ev.parse_event(day.model_dump()) == day
