"""Dealing a game: seats, roles and personas from the checked config, and the state night zero
opens on."""

from __future__ import annotations

from mafia.game.events import GameStarted, RoleAssigned
from mafia.game.personas import deal_personas
from mafia.game.reading import dump, readable
from mafia.game.rules import GameConfig, assign_roles, on_mafia
from mafia.game.state import GameState


def deal(config: GameConfig, game_id: str) -> GameState:
    """Game ``game_id`` dealt from its checked config: GameStarted, a private RoleAssigned per
    player, the Mafia queued for night zero: the state its first step (``night_zero``) reads."""
    seats = assign_roles(config)
    personas = deal_personas(config.players, config.seed)
    counts = config.role_counts()
    mafia = [s.name for s in seats if on_mafia(s.role)]
    events = [
        GameStarted(
            round=0,
            game_id=game_id,
            players=[s.name for s in seats],
            round_cap=config.round_cap,
            **GameStarted.recorded(counts),
        ),
        *(
            RoleAssigned(
                round=0,
                player=s.name,
                role=s.role,
                persona=persona.description,
                partners=[m for m in mafia if m != s.name] if on_mafia(s.role) else [],
            )
            for s, persona in zip(seats, personas, strict=True)
        ),
    ]
    update: GameState = {
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
    }
    return readable(update, update)
