"""The Bodyguard, an optional Town role: its deal, its night rule, its claims, its information
barrier, and house and random play with it on to a legal end."""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest
import typer

from audit import audit
from mafia.commands.checks import parse_roles
from mafia.commands.display import is_night, night_choice_text
from mafia.context import build_context
from mafia.context.extraction import claimed_role, extract
from mafia.context.views import player_view
from mafia.game import events as ev
from mafia.game.actions import ActionKind
from mafia.game.deal import deal
from mafia.game.events import parse_event
from mafia.game.rules import (
    NIGHT_ROLES,
    ROLE_FIELDS,
    ROLES,
    ConfigError,
    GameConfig,
    NightChoice,
    Role,
    RoleCounts,
    assign_roles,
    mafia_victim,
    parse_role_counts,
    saves,
    stands_in,
)
from mafia.run.settings import SETUP_KEYS
from table_driver import play_table, random_answer, sweep_setup
from test_house_model import ask, kind_schema, prompt

PLAYERS = [f"Player {k}" for k in range(1, 8)]


def bodyguard_setup(seed: int) -> dict[str, object]:
    """Sweep game ``seed`` with one Bodyguard dealt."""
    return {**sweep_setup(seed), "roles": {"bodyguard": 1}}


# ---- deal and settings ---------------------------------------------------------------------


def test_the_bodyguard_is_off_by_default_and_dealt_once_when_asked() -> None:
    assert RoleCounts.default(7).of(Role.BODYGUARD) == 0
    assert all(s.role is not Role.BODYGUARD for s in assign_roles(GameConfig(players=7, seed=3)))
    counts = parse_role_counts({"bodyguard": 1}, 7)
    assert dict(counts) == {
        Role.MAFIA: 2,
        Role.DETECTIVE: 1,
        Role.DOCTOR: 1,
        Role.TOWN: 2,
        Role.BODYGUARD: 1,
        Role.GODFATHER: 0,
        Role.VIGILANTE: 0,
    }
    for seed in range(20):
        seats = assign_roles(GameConfig(players=7, roles=counts, seed=seed))
        assert Counter(s.role for s in seats) == {
            Role.MAFIA: 2,
            Role.DETECTIVE: 1,
            Role.DOCTOR: 1,
            Role.BODYGUARD: 1,
            Role.TOWN: 2,
        }
    with pytest.raises(ConfigError, match=r"roles\.bodyguard: must be 0 or 1, got 2"):
        assign_roles(GameConfig(players=7, roles=parse_role_counts({"bodyguard": 2}, 7)))


def test_the_command_line_and_the_settings_take_bodyguard_counts() -> None:
    assert parse_roles("bodyguard=1") == {"bodyguard": 1}
    with pytest.raises(typer.BadParameter, match="bodyguard"):
        parse_roles("guard=1")
    assert "roles" in SETUP_KEYS
    started = play_table({"seed": 1, "roles": {"bodyguard": 1}}, random_answer(1)).events[0]
    assert started["bodyguard"] == 1 and started["town"] == 2


def test_a_game_without_the_bodyguard_writes_no_bodyguard_count() -> None:
    started = play_table({"seed": 1}, random_answer(1)).events[0]
    assert "bodyguard" not in started
    assert parse_event(started).composition() == "2 Mafia, 1 Detective, 1 Doctor, 3 Town"  # type: ignore[attr-defined]


# ---- the night's rule ----------------------------------------------------------------------


def _night(protected: str | None, guarded: str) -> list[NightChoice]:
    """The night's choices in waking order: the Doctor's (Player 7) save, Player 6's guard."""
    doctor = [NightChoice("Player 7", protected, saves)] if protected is not None else []
    return [*doctor, NightChoice("Player 6", guarded, stands_in)]


def test_the_bodyguard_row_applies_a_stand_in_after_the_doctors_save() -> None:
    night = ROLES[Role.BODYGUARD].night
    assert night is not None and night.effect is stands_in
    assert ROLES[Role.BODYGUARD].wakes > ROLES[Role.DOCTOR].wakes


def test_the_bodyguard_dies_in_place_of_the_guarded_target() -> None:
    assert mafia_victim("Player 3", _night(None, "Player 3")) == "Player 6"


def test_a_doctors_save_of_the_target_means_no_one_dies() -> None:
    assert mafia_victim("Player 3", _night("Player 3", "Player 3")) is None


