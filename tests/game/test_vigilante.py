"""The Vigilante, an optional Town role with one night kill a game: the rules the spec leaves open
(docs/rules.md), its one use, and random play with it on to a legal end."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audit import audit
from mafia.game import events as ev
from mafia.game.actions import Answer
from mafia.game.events import parse_event
from mafia.game.rules import (
    ROLES,
    SKIP,
    NightChoice,
    Role,
    parse_role_counts,
    resolve_night,
    saves,
    stands_in,
)
from mafia.models.house.prompt_reading import _night_outcome
from mafia.prompts.anchors import format_night_death
from table_driver import play_table, random_answer
from test_house_model import CLAIM, ask, prompt

VIG = "Player 6"


def _shot(target: str, *, saved: str | None = None, guarded: str | None = None) -> list[str]:
    """Tonight's deaths when the Mafia target Player 3 and the Vigilante shoots ``target``."""
    choices = [NightChoice("Player 7", saved, saves)] if saved is not None else []
    choices += [NightChoice("Player 5", guarded, stands_in)] if guarded is not None else []
    return resolve_night("Player 3", choices, [target])


def test_the_vigilante_row_is_one_optional_shot_a_game() -> None:
    spec = ROLES[Role.VIGILANTE]
    assert spec.side == "town" and spec.optional and spec.uses == 1 and spec.at_most == 1
    assert spec.night is not None and spec.night.shoots and spec.night.effect is None
    assert SKIP in spec.night.targets(["Player 1", VIG], VIG) and VIG not in spec.night.targets([VIG], VIG)
    assert spec.night.fallback(VIG, ["Player 1", SKIP]) == SKIP
    assert parse_role_counts({"vigilante": 1}, 7).of(Role.VIGILANTE) == 1


def test_a_shot_town_player_dies_beside_the_mafias_victim() -> None:
    assert _shot("Player 4") == ["Player 3", "Player 4"]


def test_the_vigilante_and_the_mafia_on_one_player_kill_them_once() -> None:
    assert _shot("Player 3") == ["Player 3"]


def test_a_doctors_save_spares_the_shot_player_and_a_bodyguard_does_not() -> None:
    assert _shot("Player 4", saved="Player 4") == ["Player 3"]
    assert _shot("Player 3", saved="Player 3") == []
    assert _shot("Player 4", guarded="Player 4") == ["Player 3", "Player 4"]


def test_a_skipped_shot_kills_no_one() -> None:
    assert _shot(SKIP) == ["Player 3"]
    assert resolve_night(SKIP, [], [SKIP]) == []


def test_a_vigilante_killed_by_the_mafia_still_shoots() -> None:
    assert resolve_night(VIG, [], ["Player 2"]) == [VIG, "Player 2"]


# ---- random play ---------------------------------------------------------------------------


def _games(count: int) -> list[list[ev.EventBase]]:
    return [[parse_event(e) for e in play_table(_setup(s), random_answer(s)).events] for s in range(count)]


def _setup(seed: int) -> dict[str, Any]:
    return {"seed": seed, "players": 5 + seed % 12, "roles": {"vigilante": 1}}


def _shots(events: list[ev.EventBase]) -> list[Any]:
    return [e for e in events if isinstance(e, ev.NIGHT_EVENTS[Role.VIGILANTE])]


def test_random_games_with_the_vigilante_end_legally_and_use_one_shot_after_skips() -> None:
    skipped_then_shot = simultaneous = 0
    for events in _games(40):
        assert audit(events) == []
        shots = [e.chosen() for e in _shots(events)]
        assert len([s for s in shots if s != SKIP]) <= 1
        if SKIP in shots and shots[-1] != SKIP:
            skipped_then_shot += 1  # a skipped night spent no use: the Vigilante was asked again
        vig = next(e.player for e in events if isinstance(e, ev.RoleAssigned) and e.role is Role.VIGILANTE)
        fired = {e.round: e.chosen() for e in _shots(events) if e.chosen() != SKIP}
        for night in (e for e in events if isinstance(e, ev.NightResolution)):
            if vig in night.deaths and night.round in fired:
                simultaneous += fired[night.round] in night.deaths or fired[night.round] == night.protected
    assert skipped_then_shot > 0 and simultaneous > 0


# ---- house play ----------------------------------------------------------------------------

TARGETS = ["Player 1", "Player 2", "Player 3", "Player 5", "Player 6", "Player 7", SKIP]


def _house_shot(seed: int, earlier: Sequence[tuple[str, str, str | None]]) -> str:
    msgs = prompt(
        "Player 4",
        "Vigilante",
        "shoot",
        phase="Night",
        earlier_days=[earlier],
        speeches=[],
        day=2,
        targets=TARGETS,
    )
    choice: str = ask(msgs, Answer, seed=seed).choice
    return choice


def test_the_house_vigilante_shoots_a_player_a_believed_check_named_mafia() -> None:
    named = [("Player 2", f"{CLAIM} I investigated Player 6: Mafia.", "Player 6")]
    assert {_house_shot(seed, named) for seed in range(10)} == {"Player 6"}


def test_the_house_vigilante_keeps_its_shot_without_a_sure_target() -> None:
    assert {_house_shot(seed, []) for seed in range(10)} == {SKIP}


def test_the_house_model_reads_a_night_of_two_deaths() -> None:
    line = format_night_death(1, ["Player 2", "Player 6"])
    assert line == "Night 1: Player 2 and Player 6 were killed."
    nights: list[tuple[int, str | None]] = []
    _night_outcome(line, nights)
    assert nights == [(1, "Player 2"), (1, "Player 6")]
