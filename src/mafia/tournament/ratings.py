"""Ratings of a tournament's models, overall and per role, with openskill's Plackett-Luce model.

Each game is a match of two teams, the Mafia against the Town, ranked by the winner (a draw ties
them). A team's members are the rated entities seated on its side, each once whatever its number
of seats there, and a side entity (``side:mafia``, ``side:town``) that learns how much the table
favours that side, so a model is not credited for the side it was dealt. Per role the entities are
(model, role), which never meet themselves; overall they are models, and a model seated on both
sides gets both updates added together (its win on one side is its loss on the other).

Sequential ratings depend on the order of the games, so the games are rated in ``PASSES`` passes,
each in its own seeded random order from fresh ratings: a rating's mean is the mean over passes,
its spread adds the passes' own uncertainty (sigma) to how much the order moved the mean, and the
interval is mean ± 1.96 spread.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence

from openskill.models import PlackettLuce

from mafia.arena.stats import Z95
from mafia.game.rules import ROLES as RULE_ROLES
from mafia.game.state import JSON
from mafia.tournament.results import TableResult, side_of

PASSES = 20
ROLES = tuple(role.value for role, spec in RULE_ROLES.items() if not spec.optional)
"""The roles rated and reported one by one (a role off by default counts in the overall ratings)."""
SIDES = ("mafia", "town")
# Ranks of the (mafia, town) teams by winner; lower ranks win.
RANKS = {"mafia": (1.0, 2.0), "town": (2.0, 1.0), "draw": (1.0, 1.0)}

Entity = Hashable
Rating = tuple[float, float]  # mu, sigma
Members = Callable[[TableResult], dict[str, set[Entity]]]


def _update(
    model: PlackettLuce, ratings: dict[Entity, Rating], teams: dict[str, set[Entity]], winner: str
) -> None:
    """Rate one game in place: each side's entities (and its side entity) as one team."""
    order = [[("side", side), *sorted(teams[side], key=repr)] for side in SIDES]
    fresh = (model.mu, model.sigma)
    current = [[model.rating(*ratings.get(e, fresh)) for e in team] for team in order]
    rated = model.rate(current, ranks=list(RANKS[winner]))
    tau2 = model.tau * model.tau
    moved: dict[Entity, list[float]] = {}  # entity -> [mu change, variance removed]
    for team, before, after in zip(order, current, rated, strict=True):
        for entity, old, new in zip(team, before, after, strict=True):
            change = moved.setdefault(entity, [0.0, 0.0])
            change[0] += new.mu - old.mu
            change[1] += old.sigma**2 + tau2 - new.sigma**2
    for entity, (mu_change, removed) in moved.items():
        mu, sigma = ratings.get(entity, fresh)
        variance = max(sigma**2 + tau2 - removed, model.kappa)
        ratings[entity] = (mu + mu_change, math.sqrt(variance))


def _by_model(table: TableResult) -> dict[str, set[Entity]]:
    teams: dict[str, set[Entity]] = {side: set() for side in SIDES}
    for label, role in table.seats:
        teams[side_of(role)].add(label)
    return teams


def _by_role(table: TableResult) -> dict[str, set[Entity]]:
    teams: dict[str, set[Entity]] = {side: set() for side in SIDES}
    for label, role in table.seats:
        teams[side_of(role)].add((label, role))
    return teams


def _passes(tables: Sequence[TableResult], members: Members, passes: int) -> dict[Entity, list[Rating]]:
    """Every entity's rating after each pass over the games in a seeded random order."""
    model = PlackettLuce()
    ordered = sorted(tables, key=lambda t: t.game)
    out: dict[Entity, list[Rating]] = {}
    for number in range(passes):
        games = list(ordered)
        random.Random(number).shuffle(games)
        ratings: dict[Entity, Rating] = {}
        for table in games:
            _update(model, ratings, members(table), table.winner)
        for entity, rating in ratings.items():
            out.setdefault(entity, []).append(rating)
    return out


def summarize_passes(per_pass: Sequence[Rating]) -> JSON:
    """One entity's rating over the passes: mean mu, the spread (pass sigma and order together)
    and its 95% interval."""
    mus = [mu for mu, _ in per_pass]
    mu = sum(mus) / len(mus)
    variance = sum(s * s for _, s in per_pass) / len(per_pass) + sum((m - mu) ** 2 for m in mus) / len(mus)
    sigma = math.sqrt(variance)
    return {"mu": mu, "sigma": sigma, "low": mu - Z95 * sigma, "high": mu + Z95 * sigma}


def rate_tables(tables: Sequence[TableResult], passes: int = PASSES) -> JSON:
    """Ratings of every model overall and per role, and of the two sides, from finished games."""
    overall = _passes(tables, _by_model, passes)
    by_role = _passes(tables, _by_role, passes)
    labels = sorted({label for t in tables for label, _ in t.seats})
    return {
        "passes": passes,
        "games": len(tables),
        "overall": {label: summarize_passes(overall[label]) for label in labels if label in overall},
        "by_role": {
            role: {
                label: summarize_passes(by_role[(label, role)])
                for label in labels
                if (label, role) in by_role
            }
            for role in ROLES
        },
        "sides": {
            side: summarize_passes(overall[("side", side)]) for side in SIDES if ("side", side) in overall
        },
    }
