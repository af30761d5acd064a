"""What a summary may say, by construction: items the engine checks against the log and words itself.

A summary stands in for the earlier days in every player's prompt, so whatever it states every
player reads. No text of the summariser's reaches a player. It answers with items of three kinds
(``SummaryAnswer``), and the engine renders each from the public record of the covered days:

- a **fact**, picked by its number from the catalogue the prompt lists (``Catalogue.facts``: each
  night's death, each vote's result with its ballots, each nomination, each role claim, worded by
  the engine from the events);
- a **reported speech** (``ReportedSpeech``): a speaker and a day, and words that must be that
  speaker's own from a speech, defense or last words of that day, matched word by word (case,
  punctuation and Unicode compatibility forms aside) as one passage or up to three joined by "...".
  The engine prints the passage as the log holds it, quoted with the transcripts' speech safety
  (``safety.quote_text``) and marked as that player's claim;
- a **pattern** (``SpeechPattern``): ``accused`` (that player's speeches on the given days accused
  or nominated the target) or ``changed_vote`` (that player's ballots on the given days went to
  different players), checked against the speeches and ballots and worded by the engine.

Names must be seats' names exactly and days covered days, so a vote count, a role in apposition, a
night result, a death, a tie, a ballot, a claim or an instruction can only reach a prompt as a
fact the log holds or inside a quote of words a player really said. Items are kept in the answer's
order (facts, speeches, patterns) while their rendered lines fit ``STORY_TOKENS`` whatever the
number of days; every other item is refused with its reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mafia.context.extraction import extract
from mafia.context.safety import QUOTED_MARK, quote_text
from mafia.context.schemas import SpeechLine
from mafia.context.tokens import count_tokens
from mafia.context.transcript import RoundEntry
from mafia.game.events import ColdSummary, ReportedSpeech, SpeechPattern
from mafia.game.rules import SKIP
from mafia.prompts import anchors

STORY_TOKENS = 220
"""The most tokens a summary's items may take as the engine renders them, whatever the days."""
MAX_PASSAGES = 3
MIN_PASSAGE_WORDS = 2
"""A passage of fewer words must be the whole speech: single words strung by "..." say nothing."""
GAP = " ... "
_ELLIPSIS = re.compile(r"\.\.\.+")
_WORD = re.compile(r"\w+")


def _answer_schema(schema: dict[str, Any]) -> None:
    """A schema as sent: no docstring, and no titles on its properties."""
    schema.pop("description", None)
    props = schema.get("properties")
    if isinstance(props, dict):
        for prop in props.values():
            if isinstance(prop, dict):
                prop.pop("title", None)


def _nested(schema: dict[str, Any]) -> None:
    """An item's schema as sent: as ``_answer_schema``, and without its own title."""
    schema.pop("title", None)
    _answer_schema(schema)


_SHAPE = ConfigDict(extra="forbid", json_schema_extra=_nested)


class SpeechItem(BaseModel):
    model_config = _SHAPE
    day: int
    speaker: str = Field(description="The player who spoke, exactly as named.")
    words: str = Field(
        description='Their own words from that day, copied: one passage, or up to three joined by "...".'
    )


class PatternItem(BaseModel):
    model_config = _SHAPE
    pattern: Literal["accused", "changed_vote"]
    player: str
    target: str | None = Field(description="accused: the player accused; changed_vote: null.")
    days: list[int]


class SummaryAnswer(BaseModel):
    """The summariser's answer: items only (strict-mode safe: every field required, no maps)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_answer_schema)
    facts: list[int] = Field(description="Numbers of listed facts to keep.")
    speeches: list[SpeechItem] = Field(description="What players said, in their own words.")
    patterns: list[PatternItem] = Field(description="Who accused whom; who changed their vote.")


@dataclass
class Catalogue:
    """The public record of Days 1-``through`` a summary may draw on: the facts it may pick (fact
    ``n`` is ``facts[n - 1]``; numbered in day order, so a number stays as later days are added),
    every speech by day and speaker, and every ballot by day and voter."""

    through: int
    seats: tuple[str, ...]
    facts: list[str] = field(default_factory=list)
    fact_days: list[int] = field(default_factory=list)
    said: dict[tuple[int, str], list[SpeechLine]] = field(default_factory=dict)
    ballots: dict[tuple[int, str], list[tuple[str, str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: Sequence[RoundEntry], through: int) -> Catalogue:
        covered = [e for e in entries if e.number <= through]
        cat = cls(through, covered[0].seats if covered else ())
        for entry in covered:
            k, tr = entry.number, entry.transcript
            summary = entry.summary()
            if k > 1:
                cat._fact(k, anchors.format_night_death(k - 1, tr.night_kill).rstrip("."))
            for line in tr.speeches:
                if line.nomination:
                    cat._fact(
                        k, anchors.format_accusation(line.speaker, line.nomination, k, nominated=True)[2:]
                    )
            cat._fact(k, f"Day {k} vote: {summary.vote_line or summary.vote_result}")
            if summary.defense_note:
                cat._fact(k, f"Day {k} {summary.defense_note}")
            for player, role in entry.claims():
                cat._fact(k, anchors.format_claim(player, role, k)[2:])
            for line in [*tr.speeches, *tr.defense_speeches, *([tr.last_words] if tr.last_words else [])]:
                cat.said.setdefault((k, line.speaker), []).append(line)
            for kind, votes in (("vote", tr.votes), ("revote", tr.revote)):
                for b in votes:
                    cat.ballots.setdefault((k, b.voter), []).append((kind, b.target))
        return cat

    def _fact(self, day: int, text: str) -> None:
        self.facts.append(text)
        self.fact_days.append(day)

    def numbered(self, numbers: Sequence[int] | None = None) -> list[str]:
        """The facts as the summariser's prompt lists them ("F3: Night 1: Player 4 was killed")."""
        picked = range(1, len(self.facts) + 1) if numbers is None else numbers
        return [f"F{n}: {self.facts[n - 1]}" for n in picked]


