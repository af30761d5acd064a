"""Information barriers: player_view shows each private field to exactly the entitled players."""

from __future__ import annotations

import enum
import json
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel

from mafia.context.views import player_view
from mafia.game import events as ev
from mafia.game.audience import Audience
from mafia.game.rules import Role

# ---- an independent statement of who may see what ------------------------------------------
#
# Written from the spec (000, "Event Format" and "Information Barriers"), not read from the event
# classes. "actor": only the player named in the actor field; "mafia": every Mafia player;
# "doctor": every Doctor. ``whole`` hides the entire event; ``fields`` hides single fields.

ACTOR, MAFIA, DOCTOR, NOBODY = "actor", "mafia", "doctor", "nobody"


@dataclass(frozen=True)
class Privacy:
    whole: str | None = None
    actor: str | None = None  # the field naming the acting player, if any
    fields: Mapping[str, str] = field(default_factory=dict)


PRIVACY: dict[str, Privacy] = {
    "GameStarted": Privacy(),
    "RoleAssigned": Privacy(whole=ACTOR, actor="player"),
    "NightZeroStrategy": Privacy(whole=MAFIA, actor="speaker"),
    "DayStarted": Privacy(),
    "Speech": Privacy(actor="speaker"),
    "DefenseSpeech": Privacy(actor="speaker"),
    "VoteRound": Privacy(),
    "Elimination": Privacy(),
    "LastWords": Privacy(actor="speaker"),
    "MafiaDiscussion": Privacy(whole=MAFIA, actor="speaker"),
    "MafiaVote": Privacy(whole=MAFIA),
    "DoctorProtection": Privacy(whole=ACTOR, actor="protector"),
    "BodyguardGuard": Privacy(whole=ACTOR, actor="bodyguard"),
    "VigilanteShot": Privacy(whole=ACTOR, actor="vigilante"),
    "Investigation": Privacy(whole=ACTOR, actor="detective"),
    "NightResolution": Privacy(fields={"intended_kill": MAFIA, "protected": DOCTOR}),
    "Thought": Privacy(whole=ACTOR, actor="player"),
    "Fallback": Privacy(whole=ACTOR, actor="player"),
    "TextTruncated": Privacy(whole=ACTOR, actor="player"),
    "ColdSummary": Privacy(),
    "SummaryFallback": Privacy(),
    "SummaryItemsRefused": Privacy(whole=NOBODY),
    "RunChanged": Privacy(whole=NOBODY),
    "GameOver": Privacy(),
}

# Two of each special role so that "the actor" and "every player of that role" differ.
TABLE: dict[str, Role] = {
    "Ann": Role.MAFIA,
    "Bob": Role.MAFIA,
    "Cal": Role.DOCTOR,
    "Dot": Role.DOCTOR,
    "Eve": Role.DETECTIVE,
    "Fay": Role.DETECTIVE,
    "Gus": Role.TOWN,
    "Hal": Role.TOWN,
}
EVERYONE = frozenset(TABLE)
BY_ROLE = {"mafia": frozenset({"Ann", "Bob"}), "doctor": frozenset({"Cal", "Dot"})}
ACTOR_OF_ROLE = {Role.MAFIA: "Ann", Role.DOCTOR: "Cal", Role.DETECTIVE: "Eve", Role.TOWN: "Gus"}


def audience(who: str | None, actor: str | None) -> frozenset[str]:
    if who is None:
        return EVERYONE
    if who == ACTOR:
        assert actor is not None, "an actor-private event needs an actor"
        return frozenset({actor})
    if who == NOBODY:
        return frozenset()
    return BY_ROLE[who]


# ---- generic instances with a unique marker in every string --------------------------------


class Unbuildable(TypeError):
    """A field type the generic builder cannot fill: add a case for it."""


