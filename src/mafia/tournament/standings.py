"""A tournament's standings from its finished games: ratings (``ratings``), win rates by model and
role with Wilson intervals, head-to-head results of each two models' Mafia on the same deals,
the seats each model held by role (the balance), and what each model cost per game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mafia.arena.bootstrap import draws
from mafia.arena.stats import rate, wilson
from mafia.game.state import JSON
from mafia.tournament.judged import judged_play, outcomes
from mafia.tournament.judged_view import warnings
from mafia.tournament.ratings import PASSES, ROLES, rate_tables
from mafia.tournament.results import COSTS, TableResult, Tournament, side_of
from mafia.tournament.spec import MIXED, all_games

SCHEMA = "mafia-standings/1"
"""The version of standings.json's layout (docs/arenas-and-tournaments.md, "standings.json"): a
field's meaning never changes under one version."""


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
    fallbacks per game it sat in, its seats per game, and per call its tokens, billed tokens,
    re-asks, fallbacks and the seconds its provider reported (``server_seconds``, None where no
    call reported any)."""
    out: JSON = {}
    for label in labels:
        spent = [t.costs[label] for t in tables if label in t.costs]
        totals = {key: sum(float(c[key] or 0) for c in spent) for key in COSTS}
        timed = [c for c in spent if c.get("server_seconds") is not None]
        calls = totals["calls"]
        per_call: JSON = {key: totals[key] / calls if calls else None for key in COSTS if key != "calls"}
        timed_calls = sum(float(c["calls"] or 0) for c in timed)
        per_call["server_seconds"] = (
            sum(float(c["server_seconds"] or 0) for c in timed) / timed_calls if timed_calls else None
        )
        out[label] = {
            "games": len(spent),
            "seats_per_game": _mean(
                [sum(1 for s, _ in t.seats if s == label) for t in tables if label in t.costs]
            ),
            **{key: _mean([float(c[key] or 0) for c in spent]) for key in COSTS},
            "per_call": per_call,
        }
    return out


def deception_detection(tables: Sequence[TableResult], labels: Sequence[str]) -> JSON:
    """Per model, over mixed games: ``deception``, the share of the games it held the Mafia seats
    in that the Mafia won; ``detection``, the share of the players the Town exiled by vote in the
    games it held Town seats in who were Mafia (each with its Wilson interval)."""
    out: JSON = {}
    for label in labels:
        as_mafia = [t for t in tables if (label, "Mafia") in t.seats]
        on_town = [t for t in tables if any(s == label and r != "Mafia" for s, r in t.seats)]
        exiled = [role for t in on_town for role in t.exiled]
        out[label] = {
            "deception": _share(sum(t.winner == "mafia" for t in as_mafia), len(as_mafia)),
            "detection": _share(sum(role == "Mafia" for role in exiled), len(exiled)),
        }
    return out


def self_play(tables: Sequence[TableResult], labels: Sequence[str]) -> JSON:
    """Per model, over its games alone at the table: the games, the winners, the rounds and its
    calls and tokens per game."""
    out: JSON = {}
    for label in labels:
        alone = [t for t in tables if t.seats[0][0] == label]
        winners = Counter(t.winner for t in alone)
        out[label] = {
            "games": len(alone),
            "winners": {side: winners.get(side, 0) for side in ("town", "mafia", "draw")},
            "mafia_won": _share(winners.get("mafia", 0), len(alone)),
            "rounds": _mean([t.rounds for t in alone]),
            "calls": _mean([float(t.costs[label]["calls"] or 0) for t in alone]),
            "tokens": _mean([float(t.costs[label]["tokens"] or 0) for t in alone]),
        }
    return out


def game_list(tables: Sequence[TableResult]) -> list[JSON]:
    """Every finished game: run id, deal, who held the Mafia (the model alone at the table in
    self-play), winner, rounds and whether it was self-play."""
    return [
        {
            "game": t.game,
            "seed": t.seed,
            "mafia": next((label for label, role in t.seats if role == "Mafia"), None),
            "models": sorted({label for label, _ in t.seats}),
            "winner": t.winner,
            "rounds": t.rounds,
            "self_play": t.self_play,
        }
        for t in tables
    ]


def standings(tournament: Tournament, passes: int = PASSES) -> JSON:
    """Everything the report shows, JSON-ready. Self-play games are kept apart: every rating,
    rate, head-to-head result and cost is of the mixed games alone."""
    request, labels = tournament.request, tournament.models
    tables = [t for t in tournament.tables if not t.self_play]
    alone = [t for t in tournament.tables if t.self_play]
    winners = Counter(t.winner for t in tables)
    resamples = draws(len(tables))
    out: JSON = {
        "schema": SCHEMA,
        "tournament": request.get("id"),
        "design": request.get("design", MIXED),
        "players": request.get("players"),
        "policy": request["policies"][0],
        "models": labels,
        "games": request.get("games"),
        "finished": len(tables),
        "self_play_games": len(alone),
        "played": len(tournament.tables),
        "scheduled": all_games(
            int(request["games"]), len(request.get("seeds", ())), len(labels), bool(request.get("self_play"))
        ),
        "rounds": request.get("rounds"),
        "pairings": [
            {"round": number, **paired} for number, paired in enumerate(request.get("pairings", []), start=1)
        ]
        if "rounds" in request
        else None,
        "unfinished": tournament.unfinished,
        "winners": {side: winners.get(side, 0) for side in ("town", "mafia", "draw")},
        "ratings": rate_tables(tables, passes),
        "outcomes": outcomes(tables, labels, resamples),
        "judged": judged_play(tables, labels, resamples),
        "win_rates": win_rates(tables, labels),
        "deception_detection": deception_detection(tables, labels),
        "head_to_head": head_to_head(tables, labels),
        "seats": seats_by_role(tables, labels),
        "costs": costs(tables, labels),
        "summaries": {
            key: _mean([t.summaries.get(key, 0.0) for t in tables]) for key in ("calls", "billed_tokens")
        },
        "self_play": self_play(alone, labels) if request.get("self_play") else None,
        "game_list": game_list(tournament.tables),
    }
    out["warnings"] = warnings(out)
    return out
