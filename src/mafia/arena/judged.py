"""Judged play of an arena's games of one policy and model: every metric of
``seat_play.METRICS`` over all the seats and per role, each with its 95% bootstrap interval over
the games (whole games drawn, ``bootstrap``)."""

from __future__ import annotations

from collections.abc import Sequence

from mafia.arena.bootstrap import Draws, draws, percentiles, ratio, ratios
from mafia.arena.seat_play import ALL, METRICS, Tally
from mafia.game.rules import ROLES

GROUPS = (ALL, *(role.value for role, spec in ROLES.items() if not spec.optional))
"""The seats a figure is over: all of them, then each role's (a role off by default joins ``all``)."""
JSON = dict[str, object]


def judged_figures(games: Sequence[dict[str, Tally]], resamples: Draws | None = None) -> dict[str, JSON]:
    """``figures[key][group]``: ``{value, low, high, n}`` of each metric over the games' seats in
    the group (``role_tallies`` per game), None where no seat was judged on it."""
    resamples = draws(len(games)) if resamples is None else resamples
    out: dict[str, JSON] = {}
    for metric in METRICS:
        row: JSON = {}
        for group in GROUPS:
            nums = [g.get(group, {}).get(metric.key, [0.0, 0.0])[0] for g in games]
            dens = [g.get(group, {}).get(metric.key, [0.0, 0.0])[1] for g in games]
            if not sum(dens):
                row[group] = None
                continue
            value, low, high = percentiles(ratio(nums, dens), ratios(nums, dens, resamples))
            row[group] = {"value": value, "low": low, "high": high, "n": sum(dens)}
        out[metric.key] = row
    return out
