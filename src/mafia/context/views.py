"""What one player may see of the log: the only door from the log to a prompt."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mafia.game.events import EventBase, GameStarted, entitled, roles_from_log
from mafia.game.rules import Role
from mafia.records.prefix_cache import PrefixCache


def redact(event: EventBase, viewer: str, roles: Mapping[str, Role]) -> EventBase | None:
    """``event`` as ``viewer`` may see it: None if wholly private to others, else private fields
    they are not entitled to are blanked."""
    visible, readable = entitled(event, viewer, roles)
    if not visible:
        return None
    hidden = {name: None for name in event.PRIVATE_FIELDS if name not in readable}
    return event.model_copy(update=hidden) if hidden else event


def _redacted(events: Sequence[EventBase], viewer: str, roles: Mapping[str, Role]) -> list[EventBase]:
    return [e for e in (redact(ev, viewer, roles) for ev in events) if e is not None]


PUBLIC = ""  # a viewer no audience holds: player names are never empty


def public_view(events: Sequence[EventBase]) -> list[EventBase]:
    """What the whole table sees: public events with every private field blanked, which is also
    what a plain Town player sees apart from their own notes."""
    return _redacted(events, PUBLIC, {})


_View = tuple[list[EventBase], dict[str, Role]]  # the view so far, and the roles read so far

# Bound on the views kept: every seat of a few hundred games at once. A game's views are dropped
# when it ends (``forget_game``); the bound only matters for runs no runner ends (a server's).
VIEW_CACHE_SIZE = 4096


def _extender(viewer: str) -> Callable[[_View | None, Sequence[EventBase]], _View]:
    def extend(previous: _View | None, new: Sequence[EventBase]) -> _View:
        view, roles = previous or ([], {})
        roles = {**roles, **roles_from_log(new)}
        return [*view, *_redacted(new, viewer, roles)], roles

    return extend


_views: PrefixCache[EventBase, _View] = PrefixCache(VIEW_CACHE_SIZE)


def _game_id(first: EventBase) -> str:
    return first.game_id if isinstance(first, GameStarted) else ""


def player_view(
    events: Sequence[EventBase], viewer: str, roles: Mapping[str, Role] | None = None
) -> list[EventBase]:
    """Public events, the viewer's own private facts and their team's, nothing else, in log order.

    ``roles`` may be passed when the caller already has them; otherwise they are read from the log.
    Views of a growing log are extended rather than recomputed (see ``mafia.records.prefix_cache``), per
    game and viewer: keyed by name alone, they would outlive their games.
    """
    if roles is not None:
        return _redacted(events, viewer, roles)
    if not events:
        return []
    # Keyed by the game id, the identity of the run's first event and the viewer.
    view, _ = _views.get((_game_id(events[0]), id(events[0]), viewer), events, _extender(viewer))
    return list(view)


def forget_game(game_id: str) -> None:
    """Drop the cached views of every run of ``game_id`` (it ended, or stopped)."""
    _views.drop(lambda key: isinstance(key, tuple) and key[0] == game_id)


def clear_cache() -> None:
    """Drop every cached view (cold-build benchmarks)."""
    _views.drop(lambda key: True)


def cached_views() -> int:
    """How many views are cached (what a long run of many games must keep bounded)."""
    return len(_views)
