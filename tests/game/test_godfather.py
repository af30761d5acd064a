"""The Godfather, an optional Mafia role seen as Town by an investigation: its deal, its night
and win rules, its information barrier, and random and house play with it to a legal end."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from audit import audit
from mafia.context.views import player_view
from mafia.game import events as ev
from mafia.game.events import parse_event
from mafia.game.rules import (
    ConfigError,
    GameConfig,
    Role,
    Seat,
    Table,
    assign_roles,
    is_mafia,
    night_kill_targets,
    parse_role_counts,
    winner,
)
from table_driver import play_table, random_answer, sweep_setup
from test_house_model import ask, kind_schema, prompt
from test_views import PRIVACY, build

# ---- deal and settings ---------------------------------------------------------------------


def test_the_godfather_is_off_by_default_and_takes_a_mafia_seat_when_asked() -> None:
    assert all(s.role is not Role.GODFATHER for s in assign_roles(GameConfig(players=7, seed=3)))
    counts = parse_role_counts({"godfather": 1}, 7)
    assert counts.of(Role.GODFATHER) == 1 and counts.of(Role.MAFIA) == 1 and counts.mafia == 2
    assert counts.of(Role.TOWN) == 3
    lone = parse_role_counts({"godfather": 1}, 5)  # the Mafia's one seat is the Godfather's
    assert lone.of(Role.MAFIA) == 0 and lone.mafia == 1
    assign_roles(GameConfig(players=5, roles=lone, seed=1))
    named = parse_role_counts({"godfather": 1, "mafia": 2}, 9)  # a Mafia count given stands
    assert named.of(Role.MAFIA) == 2 and named.mafia == 3
    with pytest.raises(ConfigError, match=r"roles\.godfather: must be 0 or 1, got 2"):
        assign_roles(GameConfig(players=9, roles=parse_role_counts({"godfather": 2}, 9)))
    with pytest.raises(ConfigError, match="strictly fewer"):
        assign_roles(GameConfig(players=6, roles=parse_role_counts({"godfather": 1, "mafia": 2}, 6)))


# ---- rules ---------------------------------------------------------------------------------


def test_an_investigation_shows_the_godfather_as_not_mafia() -> None:
    assert is_mafia(Role.GODFATHER) == "Not Mafia"
    assert is_mafia(Role.MAFIA) == "Mafia"


def test_the_godfather_plays_for_the_mafia_to_the_end() -> None:
    """The Godfather counts toward the Mafia's parity, is no kill target, and as the last of the
    Mafia alive keeps the game going and chooses the kill alone."""
    seats = (
        Seat(1, "A", Role.GODFATHER),
        Seat(2, "B", Role.MAFIA),
        Seat(3, "C", Role.TOWN),
        Seat(4, "D", Role.DETECTIVE),
        Seat(5, "E", Role.TOWN),
    )
    t = Table(seats)
    assert t.mafia() == ["A", "B"]
    assert night_kill_targets(t.living, t.mafia()) == ["C", "D", "E", "skip"]
    assert t.kill("E").winner() == "mafia"  # 2 of the Mafia's side against 2
    last = t.kill("B")
    assert last.mafia() == ["A"] and last.winner() is None
    assert last.kill("A").winner() == "town"
    assert winner([Role.GODFATHER, Role.TOWN]) == "mafia"


def godfather_games(seeds: range) -> list[list[ev.EventBase]]:
    logs = []
    for seed in seeds:
        setup = {**sweep_setup(seed), "roles": {"godfather": 1}}
        logs.append([parse_event(e) for e in play_table(setup, random_answer(seed)).events])
    return logs


def test_random_games_with_the_godfather_are_legal_and_the_checks_show_town() -> None:
    checked = Counter[str]()
    godfather_ballots = 0
    for events in godfather_games(range(40)):
        assert audit(events) == []
        roles = ev.roles_from_log(events)
        godfather = next(p for p, r in roles.items() if r is Role.GODFATHER)
        for e in events:
            if isinstance(e, ev.Investigation) and e.target == godfather:
                checked[e.result] += 1
            if isinstance(e, ev.MafiaVote):
                godfather_ballots += sum(1 for b in e.votes if b.voter == godfather)
    assert checked and set(checked) == {"Not Mafia"}, checked
    assert godfather_ballots, "the Godfather never took part in a kill"


# ---- information barrier -------------------------------------------------------------------

TABLE = {
    "Ann": Role.MAFIA,
    "Ivy": Role.GODFATHER,
    "Cal": Role.DOCTOR,
    "Eve": Role.DETECTIVE,
    "Gus": Role.TOWN,
}
MAFIA_SIDE = {"Ann", "Ivy"}


@pytest.mark.parametrize(
    "cls",
    [ev.NightZeroStrategy, ev.MafiaDiscussion, ev.MafiaVote, ev.NightResolution],
    ids=lambda c: c.__name__,
)
def test_the_mafias_private_facts_reach_the_godfather_and_no_one_of_the_town(cls: type[ev.EventBase]) -> None:
    privacy = PRIVACY[cls.__name__]
    event, markers = build(cls, "Ann" if privacy.actor else None)
    seen = {
        viewer: json.dumps([ev.dump_event(e) for e in player_view([event], viewer, TABLE)])
        for viewer in TABLE
    }
    mafia_only = [
        marker
        for path, marker in markers.items()
        if (privacy.whole or privacy.fields.get(path.split(".")[1])) == "mafia"
    ]
    assert mafia_only, "no Mafia-only marker placed: the test would prove nothing"
    for marker in mafia_only:
        assert {v for v, text in seen.items() if marker in text} == MAFIA_SIDE, marker


def test_the_godfathers_role_and_partners_reach_only_the_mafia() -> None:
    assigned = ev.RoleAssigned(round=0, player="Ivy", role=Role.GODFATHER, persona="p", partners=["Ann"])
    for viewer in TABLE:
        shown = player_view([assigned], viewer, TABLE)
        assert shown == ([assigned] if viewer == "Ivy" else []), viewer


# ---- house play ----------------------------------------------------------------------------


def test_the_house_godfather_under_pressure_dares_the_detective_to_check_it() -> None:
    speeches = [
        ("Player 1", "I suspect Player 4; Player 4 is Mafia.", "Player 4"),
        ("Player 2", "I suspect Player 4 as well; vote Player 4.", "Player 4"),
        ("Player 3", "Player 4 is Mafia, I suspect Player 4.", "Player 4"),
    ]
    said = ask(prompt("Player 4", "Godfather", "speak", speeches=speeches), kind_schema("speak"))
    assert "check" in said.text and said.claim == Role.TOWN, said.text
    plain = ask(prompt("Player 4", "Mafia", "speak", speeches=speeches), kind_schema("speak"))
    assert "check" not in plain.text, plain.text
