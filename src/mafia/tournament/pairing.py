"""Swiss pairing: each round pairs models of similar standing, never the same two twice while a
pair that has not met can still be made, and gives an odd model out a bye (a round without
games), to the lowest-standing model with the fewest byes so far, so byes rotate.

Pure functions over labels: the standing (best first) comes from the scores of the rounds played,
ties kept in the round-one order, a shuffle seeded by the tournament's first deal.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Pair = tuple[str, str]


@dataclass(frozen=True)
class Round:
    """One Swiss round: its pairs (the better standing first) and the model sitting it out."""

    pairs: tuple[Pair, ...]
    bye: str | None = None

    def record(self) -> dict[str, object]:
        """How arena.json and standings.json hold it."""
        return {"pairs": [list(p) for p in self.pairs], "bye": self.bye}


def default_rounds(models: int) -> int:
    """Rounds when none are asked: ceil(log2 models), as Swiss tournaments play to find a winner."""
    return max(1, math.ceil(math.log2(models)))


def first_order(labels: Sequence[str], seed: int) -> list[str]:
    """Round one's standing: the models shuffled by ``seed`` (the same seed, the same order)."""
    order = list(labels)
    random.Random(seed).shuffle(order)
    return order


def standing(scores: Mapping[str, float], order: Sequence[str]) -> list[str]:
    """The models best score first; equal scores keep their places in ``order``."""
    return sorted(order, key=lambda label: -scores.get(label, 0.0))


def pair_round(ranked: Sequence[str], history: Sequence[Round]) -> Round:
    """The next round for models ``ranked`` best first after rounds ``history``: the pairing with
    the fewest pairs that met before, and among those each model from the top paired with the
    nearest-ranked one it can; with an odd count, the bye that allows the fewest repeats."""
    met = Counter(frozenset(pair) for past in history for pair in past.pairs)
    if len(ranked) % 2 == 0:
        return Round(_match(list(ranked), met)[1])
    byes = Counter(past.bye for past in history)
    candidates = sorted(reversed(ranked), key=lambda label: byes[label])  # stable: lowest first
    best: tuple[int, Round] | None = None
    for bye in candidates:
        repeats, pairs = _match([label for label in ranked if label != bye], met)
        if best is None or repeats < best[0]:
            best = (repeats, Round(pairs, bye))
        if repeats == 0:
            break
    assert best is not None
    return best[1]


def _match(ranked: list[str], met: Counter[frozenset[str]]) -> tuple[int, tuple[Pair, ...]]:
    """The pairing of an even count of models with the fewest repeated pairs, found top down."""
    best: list[tuple[int, tuple[Pair, ...]]] = []

    def search(left: list[str], pairs: tuple[Pair, ...], repeats: int) -> None:
        if best and repeats >= best[0][0]:
            return
        if not left:
            best[:] = [(repeats, pairs)]
            return
        top, rest = left[0], left[1:]
        for i, partner in enumerate(rest):
            search(
                rest[:i] + rest[i + 1 :], (*pairs, (top, partner)), repeats + met[frozenset((top, partner))]
            )
            if best and best[0][0] == 0:
                return

    search(ranked, (), 0)
    return best[0]
