"""Rolling, recursive summaries of the cold days (spec 003 option B, spec 004 section 2).

For a policy with ``summary``, the days older than the verbatim window and the ``bullet_rounds``
one-line days after it are shown as one summary of the public record, written by a model from the
previous summary and the days that went cold since. It is written at dawn, once for the whole table
(every player's prompt shares it), when at least ``summary_every`` days went cold or a newly cold
day holds a milestone (a death or a new role claim: spec 003's semantic triggering). What only one
player knows stays in that player's deterministic memory.

A summary is checked against the log before use: every covered day must keep its line with its
night death, each vote's result and every ballot cast for a player (read the way the fact-presence
audit reads a prompt), and nothing but day lines and one ``Story:`` line may stand in it. A
summariser that fails, answers badly or drops a fact leaves the deterministic compression in place,
and the fallback is logged with its reason (``SummaryFallback``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mafia.context.facts import day_fact_gaps
from mafia.context.policy import ContextPolicy
from mafia.context.record import GameRecord, read_view
from mafia.context.shared_prefix import SEPARATOR, night_prefix
from mafia.context.summary_facts import invented_fact
from mafia.context.tokens import count_tokens
from mafia.context.transcript import RoundEntry, TranscriptManager
from mafia.context.transcript_text import (
    STORY,
    claims_ledger,
    compressed_round,
    summary_lines,
    verbatim_round,
)
from mafia.context.views import public_view
from mafia.game.events import EventBase
from mafia.prompts import anchors
from mafia.records.call_kinds import SUMMARY_ACTION as SUMMARY_ACTION

SUMMARISER = "summariser"
"""The name the summariser's calls are recorded under in prompts.jsonl (seat 0)."""
STORY_WORDS = 120
_DAY_TOKENS = 90  # a day line with every ballot at 16 seats
_STORY_TOKENS = 220
SUMMARY_HEADER = "[SUMMARY FOR THE TABLE]"
"""Where the summariser's own part of its prompt begins, after the part it shares with the turns."""
INTRO = (
    "You keep the record of this game for all its players: you see only what the whole table saw. "
    "Write a summary of the earlier days that replaces them in every player's prompt."
)
TASK = (
    "Write the new summary of Days 1-{through}: first one line per day, in order, each starting "
    '"Day N:" and keeping every fact of its line under "Facts to keep" (the night death, each vote\'s '
    'result and who voted for whom, a revote), then one line starting "Story:" of at most '
    f"{STORY_WORDS} words on role claims, accusations, alliances and the table's mood. Nothing else. "
    "Give it as your answer's text; every other field may stay empty."
)
IN_TRANSCRIPT = "Day {day}: in full in the transcript above."


@dataclass(frozen=True)
class SummaryRequest:
    """A summary due at dawn: the days it covers and the prompt, whose system message and opening
    (the rules, then the public transcript) are the previous night's turns' own, byte for byte."""

    round: int
    through: int
    system: str
    user: str


def cold_end(policy: ContextPolicy, day: int) -> int:
    """The last day a summary covers on ``day``: older than the window and the one-line days."""
    return day - policy.verbatim_rounds - policy.bullet_rounds


def _public(events: Sequence[EventBase]) -> tuple[GameRecord, list[RoundEntry]]:
    record = read_view(public_view(events), "")
    return record, TranscriptManager.from_record(record, day_open=False).entries


def _milestone(entries: Sequence[RoundEntry], known: Sequence[RoundEntry]) -> bool:
    """A death or a new role claim in ``entries`` (claims are new if no ``known`` day made them)."""
    claimed = {c for e in known for c in e.claims()}
    for entry in entries:
        summary = entry.summary()
        if summary.night_death or summary.vote_death or any(c not in claimed for c in entry.claims()):
            return True
    return False


def summary_request(events: Sequence[EventBase], policy: ContextPolicy, day: int) -> SummaryRequest | None:
    """The summary to write at the dawn of ``day`` (its ``DayStarted`` already logged), or None
    when no day went cold since the last summary or none is due yet."""
    if not policy.summary:
        return None
    end = cold_end(policy, day)
    record, entries = _public(events)
    done = record.summary.through if record.summary is not None else 0
    fresh = [e for e in entries if done < e.number <= end]
    if not fresh:
        return None
    if len(fresh) < policy.summary_every and not _milestone(fresh, [e for e in entries if e.number <= done]):
        return None
    previous = (
        "\n".join(summary_lines(record.summary.text))  # quoted as every prompt shows it
        if record.summary is not None
        else "None yet: this is the first."
    )
    rules, transcript, shown = night_prefix(events, policy, day)
    in_full = {e.number for e in shown.verbatim}
    lines = [SUMMARY_HEADER, INTRO, "", "[PREVIOUS SUMMARY]", previous, "", "[DAYS TO ADD, IN FULL]"]
    for entry in fresh:  # a day the transcript above holds in full is not repeated
        if entry.number in in_full:
            lines.append(IN_TRANSCRIPT.format(day=entry.number))
        else:
            lines.extend(verbatim_round(entry.transcript, entry.seats))
    lines += ["", "Facts to keep, one line per day:"]
    for entry in fresh:
        lines.extend(compressed_round(entry.summary()))
    lines += ["", claims_ledger([e for e in entries if e.number <= end])]
    lines += ["", "[TASK]", TASK.format(through=end)]
    user = f"{transcript}{SEPARATOR}" + "\n".join(lines)
    return SummaryRequest(round=day, through=end, system=rules, user=user)


def check_summary(events: Sequence[EventBase], text: str, through: int) -> str | None:
    """Why the summary of Days 1-``through`` cannot be used, or None: a line that is neither a
    covered day's nor the one story (split at every line break ``str.splitlines`` knows), a fact
    the log does not hold (``summary_facts``), an engine fact of a covered day it drops, or too
    much text."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "empty summary"
    read: list[tuple[int | None, str]] = []
    for line in lines:
        m = anchors.DAY_HEADER.match(line)
        if line.startswith(STORY) and not any(day is None for day, _ in read):
            read.append((None, line.removeprefix(STORY)))
        elif m is not None and 1 <= int(m["day"]) <= through and line.startswith(f"Day {m['day']}:"):
            read.append((int(m["day"]), line.removeprefix(f"Day {m['day']}:")))
        else:
            return f"unexpected line {line[:60]!r}"
    invented = invented_fact(events, read, through)
    if invented is not None:
        return invented
    gaps = day_fact_gaps(events, "\n".join(lines), through)
    if gaps:
        return "dropped " + gaps[0] + (f" and {len(gaps) - 1} more" if len(gaps) > 1 else "")
    limit = _DAY_TOKENS * through + _STORY_TOKENS
    size = count_tokens(text)
    if size > limit:
        return f"too long: {size} tokens for {through} days (at most {limit})"
    return None
