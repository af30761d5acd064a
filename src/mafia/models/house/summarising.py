"""The house model's summaries, written from the summariser's prompt alone.

The summariser answers with items (``context.summary_items.SummaryAnswer``): the house keeps the
previous summary's picks (its fact numbers, its quoted speeches and accusation patterns, read
back from the lines the prompt shows them as), then adds, for the days going cold, the facts that
are role claims, the opening words of every speech that claimed a role, and who nominated whom
(one pattern a pair, over the days it happened), while the items fit the summary's length limit
as the engine writes them; a quiet stretch with none of these gets its votes' results.
Deterministic: the same prompt, the same answer.
"""

from __future__ import annotations

import re
from typing import Any

from mafia.context.safety import QUOTED_MARK
from mafia.context.summary import FACTS_LABEL, PREVIOUS_PICKS, SUMMARY_HEADER
from mafia.context.summary_items import (
    ACCUSATION_ITEM_LINE,
    SPEECH_ITEM_LINE,
    STORY_TOKENS,
    accusation_line,
    speech_line,
)
from mafia.context.tokens import count_tokens
from mafia.prompts import anchors

SUMMARY_FIELDS = frozenset({"facts", "speeches", "patterns"})
QUOTE_WORDS = 16
_FACT_LINE = re.compile(r"^F(?P<number>\d+): (?P<fact>.+)$", re.M)
_THROUGH = re.compile(r"Days 1-(?P<through>\d+)\.")
_PREVIOUS = re.compile(rf"^Days 1-(?P<through>\d+); {PREVIOUS_PICKS}(?P<numbers>.*)$", re.M)
_DAY = re.compile(r"^Day (?P<day>\d+):$")
_SPOKEN = (anchors.SPEECH_LINE, anchors.DEFENSE_LINE, anchors.LAST_WORDS_LINE)


def asks_summary(text: str, fields: frozenset[str]) -> bool:
    """Whether a call is the summariser's: the summary's schema, or its prompt."""
    return fields == SUMMARY_FIELDS or SUMMARY_HEADER in text


def _opening(words: str) -> str:
    """The first ``QUOTE_WORDS`` words of a speech as the prompt quotes it (its words only)."""
    return " ".join(words.replace(QUOTED_MARK, " ").split()[:QUOTE_WORDS])


def _spoken(text: str, first: int, last: int) -> list[tuple[int, re.Match[str]]]:
    """Every speech, defense and last words of Days ``first``-``last`` in ``text``, with its day."""
    day = 0
    out: list[tuple[int, re.Match[str]]] = []
    for line in text.split("\n"):
        header = _DAY.match(line.strip())
        if header is not None:
            day = int(header["day"])
            continue
        if first <= day <= last:
            m = next((m for p in _SPOKEN if (m := p.match(line)) is not None), None)
            if m is not None:
                out.append((day, m))
    return out


class _Story:
    """Items while their lines fit the length limit (counted as the engine counts them)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.facts: list[int] = []
        self.speeches: list[dict[str, Any]] = []
        self.patterns: list[dict[str, Any]] = []

    def fits(self, line: str) -> bool:
        if line in self.lines or count_tokens("\n".join([*self.lines, line])) > STORY_TOKENS:
            return False
        self.lines.append(line)
        return True


def write_items(text: str) -> dict[str, Any]:
    """The summariser's answer to the prompt ``text``: facts, speeches and patterns."""
    own = text.partition(SUMMARY_HEADER)[2] or text
    through_m = _THROUGH.search(own.partition("[TASK]")[2])
    through = int(through_m["through"]) if through_m else 0
    previous = _PREVIOUS.search(own)
    done = int(previous["through"]) if previous else 0
    kept = [int(n) for n in re.findall(r"\d+", previous["numbers"])] if previous else []
    facts = {int(m["number"]): m["fact"] for m in _FACT_LINE.finditer(own.partition(FACTS_LABEL)[2])}
    story = _Story()
    claimed = {facts[n].rpartition(" (day")[0] for n in kept if n in facts}
    new_facts = []
    for n, fact in facts.items():  # a role claim the summary does not hold yet, once
        claim = fact.rpartition(" (day")[0]
        if " claimed " in fact and n not in kept and claim not in claimed:
            claimed.add(claim)
            new_facts.append(n)
    for n in [*kept, *new_facts]:
        if n in facts and story.fits(f"- {facts[n]}"):
            story.facts.append(n)
    before = own.partition("[DAYS TO ADD")[0]
    speeches = [(int(m["day"]), m["speaker"], m["words"]) for m in SPEECH_ITEM_LINE.finditer(before)]
    speeches += [
        (day, m["speaker"], _opening(m["text"]))
        for day, m in _spoken(text, done + 1, through)
        if " (claims " in m.group()
    ]
    for day, speaker, quoted in speeches:
        if quoted and story.fits(speech_line(speaker, day, quoted)):
            story.speeches.append({"day": day, "speaker": speaker, "words": quoted})
    pairs: dict[tuple[str, str], list[int]] = {}
    for m in ACCUSATION_ITEM_LINE.finditer(before):
        pairs[(m["player"], m["target"])] = anchors.parse_numbers(m["days"])
    for day, m in _spoken(text, done + 1, through):
        nominee = m.groupdict().get("nomination")
        if nominee and day not in pairs.setdefault((m["speaker"], nominee), []):
            pairs[(m["speaker"], nominee)].append(day)
    for (player, target), days in pairs.items():
        if story.fits(accusation_line(player, target, days)):
            story.patterns.append({"pattern": "accused", "player": player, "target": target, "days": days})
    if not story.lines:  # a quiet stretch: the votes' results, so the summary says something
        for n, fact in facts.items():
            if " vote: " in fact and n not in kept and story.fits(f"- {fact}"):
                story.facts.append(n)
    return {"facts": story.facts, "speeches": story.speeches, "patterns": story.patterns}


def summary_args(text: str, fields: frozenset[str]) -> dict[str, Any]:
    """The summariser's answer, in the fields of its schema."""
    return write_items(text) if fields == SUMMARY_FIELDS else {}
