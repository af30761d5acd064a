"""Helpers the phase nodes share: the parsed log, the table, turn requests and event dumping."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from langgraph.types import Send

from mafia.actions import ActionKind
from mafia.events import EventBase, dump_event, parse_event
from mafia.prefix_cache import PrefixCache
from mafia.rules import Role, Seat, Table
from mafia.state import JSON, GameState, TurnRequest
from mafia.views import forget_game as forget_views


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


def since_daybreak(state: GameState, kind: str) -> list[JSON]:
    """Events of ``kind`` logged since the latest day began (the night so far, once it has
    begun), newest first: a short backwards walk instead of a pass over the whole log."""
    found: list[JSON] = []
    for event in reversed(state["events"]):
        if event["type"] == "day_started":
            break
        if event["type"] == kind:
            found.append(event)
    return found


def dump(events: Iterable[EventBase]) -> list[JSON]:
    """Events as the JSON-plain dicts the state holds."""
    return [dump_event(e) for e in events]


def seats_of(state: GameState) -> tuple[Seat, ...]:
    return tuple(Seat(seat=s["seat"], name=s["name"], role=Role(s["role"])) for s in state["seats"])


def table(state: GameState) -> Table:
    """The rules' snapshot of who sits where and who is alive."""
    return Table(seats=seats_of(state), dead=frozenset(state["dead"]))


def seat_number(state: GameState, player: str) -> int:
    return next(int(s["seat"]) for s in state["seats"] if s["name"] == player)


def request(
    state: GameState,
    node: str,
    player: str,
    action: ActionKind,
    options: Sequence[str],
    *,
    game_over: bool = False,
) -> Send:
    """A ``Send`` asking ``player`` for ``action``; ``order`` is the seat, for seat-order reduction."""
    payload: TurnRequest = {
        "id": f"{state['round']}:{action.value}:{player}",
        "round": state["round"],
        "player": player,
        "action": action.value,
        "options": list(options),
        "game_over": game_over,
        "order": seat_number(state, player),
    }
    return Send(node, payload)


def take_turns(state: GameState, action: ActionKind) -> list[JSON]:
    """This round's finished turns for ``action``, in seat order (completion order never matters)."""
    prefix = f"{state['round']}:{action.value}:"
    turns = [t for rid, t in state["turns"].items() if rid.startswith(prefix)]
    return sorted(turns, key=lambda t: int(t["order"]))


def consumed(turns: Iterable[JSON]) -> dict[str, Any]:
    """The ``turns`` update that removes applied turns."""
    return {t["id"]: None for t in turns}