def _fill(annotation: Any, path: str, markers: dict[str, str]) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is str:
        markers[path] = f"<<{path}>>"
        return markers[path]
    if annotation is bool:
        return True
    if annotation is int:
        return 1
    if origin is typing.Literal:
        return args[0]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return next(iter(annotation))
    if origin in (typing.Union, types.UnionType):
        return _fill(next(a for a in args if a is not types.NoneType), path, markers)
    if origin is list:
        return [_fill(args[0], f"{path}.0", markers)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation(
            **{
                name: _fill(info.annotation, f"{path}.{name}", markers)
                for name, info in annotation.model_fields.items()
            }
        )
    raise Unbuildable(f"no generic value for {path}: {annotation!r}")


def build(cls: type[ev.EventBase], actor: str | None) -> tuple[ev.EventBase, dict[str, str]]:
    """An instance of ``cls`` with every string a unique marker (the actor field holds ``actor``).

    Returns the event and its markers by path (``Class.field`` or ``Class.field.0.sub``).
    """
    privacy = PRIVACY[cls.__name__]
    markers: dict[str, str] = {}
    values: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        if name == "type":
            continue
        if name == privacy.actor:
            values[name] = actor
        else:
            values[name] = _fill(info.annotation, f"{cls.__name__}.{name}", markers)
    return cls(**values), markers


def viewed_json(events: Sequence[ev.EventBase], viewer: str) -> str:
    return json.dumps([ev.dump_event(e) for e in player_view(events, viewer, TABLE)])


def barrier_problems(cls: type[ev.EventBase], actor: str | None) -> list[str]:
    """Every way the views of a one-event log differ from the expected entitlements."""
    privacy = PRIVACY[cls.__name__]
    event, markers = build(cls, actor)
    problems: list[str] = []
    seen = {viewer: viewed_json([event], viewer) for viewer in TABLE}
    for path, marker in markers.items():
        top = path.split(".")[1]
        who = privacy.whole if privacy.whole else privacy.fields.get(top)
        expected = audience(who, actor)
        actual = frozenset(v for v, text in seen.items() if marker in text)
        if actual != expected:
            problems.append(f"{path}: seen by {sorted(actual)}, expected {sorted(expected)}")
    if privacy.whole:
        # Covers fields no marker fits in (roles, numbers, literals): all of the event or nothing.
        for viewer in TABLE:
            view = player_view([event], viewer, TABLE)
            want = [event] if viewer in audience(privacy.whole, actor) else []
            if view != want:
                problems.append(f"{viewer} saw {view!r}, expected {want!r}")
    if not markers:
        problems.append("no marker placed: the test would prove nothing")
    for name in privacy.fields:
        if not any(p.split(".")[1] == name for p in markers):
            problems.append(f"private field {name} got no marker")
    return problems


def _cases() -> list[Any]:
    cases = []
    for cls in ev.EVENT_TYPES:
        privacy = PRIVACY.get(cls.__name__)
        if privacy is not None and privacy.actor:
            for role, actor in ACTOR_OF_ROLE.items():
                cases.append(pytest.param(cls, actor, id=f"{cls.__name__}-by-{role.value}"))
        else:
            cases.append(pytest.param(cls, None, id=cls.__name__))
    return cases


def test_every_event_type_has_a_privacy_expectation() -> None:
    assert set(PRIVACY) == {cls.__name__ for cls in ev.EVENT_TYPES}


@pytest.mark.parametrize(("cls", "actor"), _cases())
def test_markers_reach_exactly_the_entitled(cls: type[ev.EventBase], actor: str | None) -> None:
    if cls.__name__ not in PRIVACY:
        pytest.fail(f"{cls.__name__} has no entry in PRIVACY: state who may see it")
    assert barrier_problems(cls, actor) == []


def test_barrier_check_catches_a_leaky_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ev.NightResolution, "PRIVATE_FIELDS", {"intended_kill": Audience.MAFIA})
    problems = barrier_problems(ev.NightResolution, None)
    assert any(p.startswith("NightResolution.protected:") for p in problems)


def test_barrier_check_catches_a_leaky_event(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ev.Investigation, "AUDIENCE", Audience.MAFIA)
    assert barrier_problems(ev.Investigation, "Eve") != []


def test_builder_refuses_unknown_field_types() -> None:
    with pytest.raises(Unbuildable):
        _fill(dict[str, str], "X.y", {})


# ---- a scripted game ------------------------------------------------------------------------

ROLES7 = {
    "P1": Role.TOWN,
    "P2": Role.MAFIA,
    "P3": Role.DETECTIVE,
    "P4": Role.TOWN,
    "P5": Role.MAFIA,
    "P6": Role.DOCTOR,
    "P7": Role.TOWN,
}
SEATS7 = list(ROLES7)
PUBLIC = (
    ev.GameStarted,
    ev.DayStarted,
    ev.Speech,
    ev.DefenseSpeech,
    ev.VoteRound,
    ev.Elimination,
    ev.LastWords,
    ev.GameOver,
)


def _ballots(**votes: str) -> list[ev.Ballot]:
    return [ev.Ballot(voter=v, target=t) for v, t in votes.items()]


