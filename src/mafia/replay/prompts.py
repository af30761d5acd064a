"""The prompts one seat received, call by call, read back from a run's prompt records.

A record holds a turn's prompt (system and user messages) and each call's answer; a re-ask's
messages are rebuilt from the rejected call the way the player turn builds them
(``answers.reask_exchange``), so every call reads exactly as it was sent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from mafia.context.recall import RECALL_KIND
from mafia.game.events import AnswerKind
from mafia.replay.run_folder import ReplayError
from mafia.turn.answers import Rejection, reask_exchange


@dataclass(frozen=True)
class Call:
    """One model call of a turn: the messages sent, and what came back."""

    round: int
    action: str
    player: str
    seat: int
    number: int  # 1 for the first ask, 2 for the first re-ask...
    calls: int  # the turn's calls
    messages: list[tuple[str, str]]  # (role, content), in the order sent
    answer: str
    error: str | None
    kind: str | None


def seat_of(key: str, players: Sequence[str]) -> str:
    """The player a ``--as`` value names: a seat number or a name (any case)."""
    if key.strip().isdigit() and 1 <= int(key) <= len(players):
        return players[int(key) - 1]
    by_name = {name.casefold(): name for name in players}
    if key.strip().casefold() in by_name:
        return by_name[key.strip().casefold()]
    raise ReplayError(
        f"--as {key!r}: names no seat; use a seat number 1-{len(players)} or a player's name "
        f"({', '.join(players)})"
    )


def turn_calls(record: Mapping[str, Any]) -> list[Call]:
    """Every call of one prompt record, with the messages each call sent."""
    prompt = [("system", str(record["system"])), ("user", str(record["user"]))]
    attempts: list[Mapping[str, Any]] = list(record.get("attempts") or [{}])
    calls: list[Call] = []
    messages = list(prompt)
    for number, attempt in enumerate(attempts, 1):
        if number > 1:
            before = attempts[number - 2]
            if before.get("kind") == RECALL_KIND:  # the search and its answer stay for the turn
                found = before.get("recall") or {}
                messages = [
                    *messages,
                    ("assistant", str(before.get("raw") or "")),
                    ("tool", str(found.get("answer", ""))),
                ]
            else:  # a re-ask starts again from the prompt
                rejected, error = reask_exchange(
                    Rejection(AnswerKind(before["kind"]), str(before["error"]), str(before.get("raw") or ""))
                )
                messages = [*prompt, ("assistant", rejected), ("user", error)]
        calls.append(
            Call(
                round=int(record["round"]),
                action=str(record.get("action", "")),
                player=str(record["player"]),
                seat=int(record.get("seat", 0)),
                number=number,
                calls=len(attempts),
                messages=list(messages),
                answer=str(attempt.get("raw") or ""),
                error=attempt.get("error"),
                kind=attempt.get("kind"),
            )
        )
    return calls


def seat_calls(records: Sequence[Mapping[str, Any]], player: str, day: int | None = None) -> list[Call]:
    """Every call made for ``player`` (in round ``day`` only, if given), in the order made."""
    chosen = [r for r in records if r["player"] == player and (day is None or r["round"] == day)]
    try:
        return [call for record in chosen for call in turn_calls(record)]
    except (KeyError, ValueError, TypeError) as exc:
        raise ReplayError(f"a prompt record of {player} is damaged ({type(exc).__name__}: {exc})") from None


def print_calls(console: Console, calls: Sequence[Call]) -> None:
    """Each call's messages verbatim, then its answer. A system message equal to the one printed
    just before is not printed again (it is byte-stable all game), and says so."""
    if not calls:
        console.print("No prompts.")
        return
    last_system: str | None = None
    for call in calls:
        phase = "night 0" if call.round == 0 else f"round {call.round}"
        retry = f", call {call.number} of {call.calls}" if call.calls > 1 else ""
        console.print(Rule(Text(f"{call.player} (seat {call.seat}), {phase}, {call.action}{retry}")))
        for role, content in call.messages:
            console.print(f"--- {role}", style="bold", markup=False, highlight=False)
            if role == "system" and content == last_system:
                console.print("(the same system message as the call before)", style="dim", markup=False)
                continue
            last_system = content if role == "system" else last_system
            console.print(content, markup=False, highlight=False, soft_wrap=True)
        console.print("--- answer", style="bold dim", markup=False)
        console.print(
            call.answer or "(no answer)", style="dim", markup=False, highlight=False, soft_wrap=True
        )
        if call.error:
            console.print(
                f"rejected ({call.kind}): {call.error}", style="magenta", markup=False, soft_wrap=True
            )
