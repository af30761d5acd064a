"""What a model-written summary may state: only facts the public log holds.

A summary stands in for the earlier days in every player's prompt, so a summariser that invents a
fact would plant it in every prompt at once. Its lines are read here the way the engine writes
them ("Night 1 killed X", "X eliminated", "A, B voted C", "tie: A, B") and each stated fact is
looked up in the log; anything else that names a death, a role, an investigation, a protection or
a vote must be a claim someone made at the table ("X claims Detective"), never a statement of
what is so. Roles are hidden until the game ends and results and protections are private, so no
summary of the public record can state one; one that does is refused with the first such line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from mafia.context.safety import looks_like_engine
from mafia.game.events import Elimination, EventBase, GameStarted, NightResolution, VoteRound
from mafia.game.rules import SKIP

_DEATH = re.compile(
    r"\b(?:kill\w*|died|dies|dead|death|murder\w*|eliminat\w*|lynch\w*|execut\w*|hang\w*|hanged|"
    r"shot|slain|voted out|removed)\b",
    re.IGNORECASE,
)
_ROLE = re.compile(
    r"\b(?:mafia\w*|mafioso|detective|cop|sheriff|doctor|medic|nurse|town\w*|villager|citizen|"
    r"godfather|innocent|guilty|scum|role)\b",
    re.IGNORECASE,
)
_NIGHT_DEED = re.compile(
    r"\b(?:investigat\w*|inspect\w*|check\w*|result\w*|protect\w*|sav\w*|heal\w*|guard\w*)\b",
    re.IGNORECASE,
)
# Words that make a sentence a report of what someone said or thinks, not a statement of fact.
_CLAIMED = re.compile(
    r"\b(?:claim\w*|said|says|say|told|tells|announc\w*|declar\w*|suspect\w*|accus\w*|think\w*|"
    r"believ\w*|argu\w*|call\w*|suggest\w*|alleg\w*|insist\w*|wonder\w*|doubt\w*|fear\w*)\b",
    re.IGNORECASE,
)
# Words that dress a claim up as the engine's own finding.
_CONFIRMED = re.compile(
    r"\b(?:confirm\w*|verif\w*|engine|system|official\w*|proven|proved|revealed|in fact|truly|"
    r"actually|indeed|definitely|certainly)\b",
    re.IGNORECASE,
)
_DIRECTIVE = re.compile(
    r"\b(?:ignore\b|disregard\b|instruction\w*|you must\b|you should\b|your task\b|system prompt\b|"
    r"(?:all )?players must\b|vote for\b|do not vote\b)",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r";|[.!?](?:\s|$)")
_HIDDEN = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})


@dataclass
class PublicFacts:
    """What the whole table knows of Days 1-``through``: the seats, night deaths, eliminations and
    every vote's ballots and ties."""

    seats: list[str]
    through: int
    night_deaths: dict[int, str] = field(default_factory=dict)
    eliminated: dict[int, set[str]] = field(default_factory=dict)
    ballots: dict[int, set[tuple[str, str]]] = field(default_factory=dict)
    tied: dict[int, set[frozenset[str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, events: Sequence[EventBase], through: int) -> PublicFacts:
        start = next(e for e in events if isinstance(e, GameStarted))
        facts = cls(list(start.players), through)
        for e in events:
            if isinstance(e, NightResolution) and e.actual_kill is not None and e.round < through:
                facts.night_deaths[e.round] = e.actual_kill
            elif isinstance(e, Elimination) and e.round <= through:
                facts.eliminated.setdefault(e.round, set()).add(e.player)
            elif isinstance(e, VoteRound) and e.round <= through:
                pairs = {(b.voter, b.target) for b in e.ballots if b.target != SKIP}
                facts.ballots.setdefault(e.round, set()).update(pairs)
                if e.outcome == "tie":
                    facts.tied.setdefault(e.round, set()).add(frozenset(e.tied))
        return facts

    def dead_by(self, day: int) -> set[str]:
        """Everyone killed at night before ``day`` or eliminated on it or earlier."""
        dead = {v for n, v in self.night_deaths.items() if n < day}
        for d, names in self.eliminated.items():
            if d <= day:
                dead |= names
        return dead

    @cached_property
    def name(self) -> str:
        """A pattern matching one seat's name as a whole word (longest names first)."""
        names = sorted(self.seats, key=len, reverse=True)
        return r"(?<![\w])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w])"

    @cached_property
    def patterns(self) -> tuple[re.Pattern[str], ...]:
        """The engine's fact forms: a night kill, an elimination, a group of ballots, a tie."""
        n = self.name
        return (
            re.compile(rf"\bNight (?P<night>\d+) killed (?P<victim>{n})?"),
            re.compile(rf"(?P<out>{n}) eliminated\b"),
            re.compile(rf"(?P<voters>{n}(?:, {n})*) voted (?:for )?(?P<target>{n})"),
            re.compile(rf"\btie: (?P<tied>{n}(?:, {n})*)"),
        )


def _names(facts: PublicFacts, text: str) -> list[str]:
    return re.findall(facts.name, text)


def _stated(facts: PublicFacts, text: str, day: int | None) -> tuple[str | None, str]:
    """The first engine-form fact of ``text`` the log does not hold (for a day line, on that day;
    for the story, on any covered day), and the text with the facts it holds blanked out."""
    days = [day] if day is not None else list(range(1, facts.through + 1))
    night, out, voted, tie = facts.patterns
    for m in night.finditer(text):
        k = int(m["night"])
        if (
            m["victim"] is None
            or facts.night_deaths.get(k) != m["victim"]
            or (day is not None and k != day - 1)
        ):
            return f"a night kill the log does not hold: {m.group()!r}", text
    for m in out.finditer(text):
        if not any(m["out"] in facts.eliminated.get(d, set()) for d in days):
            return f"an elimination the log does not hold: {m.group()!r}", text
    for m in voted.finditer(text):
        voters, target = _names(facts, m["voters"]), m["target"]
        cast = set().union(*(facts.ballots.get(d, set()) for d in days))
        if any((v, target) not in cast for v in voters):
            return f"a ballot the log does not hold: {m.group()!r}", text
    for m in tie.finditer(text):
        tied = frozenset(_names(facts, m["tied"]))
        if not any(tied in facts.tied.get(d, set()) for d in days):
            return f"a tie the log does not hold: {m.group()!r}", text
    for pattern in facts.patterns:
        text = pattern.sub(" ", text)
    return None, text


def _clause_fault(facts: PublicFacts, clause: str, day: int) -> str | None:
    """Why one clause (engine forms blanked) states a fact of its own, or None."""
    names = _names(facts, clause)
    bare = re.sub(facts.name, " ", clause)
    reported = _CLAIMED.search(bare) is not None
    if _DEATH.search(bare) and not reported and any(n not in facts.dead_by(day) for n in names):
        return f"a death the log does not hold: {clause.strip()!r}"
    if _ROLE.search(bare) and (not reported or _CONFIRMED.search(bare)):
        return f"a role stated as fact: {clause.strip()!r}"
    if _NIGHT_DEED.search(bare) and (not reported or _CONFIRMED.search(bare)):
        return f"a night action or result stated as fact: {clause.strip()!r}"
    return None


def invented_fact(
    events: Sequence[EventBase], lines: Sequence[tuple[int | None, str]], through: int
) -> str | None:
    """Why a summary's lines state something the public log of Days 1-``through`` does not hold,
    or None. ``lines`` are (day, text after the "Day N:" header) for day lines and (None, story)
    for the story."""
    facts = PublicFacts.of(events, through)
    for day, text in lines:
        where = f"day {day}'s line" if day is not None else "the story"
        hidden = next((c for c in text if unicodedata.category(c) in _HIDDEN), None)
        if hidden is not None:
            return f"{where} holds the control or format character U+{ord(hidden):04X}"
        if looks_like_engine(text):
            return f"{where} imitates an engine line: {text[:60]!r}"
        if _DIRECTIVE.search(text):
            return f"{where} addresses the players: {text[:60]!r}"
        fault, rest = _stated(facts, text, day)
        if fault is not None:
            return f"{where} states {fault}"
        for clause in _CLAUSE.split(rest):
            fault = _clause_fault(facts, clause, day if day is not None else through)
            if fault is not None:
                return f"{where} states {fault}"
    return None
