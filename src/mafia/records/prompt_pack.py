"""Prompt records as the game state stores them: each prompt text as the length it shares with the
record before it, and the rest.

Prompts are laid out for provider prefix caches, so a prompt shares most of its text with the one
before it (the rules, the transcript so far, often the state). Stored whole, every record would
repeat the transcript, and checkpoints would grow with the square of a game's length; stored as
what is new, they grow with what was said. ``prompts.jsonl`` and every reader outside the state
get whole records (``unpack``), byte-identical to what was rendered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from mafia.game.state import JSON
from mafia.records.call_records import PromptRecord
from mafia.records.prefix_cache import PrefixCache

TEXTS = ("system", "user")


def shared_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (compared in C, by halves)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def pack(record: Mapping[str, Any], previous: Mapping[str, Any] | None) -> JSON:
    """``record`` with each prompt text cut to what ``previous`` (a whole record) does not share."""
    packed = dict(record)
    for key in TEXTS:
        base = previous[key] if previous is not None else ""
        shared = shared_prefix(record[key], base)
        packed[key] = record[key][shared:]
        packed[f"{key}_shared"] = shared
    return packed


def unpack(packed: JSON, previous: Mapping[str, Any] | None) -> PromptRecord:
    """The whole record of ``packed``, given the whole record before it: the prompt record it was
    packed from, texts and all."""
    record = dict(packed)
    for key in TEXTS:
        shared = record.pop(f"{key}_shared")
        base = previous[key] if previous is not None else ""
        record[key] = base[:shared] + packed[key]
    return cast(PromptRecord, record)


def pack_all(records: Sequence[Mapping[str, Any]], previous: Mapping[str, Any] | None) -> list[JSON]:
    """Whole records appended after ``previous`` (a whole record, or None), packed in order."""
    packed: list[JSON] = []
    for record in records:
        packed.append(pack(record, previous))
        previous = record
    return packed


def unpack_all(packed: Sequence[JSON], previous: Mapping[str, Any] | None = None) -> list[PromptRecord]:
    """Whole records of packed ones (from the first record of a game, or after ``previous``)."""
    records: list[PromptRecord] = []
    for item in packed:
        record = unpack(item, previous)
        records.append(record)
        previous = record
    return records


def _last_of(previous: PromptRecord | None, packed: Sequence[JSON]) -> PromptRecord | None:
    for item in packed:
        previous = unpack(item, previous)
    return previous


_last: PrefixCache[JSON, PromptRecord | None] = PrefixCache(32, _last_of)


def last_record(game_id: str, packed: Sequence[JSON]) -> PromptRecord | None:
    """The whole last record of a game's stored records, unpacking only what is new since the last
    call for this game."""
    return _last.get(game_id, packed)
