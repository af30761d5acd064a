"""Percentile bootstrap over games: whole games are drawn with replacement, so the figures of one
game (its seats, its days) move together, as they are not independent of each other.

The draws are seeded (``SEED``), so the same games always give the same intervals; every figure of
a report uses the same draws, so a difference of two figures is bootstrapped jointly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from operator import mul

from mafia.arena.stats import quantile

DRAWS = 1000
SEED = 20260
Weights = list[int]  # one draw: how many times each game was drawn
Draws = list[Weights]


def draws(games: int, count: int = DRAWS, seed: int = SEED) -> Draws:
    """``count`` resamples of ``games`` games drawn with replacement from a seeded generator, each
    as the number of times every game was drawn (no draw for no game)."""
    if games == 0:
        return []
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        weights = [0] * games
        for _ in range(games):
            weights[rng.randrange(games)] += 1
        out.append(weights)
    return out


def ratio(nums: Sequence[float], dens: Sequence[float], weights: Weights | None = None) -> float | None:
    """Per-game numerators summed over per-game denominators, each game counted as often as
    ``weights`` drew it (once by default); None when the denominators sum to 0."""
    if weights is None:
        den, num = sum(dens), sum(nums)
    else:
        den, num = sum(map(mul, weights, dens)), sum(map(mul, weights, nums))
    return num / den if den else None


Interval = tuple[float | None, float | None, float | None]  # value, low, high


def percentiles(value: float | None, per_draw: Sequence[float | None]) -> Interval:
    """``value`` with the 95% percentile interval of its ``per_draw`` values (the draws on which
    it is defined); (value, None, None) with no such draw, all None for no value."""
    if value is None:
        return None, None, None
    values = [v for v in per_draw if v is not None]
    if not values:
        return value, None, None
    return value, quantile(values, 0.025), quantile(values, 0.975)


def interval(statistic: Callable[[Weights | None], float | None], resamples: Draws) -> Interval:
    """The statistic on the games as played (weights None) with its 95% percentile interval over
    the resamples."""
    return percentiles(statistic(None), [statistic(weights) for weights in resamples])


def ratios(nums: Sequence[float], dens: Sequence[float], resamples: Draws) -> list[float | None]:
    """``ratio`` on every resample."""
    return [ratio(nums, dens, weights) for weights in resamples]


def overlap(a: tuple[float | None, float | None], b: tuple[float | None, float | None]) -> bool:
    """Whether two intervals (low, high) overlap; an interval with an unknown end overlaps all."""
    (a_low, a_high), (b_low, b_high) = a, b
    if a_low is None or a_high is None or b_low is None or b_high is None:
        return True
    return a_low <= b_high and b_low <= a_high
