"""Setup: check the run (its models, its seats), then deal the game (mafia.game.deal).

The settings themselves are parsed in mafia.run.settings (``config_from_input`` is re-exported
here for callers that import it from this module)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from mafia.game.deal import deal
from mafia.game.rules import ConfigError, GameConfig
from mafia.game.state import GameState, GameUpdate, SetupInput
from mafia.models.factory import ModelSpecError, resolve_model
from mafia.run.record import describe_context
from mafia.run.runtime import GameContext, game_context
from mafia.run.settings import (
    SettingError,
    SetupError,
    check_seats,
    config_from_input,
    game_id_for,
)
from mafia.turn.people import is_human


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


def setup(state: GameState, runtime: Runtime[GameContext]) -> GameUpdate:
    """Check the setup and the run's context (every model, every seat key), then deal the game:
    GameStarted, a private RoleAssigned per player, Mafia queued for night zero.

    A bad setup or context fails here, before the first turn, with the command line's message.
    """
    raw = state.get("setup") or {}
    context = game_context(runtime)
    config = check_run(raw, context)
    return {**deal(config, game_id_for(raw, config)), "run": describe_context(context, config.seat_names())}


__all__ = ["check_run", "config_from_input", "game_id_for", "setup"]
