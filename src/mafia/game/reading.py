"""Reading the game state: the rules' table, a turn request, the night's events so far, events as
the state holds them, and the fields a person reads in Studio's state panel."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import cast

from mafia.game.actions import ActionKind
from mafia.game.events import EventBase, dump_event
from mafia.game.rules import Role, Seat, Table
from mafia.game.state import JSON, GameState, GameUpdate, StepName, Turn, TurnRequest


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


def chosen(turn: Turn) -> str:
    """The choice of a turn whose action always chooses (a ballot, a kill, a protection, a check:
    its fallback is ``skip`` or an option); a turn without one is an engine fault."""
    choice = turn["choice"]
    if choice is None:
        raise ValueError(f"turn {turn['id']} of a choosing action holds no choice")
    return choice


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
    fallback: str | None,
    *,
    game_over: bool = False,
) -> TurnRequest:
    """What ``player`` is asked: ``action`` with its legal ``options`` (the rules', computed once)
    and its ``fallback``; ``order`` is the seat, by which a simultaneous step's turns are applied."""
    return {
        "id": f"{state['round']}:{action.value}:{player}",
        "round": state["round"],
        "player": player,
        "action": action.value,
        "options": list(options),
        "fallback": fallback,
        "game_over": game_over,
        "order": seat_number(state, player),
    }


def _next_turn(state: GameState) -> str:
    """Whose turn comes next, for people reading the state (Studio's state panel)."""
    step: StepName = state["step"]
    day, night = f"Day {state['round']}", f"Night {state['round']}"
    queue = state["queue"]
    night_opens = f"{night} · the Mafia, the Doctor and the Detective act"
    if state["winner"] is not None or step == "game_over":
        return "game over"
    if step in ("night_zero", "speak", "defense", "mafia_round1") and queue:
        return f"{day if step in ('speak', 'defense') else night} · {step} · {queue[0]}"
    if step in ("vote", "revote"):
        return f"{day} · {step} · everyone alive"
    if step == "summary":
        return f"{day} · summary"
    if step == "last_words":
        return f"{day} · last_words · {state['pending_last_words']}"
    if step == "mafia_round2":
        return f"{night} · mafia_round2 · the Mafia"
    if step == "night_resolution":
        return f"{night} · the night ends"
    if step == "night_start" or (step == "check_win" and state["phase"] == "day"):
        return night_opens
    return f"Day {state['round'] + 1} begins"


def readable(state: GameState, update: GameUpdate) -> GameUpdate:
    """``update`` with the fields a person reads in Studio's state panel: the current day or night,
    who is alive and whose turn comes next (derived from the state after ``update``)."""
    after = cast(GameState, {**state, **{k: v for k, v in update.items() if k not in ("events", "prompts")}})
    over = after["winner"] is not None and after["step"] == "game_over"
    phase = "Day" if after["phase"] == "day" else "Night"
    return {
        **update,
        "day": "Game over" if over else f"{phase} {after['round']}",
        "alive": table(after).living,
        "turn": _next_turn(after),
    }
