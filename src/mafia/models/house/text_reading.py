"""Reading free text: role claims, reported investigation results, accusations and clearings.

A few keyword heuristics over a speech's sentences, with player names matched exactly (longest
first, whole words). Results are cached per (speaker, text, names): every player's prompt repeats
the same speeches, so each is read once per game.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class TextReading:
    """What one speech's text says, read by keyword heuristics."""

    detective_claim: bool
    doctor_claim: bool
    findings: tuple[tuple[str, str], ...]  # (player, "Mafia" | "Not Mafia") reported by the speaker
    accused: tuple[str, ...]
    cleared: tuple[str, ...]


_SENTENCE = re.compile(r"[^.!?;]+")
_DETECTIVE_CLAIM = re.compile(
    r"\bI(?: am|'m) (?:the |a |your )?Detective\b|\bI investigated\b|\bmy investigation", re.I
)
_DOCTOR_CLAIM = re.compile(r"\bI(?: am|'m) (?:the |a |your )?Doctor\b", re.I)
_ACCUSING = re.compile(
    r"suspect|suspicious|\bmafia\b|\blying\b|\bliar\b|\bvot|eliminat|nominat|\bscum|guilty|shady",
    re.I,
)
_CLEARING = re.compile(r"not mafia|innocent|\btrust|\bclear|\bclean|\btown\b", re.I)


@lru_cache(maxsize=256)
def names_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """One alternation matching any of ``names`` as a whole word (longest first)."""
    if not names:
        return None
    alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w])(?:{alt})(?![\w])")


@lru_cache(maxsize=256)
def _finding_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    if not names:
        return None
    alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(
        rf"(?<![\w])(?P<name>{alt})(?![\w])(?:'s result)?\W{{0,3}}"
        r"(?:is |was |came back |comes back |turned up |as |= |: ?|- ?)?"
        r"(?P<res>not mafia|innocent|mafia|town|clean)\b",
        re.I,
    )


@lru_cache(maxsize=4096)  # speeches name the players: bounded for long runs with new names
def read_text(speaker: str, text: str, names_key: str) -> TextReading:
    """Claims, reported findings, accusations and clearings in one speech; ``names_key`` is the
    table's player names joined by "\\x1f" (a cheap cache key)."""
    names = tuple(names_key.split("\x1f")) if names_key else ()
    detective = bool(_DETECTIVE_CLAIM.search(text))
    doctor = bool(_DOCTOR_CLAIM.search(text))
    findings: list[tuple[str, str]] = []
    pattern = names_pattern(names)
    if detective:
        fp = _finding_pattern(names)
        if fp is not None:
            for m in fp.finditer(text):
                if m["name"] != speaker:
                    res = m["res"].lower()
                    findings.append((m["name"], "Mafia" if res == "mafia" else "Not Mafia"))
    accused: list[str] = []
    cleared: list[str] = []
    if pattern is not None and pattern.search(text):
        for sentence in _SENTENCE.findall(text):
            mentioned = [n for n in pattern.findall(sentence) if n != speaker]
            if not mentioned:
                continue
            if _CLEARING.search(sentence):
                cleared.extend(n for n in mentioned if n not in cleared)
            elif _ACCUSING.search(sentence):
                accused.extend(n for n in mentioned if n not in accused)
    for name, result in findings:
        target, other = (accused, cleared) if result == "Mafia" else (cleared, accused)
        if name in other:
            other.remove(name)
        if name not in target:
            target.append(name)
    return TextReading(detective, doctor, tuple(findings), tuple(accused), tuple(cleared))