def game_log() -> list[ev.EventBase]:
    """Day 1 ties P4/P5, the revote removes P5 (Mafia); the Mafia kill the Detective P3 at night;
    day 2 removes P2, the last Mafia, and the Town wins."""
    partners = {"P2": ["P5"], "P5": ["P2"]}
    log: list[ev.EventBase] = [
        ev.GameStarted(
            round=0,
            game_id="view-test",
            players=SEATS7,
            mafia=2,
            detective=1,
            doctor=1,
            town=3,
            round_cap=20,
        ),
        *(
            ev.RoleAssigned(
                round=0, player=p, role=r, persona=f"persona of {p}", partners=partners.get(p, [])
            )
            for p, r in ROLES7.items()
        ),
        ev.NightZeroStrategy(round=0, speaker="P2", strategy="push P4 early"),
        ev.NightZeroStrategy(round=0, speaker="P5", strategy="stay quiet, follow P2"),
        ev.Thought(
            round=0,
            player="P5",
            action="night_zero",
            observations="first night",
            strategy="blend in",
            reasoning="P2 leads",
        ),
        ev.DayStarted(round=1, living=SEATS7, speaking_order=SEATS7),
        *(
            ev.Speech(round=1, speaker=p, text=f"{p} speaks", nomination=n)
            for p, n in [("P1", "P5"), ("P2", "P4"), ("P3", None), ("P4", "P5")]
        ),
        ev.VoteRound(
            round=1,
            nominees=["P5", "P4"],
            ballots=_ballots(P1="P5", P2="P4", P3="P5", P4="P5", P5="P4", P6="P4", P7="skip"),
            counts=[
                ev.Count(option="P5", votes=3),
                ev.Count(option="P4", votes=3),
                ev.Count(option="skip", votes=1),
            ],
            outcome="tie",
            tied=["P4", "P5"],
        ),
        ev.DefenseSpeech(round=1, speaker="P4", text="I only asked questions"),
        ev.DefenseSpeech(round=1, speaker="P5", text="P4 dodges"),
        ev.Thought(
            round=1,
            player="P1",
            action="revote",
            observations="P5 defended weakly",
            strategy="vote P5",
            reasoning="weak defense",
            suspicions=[ev.SuspicionNote(player="P5", level=8, reasoning="weak defense")],
        ),
        ev.Fallback(round=1, player="P7", action="revote", error="bad name", attempts=3, applied="skip"),
        ev.VoteRound(
            round=1,
            revote=True,
            nominees=["P4", "P5"],
            ballots=_ballots(P1="P5", P2="P4", P3="P5", P4="P5", P5="P4", P6="P5", P7="skip"),
            counts=[
                ev.Count(option="P4", votes=2),
                ev.Count(option="P5", votes=4),
                ev.Count(option="skip", votes=1),
            ],
            outcome="eliminated",
            eliminated="P5",
        ),
        ev.Elimination(round=1, player="P5"),
        ev.LastWords(round=1, speaker="P5", text="you will regret this"),
        ev.MafiaDiscussion(
            round=1,
            speaker="P2",
            target="P3",
            message="P3 asks too much",
            coordination_round=1,
        ),
        ev.MafiaVote(
            round=1,
            votes=_ballots(P2="P3"),
            final_target="P3",
            decided_by="direct",
            coordination_round=1,
        ),
        ev.DoctorProtection(round=1, protector="P6", protected="P1", reasoning="P1 led the vote"),
        ev.Investigation(round=1, detective="P3", target="P2", result="Mafia", reasoning="P2 hid"),
        ev.NightResolution(round=1, deaths=["P3"], intended_kill="P3", protected="P1"),
        ev.DayStarted(
            round=2,
            night_deaths=["P3"],
            living=["P1", "P2", "P4", "P6", "P7"],
            speaking_order=["P2", "P4", "P6", "P7", "P1"],
        ),
        ev.Speech(round=2, speaker="P2", text="P4 again", nomination="P4"),
        ev.Speech(round=2, speaker="P4", text="P2 defended P5", nomination="P2"),
        ev.VoteRound(
            round=2,
            nominees=["P4", "P2"],
            ballots=_ballots(P1="P2", P2="P4", P4="P2", P6="P2", P7="P2"),
            counts=[
                ev.Count(option="P4", votes=1),
                ev.Count(option="P2", votes=4),
                ev.Count(option="skip", votes=0),
            ],
            outcome="eliminated",
            eliminated="P2",
        ),
        ev.Elimination(round=2, player="P2"),
        ev.LastWords(round=2, speaker="P2", text="well played"),
        ev.GameOver(
            round=2,
            winner="town",
            reason="no Mafia left",
            roles=[ev.RoleReveal(player=p, role=r) for p, r in ROLES7.items()],
        ),
    ]
    return log