def test_a_doctors_save_of_the_bodyguard_means_no_one_dies() -> None:
    assert mafia_victim("Player 3", _night("Player 6", "Player 3")) is None


def test_a_guard_elsewhere_changes_nothing() -> None:
    assert mafia_victim("Player 3", _night("Player 4", "Player 5")) == "Player 3"
    assert mafia_victim("skip", _night(None, "Player 5")) is None


# ---- the rules every model reads -------------------------------------------------------------

NIGHT_SENTENCES = {
    Role.DOCTOR: "The Doctor protects one player (self allowed), never told if it worked.",
    Role.DETECTIVE: "The Detective learns whether one other player is Mafia.",
    Role.BODYGUARD: "The Bodyguard guards one other player and dies in their place if the Mafia attack them.",
}
BOTH = "If the Doctor protects the guarded player or the Bodyguard, no one dies."
GODFATHER = "The Godfather is one of the Mafia, but a Detective's check shows them as Not Mafia."


def allowed_tables() -> list[RoleCounts]:
    """Every role mix the settings accept at 5 to 8 seats: each power role and the Godfather on or
    off, one to three Mafia, Town filling the rest (none included)."""
    tables: set[RoleCounts] = set()
    for players in range(5, 9):
        for mafia in (1, 2, 3):
            for detective, doctor, bodyguard, godfather in itertools.product((0, 1), repeat=4):
                given = {
                    "mafia": mafia,
                    "detective": detective,
                    "doctor": doctor,
                    "bodyguard": bodyguard,
                    "godfather": godfather,
                }
                try:
                    counts = parse_role_counts(given, players)
                    assign_roles(GameConfig(players=players, roles=counts))
                except ConfigError:
                    continue
                tables.add(counts)
    return sorted(tables, key=repr)


def rules_read(counts: RoleCounts) -> str:
    """The rules section of a prompt at a table dealt ``counts``."""
    config = GameConfig(players=counts.total, roles=counts, seed=1)
    events = [parse_event(e) for e in deal(config, "rules")["events"]]
    return build_context(events, "Player 1", ActionKind.VOTE).system.split("\n\n")[0]


def test_the_rules_read_right_for_every_role_mix_the_settings_allow() -> None:
    """The night's rules tell each night role the table holds and no other, the Bodyguard's with
    the Doctor's save only where a Doctor sits; no role dealt to no one is named outside the
    counts, and every sentence the rules hold about the Bodyguard agrees with ``resolve_night``."""
    tables = allowed_tables()
    powers = {tuple(counts.of(r) > 0 for r in (*NIGHT_ROLES, Role.GODFATHER)) for counts in tables}
    assert len(powers) == 16 and any(counts.of(Role.TOWN) == 0 for counts in tables)
    for counts in tables:
        held = [role for role in ROLES if counts.of(role)]
        text = rules_read(counts)
        night = [NIGHT_SENTENCES[r] for r in NIGHT_ROLES if r in held]
        if Role.DOCTOR in held and Role.BODYGUARD in held:
            night.append(BOTH)
        if Role.GODFATHER in held:
            night.append(GODFATHER)
        expected = " ".join(
            ['Night: the Mafia agree on a kill or "skip".', *night, "Only deaths are announced."]
        )
        assert expected in text.splitlines(), (counts, text)
        town = ", ".join(r.value for r in ROLES if ROLES[r].side == "town" and r in held)
        assert f"Town ({town}) wins" in text, (counts, text)
        # The counts name every role; the Godfather's rule tells what "a Detective's check" shows,
        # true at a table without one too.
        outside_counts = re.sub(r"Secret roles: [^;]*;", "", text).replace(GODFATHER, "")
        for role in ROLES:
            if role is not Role.TOWN and role not in held:
                assert role.value not in outside_counts, (role, counts, text)
        assert "(unless" not in text and "or the Bodyguard)" not in text


def test_the_bodyguard_sentences_say_what_the_night_does() -> None:
    """Each clause of the rule as ``mafia_victim`` plays it: the stand-in dies for the guarded
    player; the Doctor's protection of either means no one dies."""
    assert mafia_victim("Player 3", _night(None, "Player 3")) == "Player 6"
    for protected in ("Player 3", "Player 6"):
        assert mafia_victim("Player 3", _night(protected, "Player 3")) is None


