"""Night powers as table rows: a row's ``uses`` bounds how often its holder is asked, the side a
role plays for decides who kills with the Mafia and who counts toward its parity, and a row's
``shows`` what an investigation of its holder tells."""

from __future__ import annotations

import dataclasses

import pytest

from mafia.game.rules import MAFIA_SIDE, ROLES, Role, is_mafia, on_mafia
from table_driver import play_table, random_answer, sweep_setup


def guards_per_game(seeds: range) -> list[int]:
    """How many nights the Bodyguard guarded in each random game of ``seeds``."""
    counts = []
    for seed in seeds:
        game = play_table({**sweep_setup(seed), "roles": {"bodyguard": 1}}, random_answer(seed))
        counts.append(sum(1 for e in game.events if e["type"] == "bodyguard_guard"))
    return counts


def test_a_power_of_one_use_is_asked_once_a_game(monkeypatch: pytest.MonkeyPatch) -> None:
    unlimited = guards_per_game(range(12))
    assert max(unlimited) >= 2, "no game lasted two nights with the Bodyguard alive: the test proves nothing"
    monkeypatch.setitem(ROLES, Role.BODYGUARD, dataclasses.replace(ROLES[Role.BODYGUARD], uses=1))
    limited = guards_per_game(range(12))
    assert max(limited) == 1


def test_the_mafia_side_is_the_rows_that_play_for_it() -> None:
    assert {r for r, spec in ROLES.items() if spec.side == "mafia"} == MAFIA_SIDE
    assert on_mafia(Role.MAFIA) and on_mafia("Mafia") and not on_mafia(Role.TOWN) and not on_mafia(None)
    assert is_mafia(Role.MAFIA) == "Mafia" and is_mafia(Role.DETECTIVE) == "Not Mafia"
