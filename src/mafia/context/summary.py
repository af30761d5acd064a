"""Rolling, recursive summaries of the cold days (spec 003 option B, spec 004 section 2).

For a policy with ``summary``, the days older than the verbatim window and the ``bullet_rounds``
one-line days after it are shown as one summary of the public record, rewritten by a model from the
previous summary and the days that went cold since. It is written at dawn, once for the whole table
(every player's prompt shares it), when at least ``summary_every`` days went cold or a newly cold
day holds a milestone (a death or a new role claim: spec 003's semantic triggering). What only one
player knows stays in that player's deterministic memory.

A summary is grounded by construction (``summary_items``): the engine writes each covered day's
line of facts itself, and the summariser answers with items only (facts picked by number, speeches
reported by speaker and day in their own words, patterns of accusations and changed ballots), each
checked against the log and worded by the engine, the items together at most ``STORY_TOKENS``
whatever the number of days. Items the log does not hold are refused one by one and logged
(``SummaryItemsRefused``); a summariser that fails, answers badly or gives no item the log holds
leaves the deterministic compression in place, and the fallback is logged with its reason
(``SummaryFallback``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mafia.context.policy import ContextPolicy
from mafia.context.record import GameRecord, read_view
from mafia.context.shared_prefix import SEPARATOR, night_prefix
from mafia.context.summary_items import (
    STORY_TOKENS,
    Catalogue,
    Grounded,
    SummaryAnswer,
    ground,
    summary_story,
)
from mafia.context.transcript import RoundEntry, TranscriptManager
from mafia.context.transcript_text import claims_ledger, verbatim_round
from mafia.context.views import public_view
from mafia.game.events import ColdSummary, EventBase
from mafia.records.call_kinds import SUMMARY_ACTION as SUMMARY_ACTION

SUMMARISER = "summariser"
"""The name the summariser's calls are recorded under in prompts.jsonl (seat 0)."""
SUMMARY_HEADER = "[SUMMARY FOR THE TABLE]"
"""Where the summariser's own part of its prompt begins, after the part it shares with the turns."""
FACTS_LABEL = "Facts you may pick, by number (the engine words them):"
PREVIOUS_PICKS = "Previous picks: facts "
INTRO = (
    "You keep the record of this game for all its players: you see only what the whole table saw. "
    "Pick what every player should remember of the earlier days; the engine writes each day's facts "
    "itself, and words your picks from the log."
)
TASK = (
    "Answer with items only, no text of your own (every word players read is the engine's or a "
    "player's): facts: numbers of listed facts to keep (F3 is 3); speeches: a player's words from "
    "one day, copied from their speech, defense or last words (one passage, or up to three joined "
    'by "..."); patterns: "accused" (a player, the player their speeches accused or nominated, '
    'and the days) or "changed_vote" (a player, target null, the days whose ballots went to '
    "different players). Keep the previous picks that still matter, and add role claims, "
    "accusations and contradictions of Days 1-{through}. Items past {limit} tokens as the engine "
    "writes them, and items the log does not hold, are dropped."
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
        _previous(record.summary, entries) if record.summary is not None else ["None yet: this is the first."]
    )
    rules, transcript, shown = night_prefix(events, policy, day)
    in_full = {e.number for e in shown.verbatim}
    lines = [SUMMARY_HEADER, INTRO, "", "[PREVIOUS SUMMARY]", *previous, "", "[DAYS TO ADD, IN FULL]"]
    for entry in fresh:  # a day the transcript above holds in full is not repeated
        if entry.number in in_full:
            lines.append(IN_TRANSCRIPT.format(day=entry.number))
        else:
            lines.extend(verbatim_round(entry.transcript, entry.seats))
    catalogue = Catalogue.of(entries, end)
    picked = set(record.summary.facts) if record.summary is not None else set()
    listed = [n for n, d in enumerate(catalogue.fact_days, 1) if d > done or n in picked]
    lines += ["", FACTS_LABEL, *catalogue.numbered(listed)]
    lines += ["", claims_ledger([e for e in entries if e.number <= end])]
    lines += ["", "[TASK]", TASK.format(through=end, limit=STORY_TOKENS)]
    user = f"{transcript}{SEPARATOR}" + "\n".join(lines)
    return SummaryRequest(round=day, through=end, system=rules, user=user)


def _previous(summary: ColdSummary, entries: Sequence[RoundEntry]) -> list[str]:
    """The previous summary's picks as players read them, and its fact numbers to pick again."""
    story = summary_story(summary, entries)
    numbers = ", ".join(str(n) for n in summary.facts) or "none"
    return [f"Days 1-{summary.through}; {PREVIOUS_PICKS}{numbers}", *story]


def ground_answer(events: Sequence[EventBase], answer: SummaryAnswer, through: int) -> Grounded:
    """The items of ``answer`` the public log of Days 1-``through`` holds, and the refused ones."""
    _, entries = _public(events)
    return ground(Catalogue.of(entries, through), answer.facts, answer.speeches, answer.patterns)
