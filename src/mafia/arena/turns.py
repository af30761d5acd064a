"""Where each prompt record sits in its game's event log, and who was alive then."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mafia.context.summary import SUMMARY_ACTION
from mafia.game.events import Elimination, EventBase, GameStarted, NightResolution, PlayerNote
from mafia.game.state import JSON


def player_turns(prompts: Iterable[JSON]) -> list[JSON]:
    """The records of players' turns (the summariser's calls are no turn of the game)."""
    return [r for r in prompts if r.get("action") != SUMMARY_ACTION]


def turn_starts(events: Sequence[EventBase], prompts: Iterable[JSON]) -> list[int | None]:
    """For each prompt record, the length of the log its prompt was built from: the position of
    the turn's first own note (its thought, fallback or cut text, logged with the turn's step), or
    None if the log holds none. Turns asked at once see the same log; notes of other players in
    between are private to them and change no fact of this player."""
    first: dict[tuple[int, str, str], int] = {}
    for index, event in enumerate(events):
        if isinstance(event, PlayerNote):
            first.setdefault((event.round, event.player, event.action), index)
    return [first.get((int(r.get("round", 0)), str(r.get("player")), str(r.get("action")))) for r in prompts]


def seats(events: Sequence[EventBase]) -> list[str]:
    """The table's players in seat order."""
    return next((list(e.players) for e in events if isinstance(e, GameStarted)), [])


def dead(events: Iterable[EventBase]) -> set[str]:
    """Players dead after ``events``: eliminated by day or killed at night."""
    out: set[str] = set()
    for event in events:
        if isinstance(event, Elimination):
            out.add(event.player)
        elif isinstance(event, NightResolution):
            out.update(event.deaths)
    return out
