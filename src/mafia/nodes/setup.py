"""Setup: seat the players, deal roles and personas, open night zero."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mafia.events import GameStarted, RoleAssigned
from mafia.nodes.common import dump
from mafia.personas import deal_personas
from mafia.rules import (
    DEFAULT_ROUND_CAP,
    ConfigError,
    GameConfig,
    Role,
    assign_roles,
    parse_role_counts,
    validate_config,
)
from mafia.state import ConfigInput, GameState

CONFIG_KEYS = ("players", "names", "roles", "seed", "round_cap", "game_id")


def config_from_input(raw: ConfigInput | Mapping[str, Any]) -> GameConfig:
    """A validated GameConfig from the user's setup mapping (ConfigError names a bad field)."""
    unknown = sorted(set(raw) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(unknown[0], f"unknown setting; allowed: {', '.join(CONFIG_KEYS)}")
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


def game_id_for(raw: ConfigInput | Mapping[str, Any], config: GameConfig) -> str:
    """The game's id: given, or derived from the table size and seed (stable across runs)."""
    given = raw.get("game_id")
    return str(given) if given else f"game-{config.players}p-seed{config.seed}"


def setup(state: GameState) -> dict[str, Any]:
    """Deal the game: GameStarted, a private RoleAssigned per player, Mafia queued for night zero."""
    config = config_from_input(state["config"])
    game_id = game_id_for(state["config"], config)
    seats = assign_roles(config)
    personas = deal_personas(config.players, config.seed)
    counts = config.role_counts()
    mafia = [s.name for s in seats if s.role is Role.MAFIA]
    events = [
        GameStarted(
            round=0,
            game_id=game_id,
            players=[s.name for s in seats],
            mafia=counts.mafia,
            detective=counts.detective,
            doctor=counts.doctor,
            town=counts.town,
            round_cap=config.round_cap,
        ),
        *(
            RoleAssigned(
                round=0,
                player=s.name,
                role=s.role,
                persona=persona.description,
                partners=[m for m in mafia if m != s.name] if s.role is Role.MAFIA else [],
            )
            for s, persona in zip(seats, personas, strict=True)
        ),
    ]
    return {
        "game_id": game_id,
        "events": dump(events),
        "seats": [{"seat": s.seat, "name": s.name, "role": s.role.value} for s in seats],
        "dead": [],
        "round": 0,
        "round_cap": config.round_cap,
        "phase": "night",
        "stage": "night_zero",
        "opener": None,
        "queue": mafia,
        "nominees": [],
        "turns": {},
        "pending_last_words": None,
        "winner": None,
    }