def test_the_roles_option_names_every_role() -> None:
    from typer.testing import CliRunner

    from mafia.cli import app

    shown = CliRunner().invoke(app, ["play", "--help"], env={"COLUMNS": "300"}).output
    line = next(line for line in shown.splitlines() if "--roles" in line)
    for name in ROLE_FIELDS:
        assert name in line, (name, line)


# ---- claims --------------------------------------------------------------------------------


def test_a_bodyguard_claim_is_read_from_words_and_from_the_claim_field() -> None:
    assert ROLES[Role.BODYGUARD].claim_words
    assert extract("I am the Bodyguard; Player 3 is safe with me.", "Player 2", PLAYERS).claims == (
        Role.BODYGUARD,
    )
    assert extract("Claim: body guard.", "Player 2", PLAYERS).claims == (Role.BODYGUARD,)
    assert claimed_role("the bodyguard") is Role.BODYGUARD
    assert extract("I would guard Player 3 if I could.", "Player 2", PLAYERS).claims == ()


# ---- play to a legal end -------------------------------------------------------------------

SEEDS = range(240)
# The first 80 seeds (every table size, every outcome of a guard) in the default run, the rest
# with -m slow.
SEED_CHUNKS = [
    pytest.param(SEEDS[:80], id="0-79"),
    pytest.param(SEEDS[80:], id="80-239", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("seeds", SEED_CHUNKS)
def test_random_games_with_the_bodyguard_are_legal_end_and_take_its_paths(seeds: range) -> None:
    """Random legal play over the table with one Bodyguard at every table size: the independent
    referee (``audit.py``) finds every night legal, and the guard's outcomes all occur."""
    outcomes: Counter[str] = Counter()
    for seed in seeds:
        events = [parse_event(e) for e in play_table(bodyguard_setup(seed), random_answer(seed)).events]
        assert audit(events) == [], f"seed {seed}"
        assert sum(isinstance(e, ev.GameOver) for e in events) == 1
        guards: dict[str, str] = {}
        for e in events:
            if isinstance(e, ev.NIGHT_EVENTS[Role.BODYGUARD]):
                guards[e.chooser()] = e.chosen()
            elif isinstance(e, ev.NightResolution):
                if e.intended_kill in guards.values():
                    bodyguard = next(b for b, g in guards.items() if g == e.intended_kill)
                    if bodyguard in e.deaths:
                        outcomes["bodyguard died"] += 1
                    elif e.protected == e.intended_kill:
                        outcomes["doctor saved the target"] += 1
                    elif e.protected == bodyguard:
                        outcomes["doctor saved the bodyguard"] += 1
                guards = {}
    assert set(outcomes) == {"bodyguard died", "doctor saved the target", "doctor saved the bodyguard"}


def test_the_guard_reaches_no_other_players_view() -> None:
    """The information barrier: a night's guard is in the Bodyguard's view alone."""
    seen = 0
    for seed in range(0, 240, 10):
        events = [parse_event(e) for e in play_table(bodyguard_setup(seed), random_answer(seed)).events]
        roles = ev.roles_from_log(events)
        for viewer, role in roles.items():
            guarding = ev.NIGHT_EVENTS[Role.BODYGUARD]
            guards = [e for e in player_view(events, viewer, roles) if isinstance(e, guarding)]
            assert all(g.chooser() == viewer for g in guards), f"seed {seed}: {viewer} saw a guard"
            if role is Role.BODYGUARD:
                seen += len(guards)
    assert seen > 0


# ---- the terminal ----------------------------------------------------------------------------


def test_the_terminal_tells_the_guard_among_the_nights_private_lines() -> None:
    guard = ev.night_event(Role.BODYGUARD, 1, "Player 2", "Player 4", "Player 4 spoke up.")
    assert is_night(guard)
    assert night_choice_text(guard) == "[dim green]  (bodyguard) Player 2 guards Player 4[/]"


# ---- house play ----------------------------------------------------------------------------


def test_the_house_bodyguard_reveals_itself_in_its_last_words() -> None:
    speeches = [("Player 2", "I suspect Player 4.", "Player 4")]
    said = ask(prompt("Player 4", "Bodyguard", "last_words", speeches=speeches), kind_schema("last_words"))
    assert "I was the Bodyguard" in said.text and said.claim == Role.BODYGUARD
