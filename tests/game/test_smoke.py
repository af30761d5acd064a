"""Smoke test: a default game can be dealt."""

from mafia.game.rules import GameConfig, Role, assign_roles


def test_default_deal() -> None:
    seats = assign_roles(GameConfig(seed=1))
    assert len(seats) == 7
    assert sum(s.role is Role.MAFIA for s in seats) == 2
