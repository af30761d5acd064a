"""Random-legal games over every legal combination of roles (open_spiel's ``random_sim_test``):
each ends with exactly one result, the dead never act, and no illegal action is applied
(``audit``, an independent statement of the rules)."""

from __future__ import annotations

import itertools

from audit import audit
from mafia.game.events import parse_event
from mafia.game.rules import ROLES, ConfigError, GameConfig, Role, RoleCounts, field_name, validate_config
from table_driver import play_table, random_answer

SIZES = (5, 7, 10, 16)
POWERS = tuple(role for role in ROLES if role not in (Role.MAFIA, Role.TOWN))
"""Every role a table holds at most a few of (each up to its row's ``at_most``)."""


def combinations(players: int) -> list[dict[str, int]]:
    """Every legal role mix of a table of ``players``: each power from none to its most, and the
    Mafia from none to one short of half; Town fills the rest. Illegal mixes are left out."""
    mixes = []
    ranges = [range((ROLES[role].at_most or 1) + 1) for role in POWERS]
    for powers in itertools.product(*ranges):
        for mafia in range(players // 2 + 1):
            counts = {field_name(role): n for role, n in zip(POWERS, powers, strict=True)}
            counts["mafia"] = mafia
            counts["town"] = players - sum(counts.values())
            try:
                validate_config(GameConfig(players=players, roles=RoleCounts(**counts)))
            except ConfigError:
                continue
            mixes.append(counts)
    return mixes


def test_every_legal_role_combination_plays_to_a_legal_end() -> None:
    played = 0
    for players in SIZES:
        mixes = combinations(players)
        assert any(m["godfather"] and m["bodyguard"] for m in mixes), "no mix holds every power"
        for number, roles in enumerate(mixes):
            seed = players * 1000 + number
            game = play_table({"seed": seed, "players": players, "roles": roles}, random_answer(seed))
            problems = audit([parse_event(e) for e in game.events])
            assert problems == [], f"{players} players, {roles}, seed {seed}: {problems[:3]}"
            played += 1
    assert played > 100


def test_a_table_without_any_plain_mafia_but_a_godfather_is_legal() -> None:
    """A lone Godfather is the whole Mafia: the deal takes it, and a game ends."""
    roles = {"mafia": 0, "godfather": 1, "detective": 1, "doctor": 1, "bodyguard": 0, "town": 2}
    validate_config(GameConfig(players=5, roles=RoleCounts(**roles)))
    game = play_table({"seed": 2, "players": 5, "roles": roles}, random_answer(2))
    assert audit([parse_event(e) for e in game.events]) == []
