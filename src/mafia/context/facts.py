"""Fact presence: which engine facts a player is entitled to a prompt states, each with its round.

Facts are derived from the raw log (not from the player's view or the context package), then looked
for in the rendered prompt by the anchor formats the builder writes: the living list and every death
with how it happened; every day's vote and revote result and its ballots, and every night death, in
that day's part of the transcript, however old the day; the Detective's results; the Doctor's
protections; the Mafia's partners with their status, the team's kills with their outcome and the
night-zero plans; and every role claim the claims ledger records, with its day. Player text (in
quotes) never counts as a fact being present. Each fact keeps the round it arose in, so presence can
be read by the fact's age (the prompt's round minus the fact's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mafia.context.transcript import TranscriptManager
from mafia.context.views import player_view
from mafia.game import events as ev
from mafia.game.rules import SKIP, Role, on_mafia
from mafia.prompts import anchors

_QUOTED = re.compile(r'"[^"]*"')
# "Player 1, Player 2 voted Player 5" inside a compressed day's line.
_VOTED_GROUP = re.compile(r"(?:^|[(;]\s*)(?P<voters>[^;()]+?) voted (?P<target>[^;()]+?)(?=\s*[;)]|\.?$)")


@dataclass(frozen=True)
class Fact:
    """One fact a prompt's player is entitled to: what it is, the round it arose in, and whether
    the prompt states it."""

    name: str
    round: int
    present: bool


def _engine_lines(text: str) -> list[str]:
    """The prompt's lines with player text (anything in double quotes) blanked out."""
    return [_QUOTED.sub('""', line) for line in text.split("\n")]


