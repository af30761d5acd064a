"""The part of a prompt every player at the table shares: the rules, then the public transcript.

``build_context`` lays each turn's prompt out with it first; the summariser's call opens with the
same bytes as the previous night's turns (``night_prefix``), so a provider's prefix cache serves
the summary call from what the players' calls already paid for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mafia.context import sections
from mafia.context.policy import ContextPolicy
from mafia.context.record import GameRecord, read_view
from mafia.context.transcript import RoundEntry, TranscriptManager
from mafia.context.transcript_text import transcript_body
from mafia.context.views import public_view
from mafia.game.events import ColdSummary, DayStarted, EventBase

SEPARATOR = "\n\n"
"""What stands between two sections of a message."""


@dataclass(frozen=True)
class Window:
    """The days a policy shows at one moment: the summary of the oldest, the compressed ones, the
    digested ones (who accused whom) and the verbatim ones, with every round for the ledger."""

    manager: TranscriptManager
    summary: ColdSummary | None
    compressed: list[RoundEntry]
    digested: list[RoundEntry]
    verbatim: list[RoundEntry]


def window(record: GameRecord, policy: ContextPolicy, day_open: bool) -> Window:
    """The days ``policy`` shows from ``record`` while a day is open (or at night)."""
    manager = TranscriptManager.from_record(record, policy.verbatim_rounds, day_open=day_open)
    compressed, verbatim = manager.window(full=policy.full_transcript)
    summary = record.summary if policy.summary else None
    if summary is not None:  # the days it covers are shown as the summary, not line by line
        compressed = [e for e in compressed if e.number > summary.through]
    cut = max(0, len(compressed) - policy.digest_rounds)
    return Window(manager, summary, list(compressed[:cut]), list(compressed[cut:]), list(verbatim))


def untrimmed_transcript(shown: Window, policy: ContextPolicy) -> str:
    """The transcript section of ``shown`` as a prompt holds it when no budget trimmed it."""
    body = transcript_body(
        shown.compressed,
        shown.verbatim,
        all_rounds=shown.manager.entries,
        ledger=policy.claims_ledger,
        summary=shown.summary,
        digested=shown.digested,
    )
    return sections.transcript(body)


def before_dawn(events: Sequence[EventBase], day: int) -> list[EventBase]:
    """The log as the night before ``day`` left it: everything before that day's opening."""
    start = next((i for i, e in enumerate(events) if isinstance(e, DayStarted) and e.round == day), None)
    return list(events if start is None else events[:start])


def night_prefix(events: Sequence[EventBase], policy: ContextPolicy, day: int) -> tuple[str, str, Window]:
    """The rules and the transcript section every night turn before ``day`` opened with (no budget
    trims them at a policy without one), and the days that transcript shows."""
    record = read_view(public_view(before_dawn(events, day)), "")
    shown = window(record, policy, day_open=False)
    return sections.rules_of(record), untrimmed_transcript(shown, policy), shown
