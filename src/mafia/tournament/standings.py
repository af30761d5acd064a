"""A tournament's standings from its finished games: ratings (``ratings``), win rates by model and
role with Wilson intervals, head-to-head results of each two models' Mafia on the same deals,
the seats each model held by role (the balance), and what each model cost per game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mafia.arena.stats import rate, wilson
from mafia.game.state import JSON
from mafia.tournament.ratings import PASSES, ROLES, rate_tables
from mafia.tournament.results import COSTS, TableResult, Tournament, side_of


def _share(wins: int, trials: int) -> JSON:
    low, high = wilson(wins, trials)
    return {"n": trials, "wins": wins, "rate": rate(wins, trials), "low": low, "high": high}


def win_rates(tables: Sequence[TableResult], labels: Sequence[str]) -> JSON:
    """Per model, over its seats: how often the seat's side won, in all and by role."""
    seats: Counter[tuple[str, str]] = Counter()
    wins: Counter[tuple[str, str]] = Counter()
    for t in tables:
        for label, role in t.seats:
            for key in ((label, role), (label, "all")):
                seats[key] += 1
                wins[key] += side_of(role) == t.winner
    return {
        label: {role: _share(wins[(label, role)], seats[(label, role)]) for role in ("all", *ROLES)}
        for label in labels
    }


def seats_by_role(tables: Sequence[TableResult], labels: Sequence[str]) -> JSON:
    """Seats each model held in each role over the games: how balanced the seating was."""
    held = Counter(seat for t in tables for seat in t.seats)
    return {label: {role: held[(label, role)] for role in ROLES} for label in labels}


def head_to_head(tables: Sequence[TableResult], labels: Sequence[str]) -> list[JSON]:
    """For each two models, over the deals both held the Mafia in (the same cards, the models
    swapped): the deals on which one's Mafia won and the other's did not, each way, and the deals
    on which both did the same; ``share`` is the first's share of the deals that split them."""
    mafia_won: dict[int, dict[str, bool]] = {}
    for t in tables:
        holders = {label for label, role in t.seats if side_of(role) == "mafia"}
        if len(holders) == 1:  # a tournament's seating gives the Mafia to one model
            mafia_won.setdefault(t.seed, {})[holders.pop()] = t.winner == "mafia"
    out = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            pairs = [(won[a], won[b]) for won in mafia_won.values() if a in won and b in won]
            a_better = sum(1 for x, y in pairs if x and not y)
            b_better = sum(1 for x, y in pairs if y and not x)
            out.append(
                {
                    "a": a,
                    "b": b,
                    "deals": len(pairs),
                    "a_better": a_better,
                    "b_better": b_better,
                    "same": len(pairs) - a_better - b_better,
                    "share": _share(a_better, a_better + b_better),
                }
            )
    return out


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def costs(tables: Sequence[TableResult], labels: Sequence[str]) -> JSON:
    """Per model: its seats' calls (recall searches among them), tokens, billed tokens, re-asks and
    fallbacks per game it sat in, and its seats per game."""
    out: JSON = {}
    for label in labels:
        played = [t for t in tables if label in t.costs]
        out[label] = {
            "games": len(played),
            "seats_per_game": _mean([sum(1 for s, _ in t.seats if s == label) for t in played]),
            **{key: _mean([t.costs[label][key] for t in played]) for key in COSTS},
        }
    return out


def standings(tournament: Tournament, passes: int = PASSES) -> JSON:
    """Everything the report shows, JSON-ready."""
    request, tables, labels = tournament.request, tournament.tables, tournament.models
    winners = Counter(t.winner for t in tables)
    return {
        "tournament": request.get("id"),
        "players": request.get("players"),
        "policy": request["policies"][0],
        "models": labels,
        "games": request.get("games"),
        "finished": len(tables),
        "unfinished": tournament.unfinished,
        "winners": {side: winners.get(side, 0) for side in ("town", "mafia", "draw")},
        "ratings": rate_tables(tables, passes),
        "win_rates": win_rates(tables, labels),
        "head_to_head": head_to_head(tables, labels),
        "seats": seats_by_role(tables, labels),
        "costs": costs(tables, labels),
        "summaries": {
            key: _mean([t.summaries.get(key, 0.0) for t in tables]) for key in ("calls", "billed_tokens")
        },
    }
