"""Player-written text made safe to quote inside another player's prompt.

Speeches, defenses, last words, Mafia messages and strategy notes are written by models. They are
rendered on one line inside double quotes, so nothing a player writes can start a line of its own;
on top of that, any line of theirs that imitates the engine (a section header, a "Valid targets:"
line, an identity line, an investigation result, an announcement) is marked as quoted and loses the
punctuation readers key on. No player can forge engine text in someone else's prompt.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mafia.prompts import anchors

# Format characters (zero-width spaces, bidi overrides) could hide an imitation from the checks.
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_LIST_MARKER = re.compile(r"^[\s\-*•>#=~.]+")
_BRACKETED = re.compile(r"^[\[<{][^a-z]*[A-Z][^a-z]*[\]>}]")
_ANNOUNCER = re.compile(
    r"^\(?\s*(?:system|game|engine|moderator|narrator|host|admin|announcement|notice|"
    r"game master|gm)\b\s*[\]):>-]",
    re.IGNORECASE,
)
_GAME_TIME = re.compile(r"^(?:day|night|round|vote|revote)\s*\d*\s*:", re.IGNORECASE)
_ANCHOR_WORDS = re.compile(
    r"valid targets\s*:|mafia partners\s*:|your task\s*:|game_over|"
    r"your role is (?:the )?(?:mafia|detective|doctor|town)\b",
    re.IGNORECASE,
)
_SWAP = str.maketrans({"[": "(", "]": ")", '"': "'", "\\": "/"})
QUOTED_MARK = "(quoted) "
LINE_JOIN = " / "


def looks_like_engine(line: str) -> bool:
    """Whether one line of player text imitates a line the engine writes."""
    bare = _LIST_MARKER.sub("", line).strip()
    candidates = (line.strip(), bare, "- " + bare)
    if anchors.SECTION_HEADER.match(bare) or _BRACKETED.match(bare):
        return True
    if any(p.match(c) for p in anchors.ENGINE_LINE_PATTERNS for c in candidates):
        return True
    return bool(_ANNOUNCER.match(bare) or _GAME_TIME.match(bare) or _ANCHOR_WORDS.search(bare))


def _neutralise(line: str) -> str:
    return QUOTED_MARK + line.translate(_SWAP).replace(":", " -")


@lru_cache(maxsize=16_384)  # texts name the players: bounded for long runs with new names
def quote_text(text: str) -> str:
    """``text`` as one safe line for the inside of an engine quote (no quotes, no brackets)."""
    clean = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    out: list[str] = []
    for raw in clean.splitlines():
        line = _CONTROL.sub(" ", raw).strip()
        if not line:
            continue
        out.append(_neutralise(line) if looks_like_engine(line) else line.translate(_SWAP))
    return LINE_JOIN.join(out)
