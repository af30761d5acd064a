"""A game's settings as a user gives them (the setup mapping, per-seat keys), parsed and checked
before a game starts; LangGraph- and CLI-free, so the graph, the runner, the arena, tracing and the
command line all read them the same way.

Every fault is one line naming the field and what is allowed: ``ConfigError`` for the table itself
(the rules'), ``SettingError`` for an argument or per-seat setting, ``SetupError`` for a run refused
before its first turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mafia.game.rules import (
    DEFAULT_ROUND_CAP,
    ConfigError,
    GameConfig,
    parse_role_counts,
    validate_config,
)
from mafia.run.inputs import check_setup_shape

SETUP_KEYS = ("players", "names", "roles", "seed", "round_cap", "game_id")


class SettingError(Exception):
    """A bad argument or setting: the command line shows it as one ``error:`` line, exit code 2."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def format_message(self) -> str:
        """The line shown for it (the name the command line's usage errors share)."""
        return self.message


class SetupError(ValueError):
    """A run's setup or context refused before the first turn (a run started from Studio, the API
    or ``graph.invoke``); its message is the line the command line prints for the same fault."""


def config_from_input(raw: Mapping[str, Any]) -> GameConfig:
    """A validated GameConfig from the user's setup mapping (ConfigError names a bad field)."""
    check_setup_shape(raw, SETUP_KEYS)
    unknown = sorted(set(raw) - set(SETUP_KEYS))
    if unknown:
        raise ConfigError(unknown[0], f"unknown setting; allowed: {', '.join(SETUP_KEYS)}")
    for key in ("players", "seed", "round_cap"):
        if key in raw and (not isinstance(raw[key], int) or isinstance(raw[key], bool)):
            raise ConfigError(key, f"must be an integer, got {raw[key]!r}")
    players = int(raw.get("players", 7))
    names = raw.get("names")
    roles = raw.get("roles")
    if names is not None and "players" not in raw:
        players = len(names)
    config = GameConfig(
        players=players,
        names=tuple(names) if names is not None else None,
        roles=parse_role_counts(roles, players) if roles is not None else None,
        seed=int(raw.get("seed", 0)),
        round_cap=int(raw.get("round_cap", DEFAULT_ROUND_CAP)),
    )
    validate_config(config)
    return config


def game_id_for(raw: Mapping[str, Any], config: GameConfig) -> str:
    """The game's id: given, or derived from the table size and seed (stable across runs)."""
    given = raw.get("game_id")
    return str(given) if given else f"game-{config.players}p-seed{config.seed}"


def check_seats(keys: Iterable[str], config: GameConfig, field: str) -> None:
    """Every per-seat model key is a seat number or a player's name, and no seat is given twice."""
    names = config.seat_names()
    # Names in any case, as ``mafia replay --as`` takes them (names differ apart from case).
    seat_of = {
        **{str(k): k for k in range(1, len(names) + 1)},
        **{n.casefold(): k for k, n in enumerate(names, 1)},
    }
    seen: dict[int, str] = {}
    for given in keys:
        key = given if given in seat_of else given.strip().casefold()
        if key not in seat_of:
            raise SettingError(
                f"{field} {given!r}: names no seat; use a seat number 1-{len(names)} or a player's name "
                f"({', '.join(names)})"
            )
        if seat_of[key] in seen:
            raise SettingError(
                f"{field}: seat {seat_of[key]} is given twice ({seen[seat_of[key]]!r} and {given!r})"
            )
        seen[seat_of[key]] = given
