"""A run's model calls by what each was: an answer, a recall search, a summary, and which answers
were re-asked. The one reading of prompt records that every cost figure (play, runs, replay, arena,
tournament, benches) takes its counts from.

A turn's attempts are its calls in order: a recall search (``kind`` "recall") is a billed call but
no answer; an answer rejected (any other ``kind``) is re-asked unless it was the turn's last, which
then fell back. The summariser's record (action "summary") holds one call, never re-asked: a bad
summary falls back to the deterministic compression.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

RECALL_KIND = "recall"
"""The ``kind`` of a turn's attempt that called recall (a billed call, not a rejected answer)."""
SUMMARY_ACTION = "summary"
"""The action of the summariser's prompt records."""


def rejected(attempt: Mapping[str, Any]) -> bool:
    """Whether an attempt is an answer that was rejected (a recall search is not)."""
    return attempt.get("kind") not in (None, RECALL_KIND)


@dataclass(frozen=True)
class CallKinds:
    """Calls by kind; ``reasked`` are the re-asks by the kind of the rejection that caused each,
    ``fallbacks`` the player turns that fell back, by the kind of their last rejection."""

    answers: int = 0
    recalls: int = 0
    summaries: int = 0
    reasks: int = 0
    reasked: dict[str, int] = field(default_factory=dict)
    fallbacks: dict[str, int] = field(default_factory=dict)
    summary_fallbacks: int = 0

    @property
    def calls(self) -> int:
        """Every call: answers, recall searches and summaries."""
        return self.answers + self.recalls + self.summaries


def call_count(records: Iterable[Mapping[str, Any]]) -> int:
    """Every call of prompt records, each attempt once (``kinds_of``'s total): the one count of
    calls that costs, arena and tournament figures and the progress bar show."""
    return kinds_of(records).calls


def kinds_of(records: Iterable[Mapping[str, Any]]) -> CallKinds:
    """The calls of prompt records (``prompts.jsonl``'s) by kind."""
    answers = recalls = summaries = summary_fallbacks = 0
    reasked: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    for record in records:
        attempts = list(record.get("attempts", []))
        if record.get("action") == SUMMARY_ACTION:
            summaries += len(attempts)
            summary_fallbacks += bool(record.get("fallback"))
            continue
        for i, attempt in enumerate(attempts):
            if attempt.get("kind") == RECALL_KIND:
                recalls += 1
                continue
            answers += 1
            if rejected(attempt) and i < len(attempts) - 1:  # the turn's last one fell back instead
                reasked[str(attempt["kind"])] += 1
        if record.get("fallback"):
            fallbacks[str(record.get("fallback_kind"))] += 1
    return CallKinds(
        answers=answers,
        recalls=recalls,
        summaries=summaries,
        reasks=sum(reasked.values()),
        reasked=dict(reasked),
        fallbacks=dict(fallbacks),
        summary_fallbacks=summary_fallbacks,
    )
