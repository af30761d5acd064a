"""Judged play: how each model played, per role, from its seats' tallies (``seat_play``), each
figure with a 95% bootstrap interval over games, and the advantage over the role's baseline (the
figure of every model's seats in that role together); the outcome too (seats on the winning side,
and the wins above what the roles a model held give on average), with each model's rank range
over the bootstrap draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul

from mafia.arena.bootstrap import Draws, Weights, draws, interval, percentiles, ratio, ratios
from mafia.arena.seat_play import BY_DAY, METRICS
from mafia.game.state import JSON
from mafia.tournament.ratings import ROLES
from mafia.tournament.results import TableResult, side_of

ALL = "all"
GROUPS = (ALL, *ROLES)
"""The rows of a judged metric: every seat of the model, then each role's seats."""


Column = tuple[list[float], list[float]]  # per game: numerators, denominators


def _column(tables: Sequence[TableResult], key: str, label: str | None, role: str) -> Column:
    """Per game, the summed numerator and denominator of ``key`` over the seats of ``label`` (every
    model when None) in ``role`` (every role for ``all``)."""
    nums, dens = [], []
    for t in tables:
        n = d = 0.0
        for (seat_label, seat_role), tally in zip(t.seats, t.play or ({},) * len(t.seats), strict=True):
            if (label is None or seat_label == label) and role in (ALL, seat_role) and key in tally:
                n += tally[key][0]
                d += tally[key][1]
        nums.append(n)
        dens.append(d)
    return nums, dens


def _figure(mine: Column, base: Column, base_draws: list[float | None], resamples: Draws) -> JSON | None:
    """One model's figure from its column and the role's (every model's) column with its values
    on the draws: value, 95% interval, the denominator summed over games (``n``), and the
    advantage over the role's baseline with its interval; None when the model has nothing to be
    judged on."""
    if not sum(mine[1]):
        return None
    mine_draws = ratios(*mine, resamples)
    value, low, high = percentiles(ratio(*mine), mine_draws)
    baseline = ratio(*base)
    gains = [None if a is None or b is None else a - b for a, b in zip(mine_draws, base_draws, strict=True)]
    gain, gain_low, gain_high = percentiles(
        None if value is None or baseline is None else value - baseline, gains
    )
    return {
        "value": value,
        "low": low,
        "high": high,
        "n": sum(mine[1]),
        "baseline": baseline,
        "advantage": {"value": gain, "low": gain_low, "high": gain_high},
    }


def _figures(
    tables: Sequence[TableResult], key: str, labels: Sequence[str], role: str, resamples: Draws
) -> JSON:
    """Every model's figure of ``key`` in ``role``."""
    base = _column(tables, key, None, role)
    if not sum(base[1]):
        return dict.fromkeys(labels)
    base_draws = ratios(*base, resamples)
    return {
        label: _figure(_column(tables, key, label, role), base, base_draws, resamples) for label in labels
    }


def _days(tables: Sequence[TableResult]) -> list[int]:
    return sorted(
        {int(key.split(".d")[1]) for t in tables for tally in t.play for key in tally if ".d" in key}
    )


def judged_play(tables: Sequence[TableResult], labels: Sequence[str], resamples: Draws | None = None) -> JSON:
    """Every metric of ``METRICS`` per model and per row of ``GROUPS`` (``metrics[key][model][row]``,
    None where the model held no seat the metric judges), and the calibration metrics by day
    (``by_day[key][model][day]``, over all of the model's scored seats)."""
    resamples = draws(len(tables)) if resamples is None else resamples
    metrics: JSON = {}
    for metric in METRICS:
        per_role = {role: _figures(tables, metric.key, labels, role, resamples) for role in GROUPS}
        metrics[metric.key] = {label: {role: per_role[role][label] for role in GROUPS} for label in labels}
    by_day: JSON = {}
    for key in BY_DAY:
        per_day = {day: _figures(tables, f"{key}.d{day}", labels, ALL, resamples) for day in _days(tables)}
        by_day[key] = {label: {str(day): per_day[day][label] for day in per_day} for label in labels}
    return {"draws": len(resamples), "metrics": metrics, "by_day": by_day}


def _won(table: TableResult) -> list[tuple[str, str, float]]:
    """Each seat's model, role and whether its side won (a draw is half)."""
    out = []
    for label, role in table.seats:
        won = 0.5 if table.winner == "draw" else float(side_of(role) == table.winner)
        out.append((label, role, won))
    return out


def outcomes(tables: Sequence[TableResult], labels: Sequence[str], resamples: Draws | None = None) -> JSON:
    """Per model: the share of its seats on the winning side, by role too, each with its advantage
    over the role's baseline; ``advantage``, its wins above what the roles it held give (every
    seat's win minus its role's win rate over all models, averaged over its seats); and ``ranks``,
    the 2.5th to 97.5th percentile of its rank by that advantage over the bootstrap draws (1 is
    best; ties share the better rank)."""
    resamples = draws(len(tables)) if resamples is None else resamples
    seats = [_won(t) for t in tables]
    roles = sorted({role for game in seats for _, role, _ in game})

    def column(label: str | None, role: str) -> Column:
        nums = [sum(w for s, r, w in game if label in (None, s) and role in (ALL, r)) for game in seats]
        dens = [
            float(sum(1 for s, r, _ in game if label in (None, s) and role in (ALL, r))) for game in seats
        ]
        return nums, dens

    role_columns = {role: column(None, role) for role in roles}
    mine_all = {label: column(label, ALL) for label in labels}
    # Per model and role: per game, the model's seats in the role.
    held = {label: {role: column(label, role)[1] for role in roles} for label in labels}

    def above(label: str, weights: Weights | None) -> float | None:
        """The model's wins minus its seats' roles' win rates, over its seats."""
        wins, total = (ratio_sum(values, weights) for values in mine_all[label])
        if not total:
            return None
        rates = {role: ratio(*role_columns[role], weights) or 0.0 for role in roles}
        expected = sum(rates[role] * ratio_sum(count, weights) for role, count in held[label].items())
        return (wins - expected) / total

    out: JSON = {}
    for label in labels:
        by_role: JSON = {}
        for role in GROUPS:
            mine = column(label, role)
            value, low, high = percentiles(ratio(*mine), ratios(*mine, resamples))
            by_role[role] = {"value": value, "low": low, "high": high, "n": sum(mine[1])}
        gain, gain_low, gain_high = interval(lambda w, m=label: above(m, w), resamples)  # type: ignore[misc]
        out[label] = {"wins": by_role, "advantage": {"value": gain, "low": gain_low, "high": gain_high}}
    ranks: dict[str, list[int]] = {label: [] for label in labels}
    for weights in resamples:
        scores = {label: above(label, weights) for label in labels}
        for label, score in scores.items():
            if score is not None:
                ranks[label].append(1 + sum(1 for s in scores.values() if s is not None and s > score))
    for label in labels:
        got = sorted(ranks[label])
        out[label]["ranks"] = {"best": _pick(got, 0.025), "worst": _pick(got, 0.975)} if got else None
    return out


def ratio_sum(values: Sequence[float], weights: Weights | None) -> float:
    """``values`` summed, each game counted as often as ``weights`` drew it."""
    return float(sum(values)) if weights is None else float(sum(map(mul, weights, values)))


def _pick(ordered: Sequence[int], q: float) -> int:
    """The ``q`` quantile of sorted ranks, rounded to a rank outward (a rank range never narrows)."""
    position = q * (len(ordered) - 1)
    return ordered[int(position)] if q < 0.5 else ordered[-1 - int((1 - q) * (len(ordered) - 1))]
