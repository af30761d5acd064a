"""Judged play as the report and the page show it, in plain text cells both render: one table per
metric (each model's figure overall and per role, with its 95% interval), the calibration by day,
the metrics that separate each two models, the leaderboard's rank ranges, and the warnings that a
result does not tell the models apart; and a swiss tournament's rounds. Everything comes from the
standings."""

from __future__ import annotations

from collections.abc import Sequence

from mafia.arena.bootstrap import overlap
from mafia.arena.report import interval_text
from mafia.arena.seat_play import BY_DAY, METRICS, Metric
from mafia.game.state import JSON
from mafia.tournament.judged import GROUPS

Rows = tuple[list[str], list[list[str]]]  # headers, rows of plain-text cells

JUDGED_NOTE = (
    "How each model played, over its seats in every role and in each role alone, read from the "
    "games' logs. Each figure has its 95% bootstrap interval over games (whole games resampled) "
    "and n, what it is counted over; – where the model held no seat the metric judges."
)
RANK_NOTE = (
    "Rank range: the 2.5th to 97.5th percentile of the model's rank over bootstrap draws of the "
    "games, ranked by its wins above its roles' baseline (each seat's win minus its role's win rate "
    "over every model's seats, averaged over the model's seats; 0 is average)."
)


SWISS_NOTE = (
    "Each round pairs models of similar standing (wins above their roles' baseline over the rounds "
    "before; round one in a seeded order), never the same two twice while others can meet, each "
    "pair on the round's deals both ways round; with an odd count one model sits the round out (a "
    "bye: no games, no score), the lowest-standing one with the fewest byes so far."
)


def round_rows(s: JSON) -> Rows:
    """The swiss rounds paired so far: each round's pairs (the better standing first) and bye."""
    rows = [
        [
            str(r["round"]),
            ", ".join(f"{a} v {b}" for a, b in r["pairs"]),
            r["bye"] or "–",
        ]
        for r in s["pairings"] or []
    ]
    return ["round", "pairs", "bye"], rows


def figure(f: JSON | None, digits: int = 2) -> str:
    """A figure with its interval: ``value [low, high]``, or a dash."""
    return "–" if f is None else interval_text(f, digits)


def metric_rows(s: JSON, metric: Metric) -> Rows:
    """One metric's table: a row per model, a column per group of seats (all, then each role),
    and the advantage of all its seats over every model's."""
    rows = s["judged"]["metrics"][metric.key]
    body = []
    for label in s["models"]:
        cells = [label]
        for group in GROUPS:
            f = rows[label][group]
            cells.append("–" if f is None else f"{figure(f)} n={f['n']:g}")
        mine = rows[label]["all"]
        cells.append("–" if mine is None else figure(mine["advantage"]))
        body.append(cells)
    return ["model", *GROUPS, "advantage over all models"], body


def by_day_rows(s: JSON) -> Rows:
    """Brier and rank AUC day by day, per model (over its scored Town-side seats)."""
    days = sorted({int(d) for key in BY_DAY for m in s["models"] for d in s["judged"]["by_day"][key][m]})
    body = []
    for key in BY_DAY:
        for label in s["models"]:
            per_day = s["judged"]["by_day"][key][label]
            body.append([f"{key}", label, *(figure(per_day.get(str(day))) for day in days)])
    return ["metric", "model", *(f"day {day}" for day in days)], body


def separated(s: JSON, a: str, b: str) -> list[str]:
    """The metrics whose 95% intervals over all of two models' seats do not overlap."""
    out = []
    for metric in METRICS:
        mine, theirs = (s["judged"]["metrics"][metric.key][m]["all"] for m in (a, b))
        if mine is None or theirs is None:
            continue
        if not overlap((mine["low"], mine["high"]), (theirs["low"], theirs["high"])):
            out.append(metric.key)
    return out


def separation_rows(s: JSON) -> Rows:
    """For each two models, the metrics that tell them apart and whether the ratings do."""
    labels: Sequence[str] = s["models"]
    overall = s["ratings"]["overall"]
    body = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            keys = separated(s, a, b)
            rated = a in overall and b in overall
            apart = rated and not overlap(
                (overall[a]["low"], overall[a]["high"]), (overall[b]["low"], overall[b]["high"])
            )
            body.append([f"{a} / {b}", ", ".join(keys) or "none", "yes" if apart else "no"])
    return ["models", "metrics whose intervals do not overlap", "ratings' intervals apart"], body


def rank_range(s: JSON, label: str) -> str:
    """A model's rank range over the bootstrap draws: ``1``, or ``1–3``."""
    ranks = s["outcomes"][label]["ranks"]
    if ranks is None:
        return "–"
    return str(ranks["best"]) if ranks["best"] == ranks["worst"] else f"{ranks['best']}–{ranks['worst']}"


def warnings(s: JSON) -> list[str]:
    """Why the standings may not tell the models apart: every rated game ended alike, two models'
    ratings overlap, or a model's rank range spans more than one rank."""
    out = []
    played = sum(s["winners"].values())
    for side, wins in s["winners"].items():
        if played > 1 and wins == played:
            out.append(
                f"Every one of the {played} rated games ended alike ({side}): the outcomes cannot tell "
                "the models apart; judge them by how they play, or seat them with --design teams."
            )
    overall = s["ratings"]["overall"]
    labels = [m for m in s["models"] if m in overall]
    tied = [
        f"{a} / {b}"
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
        if overlap((overall[a]["low"], overall[a]["high"]), (overall[b]["low"], overall[b]["high"]))
    ]
    if tied:
        out.append(
            "The 95% intervals of these ratings overlap, so their order is not established: "
            + "; ".join(tied)
            + "."
        )
    ranks = {m: s["outcomes"][m]["ranks"] for m in s["models"]}
    wide = [m for m, r in ranks.items() if r is not None and r["best"] != r["worst"]]
    if wide:
        out.append(f"More than one rank is possible for: {', '.join(wide)} (see the rank ranges).")
    return out
