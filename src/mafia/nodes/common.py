"""The log as typed events, parsed once per game and extended as it grows, and how a finished game's
caches are dropped."""

from __future__ import annotations

from collections.abc import Sequence

from mafia.context.views import forget_game as forget_views
from mafia.game.events import EventBase, parse_event
from mafia.game.state import JSON
from mafia.records.prefix_cache import PrefixCache


def _parse_more(parsed: list[EventBase] | None, raw: Sequence[JSON]) -> list[EventBase]:
    return [*(parsed or []), *(parse_event(e) for e in raw)]


# Logs kept parsed: every game of a few hundred at once. ``forget_game`` drops a game's when it
# ends; the bound only matters for runs no runner ends (a server's).
PARSED_LOGS = 512
_parsed: PrefixCache[JSON, list[EventBase]] = PrefixCache(PARSED_LOGS, _parse_more)


def parsed_log(game_id: str, raw: Sequence[JSON]) -> list[EventBase]:
    """The log as typed events, parsing only what is new since the last call for this run (runs
    of one game id, e.g. the same seed under two policies, are told apart by their first event)."""
    return _parsed.get((game_id, id(raw[0]) if raw else 0), raw)


def forget_game(game_id: str) -> None:
    """Drop what is cached of every run of ``game_id``: its parsed log and its players' views."""
    _parsed.drop(lambda key: isinstance(key, tuple) and key[0] == game_id)
    forget_views(game_id)
