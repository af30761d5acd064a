"""How well players keep and read the table, from a game's events and prompt records: the facts
their prompts state by the facts' age, the answers that name players who are not there to be named
(before validation), and how their stated suspicions match the hidden roles round by round."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mafia.arena.turns import dead, player_turns, seats, turn_starts
from mafia.context.facts import prompt_facts
from mafia.context.recall import RECALL_KIND
from mafia.game.actions import ActionKind
from mafia.game.events import EventBase, Thought, VoteRound, roles_from_log
from mafia.game.protocol import ACTIONS
from mafia.game.rules import SKIP, on_mafia
from mafia.game.state import JSON


def fact_presence(events: Sequence[EventBase], prompts: Sequence[JSON]) -> JSON:
    """Facts present and facts due, by age in rounds (the prompt's round minus the fact's), over
    every prompt of the game; ``unplaced`` counts records whose turn the log does not hold."""
    by_age: dict[str, list[int]] = {}
    unplaced = 0
    turns = player_turns(prompts)
    for record, start in zip(turns, turn_starts(events, turns), strict=True):
        if start is None:
            unplaced += 1
            continue
        text = f"{record.get('system', '')}\n\n{record.get('user', '')}"
        now = int(record.get("round", 0))
        for fact in prompt_facts(events[:start], str(record.get("player")), text):
            tally = by_age.setdefault(str(max(0, now - fact.round)), [0, 0])
            tally[0] += fact.present
            tally[1] += 1
    return {"by_age": dict(sorted(by_age.items(), key=lambda kv: int(kv[0]))), "unplaced": unplaced}


def answer_of(raw: str) -> JSON | None:
    """An attempt's raw answer as the object the model gave: JSON text, or tool-call arguments
    (a list whose first item is the object); None if it is neither."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if isinstance(data, list) and data:
        data = data[0]
    return data if isinstance(data, dict) else None


def _slip(value: Any, table: dict[str, str], gone: set[str], allowed: set[str] | None) -> str | None:
    """Why a named player is a grounding slip: ``absent`` (no one at the table), ``dead``, or
    ``not_nominated`` (a ballot for a living player not on it); None for a sound name or none."""
    if value is None or str(value).strip().casefold() in ("", SKIP):
        return None
    name = table.get(str(value).strip().casefold())
    if name is None:
        return "absent"
    if name in gone:
        return "dead"
    if allowed is not None and name not in allowed:
        return "not_nominated"
    return None


def grounding_slips(events: Sequence[EventBase], prompts: Sequence[JSON]) -> JSON:
    """Every call's raw answer, before validation, checked for players it names who are absent,
    dead, or (ballots) not nominated: in its choice, and in its suspicions."""
    table = {name.casefold(): name for name in seats(events)}
    ballots = {(e.round, e.revote): set(e.nominees) for e in events if isinstance(e, VoteRound)}
    answers = unparsed = named = rated = 0
    choice: Counter[str] = Counter()
    suspicion: Counter[str] = Counter()
    turns = player_turns(prompts)
    for record, start in zip(turns, turn_starts(events, turns), strict=True):
        if start is None:
            continue
        gone = dead(events[:start])
        action = ActionKind(record["action"])
        field = ACTIONS[action].choice_field
        allowed = (
            ballots.get((int(record["round"]), action is ActionKind.REVOTE))
            if action in (ActionKind.VOTE, ActionKind.REVOTE)
            else None
        )
        for attempt in record.get("attempts", []):
            if attempt.get("kind") == RECALL_KIND:  # a search, not an answer
                continue
            answer = answer_of(str(attempt.get("raw", "")))
            if answer is None:
                unparsed += 1
                continue
            answers += 1
            if field is not None and answer.get(field) is not None:
                named += 1
                kind = _slip(answer.get(field), table, gone, allowed)
                choice.update([kind] if kind else [])
            notes = answer.get("suspicions")
            for note in notes if isinstance(notes, list) else []:
                rated += 1
                kind = _slip(note.get("player") if isinstance(note, dict) else None, table, gone, None)
                suspicion.update([kind] if kind else [])
    return {
        "answers": answers,
        "unparsed": unparsed,
        "choices": named,
        "choice_slips": dict(choice),
        "suspicions": rated,
        "suspicion_slips": dict(suspicion),
    }


def _best_mafia_rank(levels: dict[str, float], mafia: set[str]) -> float:
    """The rank (1 = most suspected) of the most suspected living Mafia; ties share the middle."""
    best = max(levels[p] for p in levels if p in mafia)
    above = sum(1 for v in levels.values() if v > best)
    level = sum(1 for v in levels.values() if v == best)
    return above + (level + 1) / 2


@dataclass(frozen=True)
class StatedBeliefs:
    """A Town-side player's last thought of a round: the living players it could rate and the
    level it stated for each it did rate, read as a probability of Mafia (level/10)."""

    round: int
    player: str
    others: tuple[str, ...]
    stated: dict[str, float]


def stated_beliefs(events: Sequence[EventBase]) -> list[StatedBeliefs]:
    """Every living non-Mafia player's last thought of each round, in (round, player) order: the
    beliefs scored against the hidden roles (the Mafia know the roles, so theirs are not scored).
    A rating of a player who is dead, absent or the rater is dropped; a repeated one counts once."""
    roles = roles_from_log(events)
    order = seats(events)
    last: dict[tuple[int, str], tuple[Thought, list[str]]] = {}
    gone: set[str] = set()
    for event in events:
        gone |= dead([event])
        if isinstance(event, Thought) and not on_mafia(roles.get(event.player)):
            others = [p for p in order if p not in gone and p != event.player]
            last[(event.round, event.player)] = (event, others)
    out = []
    for (number, player), (thought, others) in sorted(last.items()):
        stated: dict[str, float] = {}
        for note in thought.suspicions:
            if note.player in others and note.player not in stated:
                stated[note.player] = min(max(note.level / 10, 0.0), 1.0)
        out.append(StatedBeliefs(number, player, tuple(others), stated))
    return out


def deduction(events: Sequence[EventBase]) -> JSON:
    """Town-side players' stated suspicions scored against the hidden roles, round by round.

    Per round, each living non-Mafia player's last thought of the round counts (``stated_beliefs``):
    every other living player it rates gives a Brier term; a player left unrated ranks below every
    rated one. ``rank`` is where the most suspected living Mafia stands, ``chance`` where it would
    stand on average under a random order."""
    roles = roles_from_log(events)
    mafia = {p for p, r in roles.items() if on_mafia(r)}
    by_round: dict[str, JSON] = {}
    for beliefs in stated_beliefs(events):
        others, stated = beliefs.others, beliefs.stated
        row = by_round.setdefault(
            str(beliefs.round), {"due": 0, "pairs": 0, "brier_sum": 0.0, "rank": [], "chance": []}
        )
        row["due"] += len(others)
        row["pairs"] += len(stated)
        row["brier_sum"] += sum((p - (name in mafia)) ** 2 for name, p in stated.items())
        living_mafia = [p for p in others if p in mafia]
        if living_mafia:
            levels = {p: stated.get(p, -1.0) for p in others}
            row["rank"].append(_best_mafia_rank(levels, mafia))
            row["chance"].append((len(others) + 1) / (len(living_mafia) + 1))
    return by_round
