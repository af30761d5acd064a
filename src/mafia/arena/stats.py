"""Small statistics the arena's metrics share: Wilson intervals, quantiles, rates."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) with no trials.

    Unlike the normal approximation it stays inside [0, 1] and is sound for a few games."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def quantile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile by linear interpolation between order statistics (numpy's default);
    None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def spread(values: Sequence[float]) -> dict[str, float | int | None]:
    """Count, mean, median and 95th percentile of ``values`` (None where there are none)."""
    return {
        "n": len(values),
        "mean": sum(values) / len(values) if values else None,
        "median": quantile(values, 0.5),
        "p95": quantile(values, 0.95),
    }


def rate(part: int, whole: int) -> float | None:
    """``part / whole``, or None when ``whole`` is 0 (nothing to rate)."""
    return part / whole if whole else None