@dataclass(frozen=True)
class Grounded:
    """An answer's items the log holds (as the event stores them), their lines as players read
    them, and every refused item with why."""

    facts: list[int]
    speeches: list[ReportedSpeech]
    patterns: list[SpeechPattern]
    lines: list[str]
    refused: list[str]

    @property
    def empty(self) -> bool:
        return not (self.facts or self.speeches or self.patterns)


def _norm(word: str) -> str:
    return unicodedata.normalize("NFKC", word).casefold()


def _words(text: str) -> list[tuple[str, int, int]]:
    """The words of ``text`` (runs of word characters), normalised, with their spans in it."""
    return [(_norm(m.group()), m.start(), m.end()) for m in _WORD.finditer(text)]


def _passages(words: str) -> list[list[str]]:
    """The summariser's words as passages of normalised words (split at "..." or "…"; the
    "(quoted) " mark the speech safety adds to a line is not the speaker's)."""
    text = unicodedata.normalize("NFKC", words).replace(QUOTED_MARK.strip(), " ")
    parts = [[_norm(m.group()) for m in _WORD.finditer(p)] for p in _ELLIPSIS.split(text)]
    return [p for p in parts if p]


def _find(haystack: Sequence[str], needle: Sequence[str], start: int) -> int:
    n = len(needle)
    for i in range(start, len(haystack) - n + 1):
        if list(haystack[i : i + n]) == list(needle):
            return i
    return -1


def excerpt(text: str, words: str) -> str | None:
    """The passages of ``text`` (a logged speech) that ``words`` gives, as the log holds them,
    joined by " ... " (led or ended by "..." when the speech goes on), or None when ``words`` is
    not that: passages of the speech, in order, at most ``MAX_PASSAGES``, each of at least
    ``MIN_PASSAGE_WORDS`` words or the whole speech."""
    spoken = _words(text)
    said = [w for w, _, _ in spoken]
    passages = _passages(words)
    if not passages or len(passages) > MAX_PASSAGES:
        return None
    spans: list[tuple[int, int]] = []
    at = 0
    for passage in passages:
        if len(passage) < MIN_PASSAGE_WORDS and passage != said:
            return None
        i = _find(said, passage, at)
        if i < 0:
            return None
        spans.append((i, i + len(passage) - 1))
        at = i + len(passage)
    out = GAP.join(text[spoken[a][1] : spoken[b][2]] for a, b in spans)
    head = "... " if spans[0][0] > 0 else ""
    tail = " ..." if spans[-1][1] < len(said) - 1 else ""
    return f"{head}{out}{tail}"


def _days(days: Sequence[int]) -> str:
    return ("Day " if len(days) == 1 else "Days ") + anchors.format_numbers(days)


def speech_line(speaker: str, day: int, words: str) -> str:
    """A reported speech as players read it: quoted with the speech safety, marked as a claim."""
    return f'- {speaker}, Day {day}, in their own words (their claim, not a fact): "{quote_text(words)}"'


def accusation_line(player: str, target: str, days: Sequence[int]) -> str:
    """An ``accused`` pattern as players read it."""
    return f"- Accusations in speeches: {player} against {target}, {_days(sorted(days))}"


ACCUSATION_ITEM_LINE = re.compile(
    r"^- Accusations in speeches: (?P<player>[^\n]+?) against (?P<target>[^\n]+?), Days? (?P<days>[\d, -]+)$",
    re.M,
)
SPEECH_ITEM_LINE = re.compile(
    r'^- (?P<speaker>[^,"\n]+), Day (?P<day>\d+), in their own words '
    r'\(their claim, not a fact\): "(?P<words>.*)"$',
    re.M,
)


