"""Who may see a private event or field of the log (``events.entitled`` decides by it)."""

from __future__ import annotations

from enum import StrEnum


class Audience(StrEnum):
    """Who may see a private event or field (a role's holders are named by the role itself)."""

    ACTOR = "actor"  # the player named by the event's ACTOR_FIELD
    MAFIA = "mafia"  # every Mafia player, living or dead
    NOBODY = "nobody"  # no player: a record of the run, never part of a prompt
