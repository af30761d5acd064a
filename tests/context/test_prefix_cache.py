"""The append-only prefix cache: extends a cached result only when the prefix is the same objects."""

from __future__ import annotations

from collections.abc import Sequence

from mafia.records.prefix_cache import PrefixCache


def test_extends_only_the_new_items_and_recomputes_a_fork() -> None:
    folded: list[list[str]] = []

    def fold(previous: list[str] | None, new: Sequence[str]) -> list[str]:
        folded.append(list(new))
        return [*(previous or []), *(x.upper() for x in new)]

    cache: PrefixCache[str, list[str]] = PrefixCache(4, fold)
    log = ["a", "b"]
    assert cache.get("g", log) == ["A", "B"]
    log = [*log, "c"]
    assert cache.get("g", log) == ["A", "B", "C"]
    assert folded[-1] == ["c"], "only the appended item was folded"
    fork = ["a", "x"]  # equal length prefix, different objects at the end
    assert cache.get("g", fork) == ["A", "X"]
    assert folded[-1] == ["a", "x"], "a fork is recomputed whole"
