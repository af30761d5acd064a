"""Setup: check the run, seat the players, deal roles and personas, open night zero."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.runtime import Runtime

from mafia.checks import SetupError, check_seats
from mafia.cli_frame import SettingError
from mafia.events import GameStarted, RoleAssigned
from mafia.human import is_human
from mafia.models.factory import ModelSpecError, resolve_model
from mafia.nodes.common import dump, readable
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
from mafia.run_input import check_setup_shape
from mafia.run_record import describe_context
from mafia.runtime import GameContext, game_context
from mafia.state import GameState, SetupInput

SETUP_KEYS = ("players", "names", "roles", "seed", "round_cap", "game_id")


def config_from_input(raw: SetupInput | Mapping[str, Any]) -> GameConfig:
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


def game_id_for(raw: SetupInput | Mapping[str, Any], config: GameConfig) -> str:
    """The game's id: given, or derived from the table size and seed (stable across runs)."""
    given = raw.get("game_id")
    return str(given) if given else f"game-{config.players}p-seed{config.seed}"


def check_run(raw: SetupInput | Mapping[str, Any], context: GameContext) -> GameConfig:
    """The checked game config, every model built once and every per-seat key naming a seat; any
    fault is a ``SetupError`` carrying the one line ``mafia play`` prints for it."""
    try:
        config = config_from_input(raw)
    except ConfigError as exc:
        raise SetupError(f"invalid game setting {exc}") from None
    try:
        check_seats(context.seat_models, config, "seat_models")
        for spec in (context.model, *context.seat_models.values()):
            if not is_human(spec):  # a person's seat has no model to build
                resolve_model(spec)  # built once here, reused by the game
    except ModelSpecError as exc:
        raise SetupError(str(exc)) from None
    except SettingError as exc:
        raise SetupError(exc.format_message()) from None
    return config


def setup(state: GameState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Check the setup and the run's context (every model, every seat key), then deal the game:
    GameStarted, a private RoleAssigned per player, Mafia queued for night zero.

    A bad setup or context fails here, before the first turn, with the command line's message.
    """
    raw = state.get("setup") or {}
    context = game_context(runtime)
    config = check_run(raw, context)
    game_id = game_id_for(raw, config)
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
    update = {
        "game_id": game_id,
        "events": dump(events),
        "seats": [{"seat": s.seat, "name": s.name, "role": s.role.value} for s in seats],
        "dead": [],
        "round": 0,
        "round_cap": config.round_cap,
        "phase": "night",
        "step": "night_zero",
        "opener": None,
        "queue": mafia,
        "nominees": [],
        "night_turns": [],
        "pending_last_words": None,
        "winner": None,
        "run": describe_context(context, config.seat_names()),
    }
    return readable(cast(GameState, update), update)