def _day_blocks(lines: Sequence[str]) -> dict[int, list[str]]:
    """Each day's part of the transcript: from its "Day N" line to the next day or blank line."""
    blocks: dict[int, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        m = anchors.DAY_HEADER.match(line)
        if m:
            current = blocks.setdefault(int(m["day"]), [])
        elif not line:
            current = None
        if current is not None:
            current.append(line)
    return blocks


def _ballots_in(block: Sequence[str], revote: bool, by_seat: Mapping[str, str]) -> set[tuple[str, str]]:
    """(voter, target) pairs a day's block states for its vote or its revote, in the verbatim form
    ("Votes:" and "Revote votes:" lines) or the compressed one ("A, B voted C", "; revote: ...");
    ``by_seat`` reads ballots written by seat number ("4,6>2", under the prompt's seat legend)."""
    pairs: set[tuple[str, str]] = set()
    for line in block:
        m = anchors.BALLOTS_LINE.match(line)
        if m:
            if (m["label"] == "Revote votes") == revote:
                pairs |= set(anchors.parse_ballots(m["ballots"]))
            continue
        first, _, again = line.partition("; revote: ")
        part = again if revote else first
        for g in _VOTED_GROUP.finditer(part):
            pairs |= {(v, g["target"].strip()) for v in anchors.split_names(g["voters"])}
        for g in anchors.SEAT_BALLOTS.finditer(part) if by_seat else ():
            target = by_seat.get(g["target"], "")
            pairs |= {(by_seat.get(str(v), ""), target) for v in anchors.parse_numbers(g["voters"])}
    return pairs


def _outcome(vote: ev.VoteRound) -> str:
    if vote.outcome == "eliminated" and vote.eliminated is not None:
        return f"{vote.eliminated} eliminated"
    if vote.outcome == "tie":
        return "tie: " + ", ".join(vote.tied)
    return "no vote" if vote.outcome == "no_vote" else "no elimination"


@dataclass
class _Truth:
    """What the log says, up to the prompt: the table, deaths, votes, and the player's own facts."""

    seats: list[str]
    role: Role
    partners: list[str]
    deaths: dict[str, tuple[str, int]]  # name -> ("night" | "voted day", round)
    night_deaths: dict[int, list[str]]  # night -> victims
    days: set[int]
    votes: list[ev.VoteRound]
    results: set[tuple[int, str, str]]
    protections: set[tuple[int, str]]
    kills: set[tuple[int, str, str]]
    plans: list[str]


def _truth(events: Sequence[ev.EventBase], me: str | None) -> _Truth:
    """What the log says; for ``me`` None, only what the whole table knows."""
    start = next(e for e in events if isinstance(e, ev.GameStarted))
    mine = next((e for e in events if isinstance(e, ev.RoleAssigned) and e.player == me), None)
    role, partners = (mine.role, list(mine.partners)) if mine is not None else (Role.TOWN, [])
    t = _Truth(list(start.players), role, partners, {}, {}, set(), [], set(), set(), set(), [])
    decided: dict[int, str] = {}
    for e in events:
        if isinstance(e, ev.DayStarted):
            t.days.add(e.round)
        elif isinstance(e, ev.VoteRound):
            t.votes.append(e)
        elif isinstance(e, ev.Elimination):
            t.deaths[e.player] = ("voted day", e.round)
        elif isinstance(e, ev.NightResolution):
            for victim in e.deaths:
                t.deaths[victim] = ("night", e.round)
                t.night_deaths.setdefault(e.round, []).append(victim)
            target = decided.pop(e.round, None)
            if on_mafia(t.role) and target is not None and target != SKIP:
                t.kills.add((e.round, target, "killed" if target in e.deaths else "survived"))
        elif isinstance(e, ev.MafiaVote) and on_mafia(t.role):
            decided[e.round] = e.final_target
            if e.final_target == SKIP:
                t.kills.add((e.round, SKIP, "skipped"))
        elif isinstance(e, ev.Investigation) and e.detective == me:
            t.results.add((e.round, e.target, e.result))
        elif isinstance(e, ev.DoctorProtection) and e.protector == me:
            t.protections.add((e.round, e.protected))
        elif isinstance(e, ev.NightZeroStrategy) and on_mafia(t.role):
            t.plans.append(e.speaker)
    return t


def _ledger(events: Sequence[ev.EventBase], me: str) -> dict[tuple[str, str], int]:
    """Every claim the claims ledger records from the log so far, with the day first made."""
    manager = TranscriptManager.from_view(player_view(events, me), me)
    first: dict[tuple[str, str], int] = {}
    for entry in manager.entries:
        for claim in entry.claims():
            first.setdefault(claim, entry.number)
    return first


def _table_facts(t: _Truth, text: str, now: int) -> list[Fact]:
    """The living list (a fact of now) and every death with how and when it happened."""
    living = [p for p in t.seats if p not in t.deaths]
    m = anchors.LIVING_LINE.search(text)
    facts = [Fact(f"living list {living}", now, m is not None and anchors.split_names(m["names"]) == living)]
    m = anchors.DEAD_LINE.search(text)
    shown = (
        {(d["name"], d["how"], int(d["round"])) for d in anchors.DEAD_ENTRY.finditer(m["entries"])}
        if m
        else set()
    )
    for name, (how, number) in t.deaths.items():
        facts.append(Fact(f"death of {name} ({how} {number})", number, (name, how, number) in shown))
    return facts


def _day_facts(t: _Truth, lines: Sequence[str]) -> list[Fact]:
    """Each day in the transcript with its night death, vote and revote results and ballots."""
    facts: list[Fact] = []
    blocks = _day_blocks(lines)
    legend = any(anchors.SEAT_LEGEND_LINE.match(line) for line in lines)
    by_seat = anchors.seat_names(t.seats) if legend else {}
    for day in sorted(t.days):
        block = blocks.get(day)
        facts.append(Fact(f"day {day} in the transcript", day, block is not None))
        for victim in t.night_deaths.get(day - 1, []):
            told = block is not None and any(victim in line for line in block[:2])
            facts.append(Fact(f"night {day - 1} death of {victim} on day {day}", day - 1, told))
    for vote in t.votes:
        block = blocks.get(vote.round, [])
        kind = "revote" if vote.revote else "vote"
        result = any(_outcome(vote) in line for line in block)
        facts.append(Fact(f"day {vote.round} {kind} result '{_outcome(vote)}'", vote.round, result))
        stated = _ballots_in(block, vote.revote, by_seat)
        for b in vote.ballots:
            if b.target != SKIP:
                name = f"day {vote.round} {kind} ballot {b.voter} -> {b.target}"
                facts.append(Fact(name, vote.round, (b.voter, b.target) in stated))
    return facts


def _role_facts(t: _Truth, lines: Sequence[str], text: str, prompt: str) -> list[Fact]:
    """The player's own night facts: results, protections, and the Mafia's partners, kills, plans."""
    facts: list[Fact] = []
    results = {
        (night, r["target"], r["result"])
        for r in anchors.RESULT_LINE.finditer(text)
        for night in anchors.nights_of(r)
    }
    for night, target, result in sorted(t.results):
        name = f"investigation of night {night}: {target} is {result}"
        facts.append(Fact(name, night, (night, target, result) in results))
    m = anchors.PROTECTIONS_LINE.search(text)
    protected = (
        {
            (night, e["name"])
            for e in anchors.NIGHT_ENTRY.finditer(m["entries"])
            for night in anchors.protection_nights(e)
        }
        if m
        else set()
    )
    for night, target in sorted(t.protections):
        facts.append(Fact(f"protection of night {night}: {target}", night, (night, target) in protected))
    if not on_mafia(t.role):
        return facts
    expected = ", ".join(f"{p} ({'dead' if p in t.deaths else 'alive'})" for p in t.partners)
    if t.partners:
        facts.append(Fact(f"partners {expected}", 0, f"Your Mafia partners: {expected}" in lines))
    m = anchors.KILLS_LINE.search(text)
    kills = (
        {
            (night, k["target"], k["outcome"])
            for k in anchors.KILL_ENTRY.finditer(m["entries"])
            for night in anchors.nights_of(k)
        }
        if m
        else set()
    )
    for night, target, outcome in sorted(t.kills):
        name = f"team kill of night {night}: {target} ({outcome})"
        facts.append(Fact(name, night, (night, target, outcome) in kills))
    wrote = [s["speaker"] for s in anchors.STRATEGY_LINE.finditer(prompt)]
    facts += [Fact(f"night-zero plan of {speaker}", 0, speaker in wrote) for speaker in t.plans]
    return facts


def prompt_facts(events: Sequence[ev.EventBase], me: str, prompt: str) -> list[Fact]:
    """Every fact ``me`` is entitled to after ``events``, each marked present or not in ``prompt``
    (the system and user messages). The living list is a fact of the log's last round."""
    t = _truth(events, me)
    lines = _engine_lines(prompt)
    text = "\n".join(lines)
    now = events[-1].round if events else 0
    facts = [*_table_facts(t, text, now), *_day_facts(t, lines), *_role_facts(t, lines, text, prompt)]
    # Line by line: the pattern's names may span lines, so a whole-text search could swallow a
    # ledger line into an unquoted line above it ("- A accused B").
    found = (anchors.CLAIM_LINE.match(line) for line in lines)
    claimed = {(c["player"], c["role"], int(c["day"] or 0)) for c in found if c is not None}
    for (player, role), day in _ledger(events, me).items():
        name = f"claim: {player} claimed {role} (day {day})"
        facts.append(Fact(name, day, (player, role, day) in claimed))
    return facts


def missing_facts(events: Sequence[ev.EventBase], me: str, prompt: str) -> list[str]:
    """Every fact ``me`` is entitled to after ``events`` that the prompt text does not state."""
    return [f.name for f in prompt_facts(events, me, prompt) if not f.present]