@pytest.mark.parametrize("viewer", SEATS7)
def test_public_events_are_seen_whole_by_everyone(viewer: str) -> None:
    log = game_log()
    public = [e for e in log if isinstance(e, PUBLIC)]
    assert [e for e in player_view(log, viewer) if isinstance(e, PUBLIC)] == public


@pytest.mark.parametrize(
    ("viewer", "intended", "protected"),
    [
        pytest.param("P1", None, None, id="town"),
        pytest.param("P3", None, None, id="detective"),
        pytest.param("P2", "P3", None, id="mafia"),
        pytest.param("P5", "P3", None, id="dead-mafia"),
        pytest.param("P6", None, "P1", id="doctor"),
    ],
)
def test_night_resolution_shows_only_actual_kill_publicly(
    viewer: str, intended: str | None, protected: str | None
) -> None:
    [seen] = [e for e in player_view(game_log(), viewer) if isinstance(e, ev.NightResolution)]
    assert (ev.named_deaths(seen.deaths), seen.intended_kill, seen.protected) == ("P3", intended, protected)


@pytest.mark.parametrize("viewer", SEATS7)
def test_dead_roles_stay_hidden_until_game_over(viewer: str) -> None:
    log = game_log()
    end = next(i for i, e in enumerate(log) if isinstance(e, ev.GameOver))
    before = player_view(log[:end], viewer)
    assert [e.player for e in before if isinstance(e, ev.RoleAssigned)] == [viewer]
    own_results = {e.result for e in before if isinstance(e, ev.Investigation)}
    text = json.dumps([ev.dump_event(e) for e in before])
    for role in Role:
        if role is not ROLES7[viewer] and role.value not in own_results:
            assert f'"{role.value}"' not in text, f"{viewer} can read the role {role.value}"
    after = player_view(log, viewer)
    [over] = [e for e in after if isinstance(e, ev.GameOver)]
    assert {r.player: r.role for r in over.roles} == ROLES7


@pytest.mark.parametrize(
    ("viewer", "partners", "strategies"),
    [
        pytest.param("P2", ["P5"], ["P2", "P5"], id="mafia-P2"),
        pytest.param("P5", ["P2"], ["P2", "P5"], id="mafia-P5"),
        pytest.param("P1", [], [], id="town"),
        pytest.param("P3", [], [], id="detective"),
        pytest.param("P6", [], [], id="doctor"),
    ],
)
def test_mafia_see_partners_and_their_talk(viewer: str, partners: list[str], strategies: list[str]) -> None:
    view = player_view(game_log(), viewer)
    [own] = [e for e in view if isinstance(e, ev.RoleAssigned)]
    assert own.partners == partners
    assert [e.speaker for e in view if isinstance(e, ev.NightZeroStrategy)] == strategies
    mafia_talk = [e for e in view if isinstance(e, (ev.MafiaDiscussion, ev.MafiaVote))]
    assert len(mafia_talk) == (2 if partners else 0)


@pytest.mark.parametrize(
    ("viewer", "kinds"),
    [
        pytest.param("P1", {"thought"}, id="own-thought"),
        pytest.param("P5", {"thought"}, id="mafia-own-thought-only"),
        pytest.param("P7", {"fallback"}, id="own-fallback"),
        pytest.param("P6", {"doctor_protection"}, id="doctor"),
        pytest.param("P3", {"investigation"}, id="detective"),
        pytest.param("P4", set(), id="plain-town"),
    ],
)
def test_personal_records_are_private_to_their_player(viewer: str, kinds: set[str]) -> None:
    personal = (ev.Thought, ev.Fallback, ev.DoctorProtection, ev.Investigation)
    view = player_view(game_log(), viewer)
    mine = [e for e in view if isinstance(e, personal)]
    assert {e.type for e in mine} == kinds
    assert all(e.actor() == viewer for e in mine)


def test_roles_read_from_the_log_match_given_roles() -> None:
    log = game_log()
    assert ev.roles_from_log(log) == ROLES7
    for viewer in SEATS7:
        assert player_view(log, viewer) == player_view(log, viewer, ROLES7)


def test_outsider_sees_only_public_events() -> None:
    log = game_log()
    assert player_view(log, "spectator") == [
        e.model_copy(update={"intended_kill": None, "protected": None})
        if isinstance(e, ev.NightResolution)
        else e
        for e in log
        if isinstance(e, (*PUBLIC, ev.NightResolution))
    ]