def _speech(cat: Catalogue, item: SpeechItem | ReportedSpeech) -> tuple[ReportedSpeech | None, str]:
    """The speech item as stored (the passages as the log holds them), or None and why not."""
    if item.speaker not in cat.seats:
        return None, "the speaker is no seat's name"
    if not 1 <= item.day <= cat.through:
        return None, f"Day {item.day} is not a covered day"
    lines = cat.said.get((item.day, item.speaker))
    if not lines:
        return None, f"{item.speaker} did not speak on Day {item.day}"
    for line in lines:
        found = excerpt(line.text, item.words)
        if found is not None:
            return ReportedSpeech(day=item.day, speaker=item.speaker, words=found), ""
    return None, f"the words are not from a speech of {item.speaker} on Day {item.day}"


def _accused(cat: Catalogue, player: str, target: str, day: int) -> bool:
    for line in cat.said.get((day, player), []):
        if line.nomination == target or target in extract(line.text, player, cat.seats).accused:
            return True
    return False


def _pattern(cat: Catalogue, item: PatternItem | SpeechPattern) -> tuple[str | None, str]:
    """The pattern's line, or None and why the log does not hold it."""
    days = list(item.days)
    if item.player not in cat.seats:
        return None, "the player is no seat's name"
    if not days or len(set(days)) != len(days) or any(not 1 <= d <= cat.through for d in days):
        return None, "the days must be distinct covered days"
    days.sort()
    if item.pattern == "accused":
        if item.target is None or item.target not in cat.seats or item.target == item.player:
            return None, "the target is no other seat's name"
        missing = [d for d in days if not _accused(cat, item.player, item.target, d)]
        if missing:
            return None, f"{item.player} did not accuse {item.target} on {_days(missing)}"
        return accusation_line(item.player, item.target, days), ""
    if item.target is not None:
        return None, "a changed vote names no target"
    cast = [(d, kind, target) for d in days for kind, target in cat.ballots.get((d, item.player), [])]
    if any((d, item.player) not in cat.ballots for d in days):
        return None, f"{item.player} cast no ballot on one of {_days(days)}"
    if len({target for _, _, target in cast}) < 2:
        return None, f"{item.player} did not change their vote over {_days(days)}"
    said = ", ".join(
        f"{SKIP if t == SKIP else t} (Day {d}{' revote' if kind == 'revote' else ''})" for d, kind, t in cast
    )
    return f"- Ballots that changed: {item.player} chose {said}", ""


def _fact(cat: Catalogue, number: int) -> tuple[str | None, str]:
    if not 1 <= number <= len(cat.facts):
        return None, f"no fact F{number} is listed"
    return f"- {cat.facts[number - 1]}", ""


def _show(value: object) -> str:
    return repr(value)[:120]


def ground(
    cat: Catalogue,
    facts: Sequence[int],
    speeches: Sequence[SpeechItem | ReportedSpeech],
    patterns: Sequence[PatternItem | SpeechPattern],
) -> Grounded:
    """The items the log holds, in order, while their lines fit ``STORY_TOKENS``; the rest refused."""
    kept_facts: list[int] = []
    kept_speeches: list[ReportedSpeech] = []
    kept_patterns: list[SpeechPattern] = []
    lines: list[str] = []
    refused: list[str] = []

    def fits(item: str, line: str) -> bool:
        if line in lines:
            refused.append(f"{item}: repeats an item")
            return False
        if count_tokens("\n".join([*lines, line])) > STORY_TOKENS:
            refused.append(f"{item}: over the summary's length limit of {STORY_TOKENS} tokens")
            return False
        lines.append(line)
        return True

    for number in facts:
        line, why = _fact(cat, number)
        if line is None:
            refused.append(f"fact {_show(number)}: {why}")
        elif fits(f"fact F{number}", line):
            kept_facts.append(number)
    for speech in speeches:
        stored, why = _speech(cat, speech)
        item = f"speech {_show(speech.model_dump())}"
        if stored is None:
            refused.append(f"{item}: {why}")
        elif fits(item, speech_line(stored.speaker, stored.day, stored.words)):
            kept_speeches.append(stored)
    for pattern in patterns:
        line, why = _pattern(cat, pattern)
        item = f"pattern {_show(pattern.model_dump())}"
        if line is None:
            refused.append(f"{item}: {why}")
        elif fits(item, line):
            kept_patterns.append(SpeechPattern(**pattern.model_dump()))
    return Grounded(kept_facts, kept_speeches, kept_patterns, lines, refused)


def summary_story(summary: ColdSummary, entries: Sequence[RoundEntry]) -> list[str]:
    """A logged summary's item lines as players read them, grounded again against the record the
    prompt is built from (an item a hand-edited log slipped in is left out, never shown)."""
    cat = Catalogue.of(entries, summary.through)
    return ground(cat, summary.facts, summary.speeches, summary.patterns).lines


__all__ = [
    "ACCUSATION_ITEM_LINE",
    "GAP",
    "SPEECH_ITEM_LINE",
    "STORY_TOKENS",
    "Catalogue",
    "Grounded",
    "PatternItem",
    "SpeechItem",
    "SummaryAnswer",
    "accusation_line",
    "excerpt",
    "ground",
    "speech_line",
    "summary_story",
]
