"""A minimal arena summary, read from the arena's folder alone: for every policy and model, the
games asked and finished, the winners, model calls and tokens, rounds and wall time per game."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mafia.arena.outcomes import SIDES
from mafia.arena.spec import ARENA_FILE, GAMES_DIR, RESULT_FILE
from mafia.game.state import JSON


def read_results(arena_dir: Path) -> tuple[JSON, list[JSON]]:
    """The arena's ask (arena.json) and the results of its finished games, in the ask's order."""
    arena: JSON = json.loads((arena_dir / ARENA_FILE).read_text(encoding="utf-8"))
    results: list[JSON] = []
    for seed in arena["seeds"]:
        for policy in arena["policies"]:
            for label in arena["models"]:
                path = arena_dir / GAMES_DIR / policy / label / f"seed-{seed}" / RESULT_FILE
                if path.exists():
                    results.append(json.loads(path.read_text(encoding="utf-8")))
    return arena, results


def _group(asked: int, results: Iterable[JSON]) -> JSON:
    games = list(results)
    n = len(games)

    def mean(key: str) -> float | None:
        return round(sum(float(g[key]) for g in games) / n, 3) if n else None

    winners = Counter(str(g["winner"]) for g in games)
    return {
        "games": asked,
        "finished": n,
        "winners": {side: winners.get(side, 0) for side in SIDES},
        "calls": sum(int(g["calls"]) for g in games),
        "calls_per_game": mean("calls"),
        "fallbacks": sum(int(g["fallbacks"]) for g in games),
        "billed_tokens_per_game": mean("billed_tokens"),
        "rounds_per_game": mean("rounds"),
        "wall_s_per_game": mean("wall_s"),
    }


def basic_summary(arena_dir: Path) -> JSON:
    """The summary of the arena in ``arena_dir``: totals, then by policy, by model and by pair."""
    arena, results = read_results(arena_dir)
    seeds, policies, labels = len(arena["seeds"]), arena["policies"], list(arena["models"])

    def where(**match: Any) -> list[JSON]:
        return [r for r in results if all(r[k] == v for k, v in match.items())]

    return {
        "arena": arena["id"],
        "players": arena["players"],
        "seeds": arena["seeds"],
        **_group(seeds * len(policies) * len(labels), results),
        "by_policy": {p: _group(seeds * len(labels), where(policy=p)) for p in policies},
        "by_model": {m: _group(seeds * len(policies), where(model=m)) for m in labels},
        "by_pair": [
            {"policy": p, "model": m, **_group(seeds, where(policy=p, model=m))}
            for p in policies
            for m in labels
        ],
    }
