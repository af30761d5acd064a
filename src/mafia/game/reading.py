"""Reading the game state: the rules' table, a turn request, the night's events so far, events as
the state holds them, and the fields a person reads in Studio's state panel."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import cast

from mafia.game.actions import ActionKind
from mafia.game.events import EventBase, dump_event
from mafia.game.rules import Role, Seat, Table
from mafia.game.state import JSON, GameState, GameUpdate, Step, TurnRequest


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


_ROLES = {role.value: role for role in Role}  # a lookup: calling the enum costs more, per seat per step


def seats_of(state: GameState) -> tuple[Seat, ...]:
    return tuple(Seat(seat=s["seat"], name=s["name"], role=_ROLES[s["role"]]) for s in state["seats"])


def table(state: GameState) -> Table:
    """The rules' snapshot of who sits where and who is alive."""
    return Table(seats=seats_of(state), dead=frozenset(state["dead"]))


def seat_number(state: GameState, player: str) -> int:
    return next(int(s["seat"]) for s in state["seats"] if s["name"] == player)


def request(
    state: GameState,
    player: str,
    action: ActionKind,
    options: Sequence[str],
    *,
    game_over: bool = False,
) -> TurnRequest:
    """What ``player`` is asked: ``action`` with its legal ``options`` (the rules', computed here
    once); ``order`` is the seat, by which a simultaneous step's turns are applied."""
    return {
        "id": f"{state['round']}:{action.value}:{player}",
        "round": state["round"],
        "player": player,
        "action": action.value,
        "options": list(options),
        "game_over": game_over,
        "order": seat_number(state, player),
    }


def _next_turn(state: GameState) -> str:
    """Whose turn comes next, for people reading the state (Studio's state panel)."""
    step: Step = state["step"]
    day, night = f"Day {state['round']}", f"Night {state['round']}"
    queue = state["queue"]
    if state["winner"] is not None or step == "over":
        return "game over"
    if step == "night_zero":
        return f"Night 0 · night_zero · {queue[0]}" if queue else "Day 1 begins"
    if step == "speeches":
        return f"{day} · speak · {queue[0]}" if queue else f"{day} · vote · everyone alive"
    if step == "defense":
        return f"{day} · defense · {queue[0]}" if queue else f"{day} · revote · everyone alive"
    if step == "last_words":
        return f"{day} · last_words · {state['pending_last_words']}"
    if step == "mafia_round1":
        return f"{night} · mafia_round1 · {queue[0]}" if queue else f"{night} · the kill is settled"
    if step == "mafia_round2":
        return f"{night} · mafia_round2 · the Mafia"
    if step == "resolve":
        return f"{night} · the night ends"
    if step == "night":
        return f"{night} · the Mafia, the Doctor and the Detective act"
    return f"Day {state['round'] + 1} begins"


def readable(state: GameState, update: GameUpdate) -> GameUpdate:
    """``update`` with the fields a person reads in Studio's state panel: the current day or night,
    who is alive and whose turn comes next (derived from the state after ``update``)."""
    after = cast(GameState, {**state, **{k: v for k, v in update.items() if k not in ("events", "prompts")}})
    over = after["winner"] is not None and after["step"] == "over"
    phase = "Day" if after["phase"] == "day" else "Night"
    return {
        **update,
        "day": "Game over" if over else f"{phase} {after['round']}",
        "alive": table(after).living,
        "turn": _next_turn(after),
    }
