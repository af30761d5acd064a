"""Helpers the phase nodes share: the parsed log, the table, turn requests and event dumping."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from langgraph.types import Send

from mafia.actions import ActionKind
from mafia.events import EventBase, dump_event, parse_event
from mafia.rules import Role, Seat, Table
from mafia.state import JSON, GameState, TurnRequest

_CACHE_GAMES = 32
_cache: OrderedDict[str, tuple[list[JSON], list[EventBase]]] = OrderedDict()
_lock = threading.Lock()


def parsed_log(game_id: str, raw: Sequence[JSON]) -> list[EventBase]:
    """The log as typed events, parsing only what is new since the last call for this game.

    The log is append-only, so a cached prefix whose last dict is the same object can be reused;
    anything else (a reloaded checkpoint, a fork) is parsed afresh.
    """
    with _lock:
        cached = _cache.get(game_id)
    if cached is not None:
        old_raw, old_events = cached
        n = len(old_raw)
        if n <= len(raw) and (n == 0 or raw[n - 1] is old_raw[n - 1]):
            events = old_events + [parse_event(e) for e in raw[n:]]
        else:
            events = [parse_event(e) for e in raw]
    else:
        events = [parse_event(e) for e in raw]
    with _lock:
        _cache[game_id] = (list(raw), events)
        _cache.move_to_end(game_id)
        while len(_cache) > _CACHE_GAMES:
            _cache.popitem(last=False)
    return events


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
