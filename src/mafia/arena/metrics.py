"""An arena's metrics per context policy and model, and the judge's verdict on each policy.

``game_metrics`` reads one finished game (its events, prompt records, run and result files) into
figures that add up across games; ``group_metrics`` adds a policy and model's games up;
``summarize`` does both for a whole arena folder and returns what ``summary.json`` holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mafia.arena.calls import (
    TOKEN_FIELDS,
    call_rows,
    calls,
    critical_path_calls,
    game_tokens,
    rejections,
    stable_prefix,
)
from mafia.arena.context_tools import budget_of, context_tools
from mafia.arena.judged import judged_figures
from mafia.arena.logs import GameLog, load_arena, load_game
from mafia.arena.outcomes import consensus, consensus_rates, game_over, play_digest, revotes, win_rates
from mafia.arena.reads import deduction, fact_presence, grounding_slips
from mafia.arena.seat_play import role_tallies
from mafia.arena.stats import quantile, rate, spread
from mafia.game.state import JSON

BASELINE = "full-history"
MARGIN = 0.02  # the judge's tolerance on fact presence: 2 percentage points


def game_metrics(game: GameLog) -> JSON:
    """One finished game's figures, each a count, a sum or a list that adds up across games."""
    events, prompts = game.events, game.prompts
    over = game_over(events)
    cached, sent = stable_prefix(prompts)
    return {
        "policy": game.policy,
        "model": game.model,
        "seed": game.seed,
        "winner": over.winner if over is not None else game.result.get("winner"),
        "rounds": over.round if over is not None else game.result.get("rounds"),
        "calls": calls(prompts),
        "critical_calls": critical_path_calls(prompts),
        "tokens": game_tokens(prompts),
        "call_rows": call_rows(prompts),
        "stable_prefix": [cached, sent],
        "rejections": rejections(prompts),
        "revotes": revotes(events),
        "consensus": consensus(events),
        "facts": fact_presence(events, prompts),
        "slips": grounding_slips(events, prompts),
        "deduction": deduction(events),
        "context_tools": context_tools(events, prompts, budget_of(game.policy)),
        "play": play_digest(events),
        "judged": role_tallies(events, prompts),
    }


def add_up(counts: Iterable[Mapping[str, Any]]) -> JSON:
    """Counts summed key by key, nested mappings too; lists are joined."""
    total: JSON = {}
    for one in counts:
        for key, value in one.items():
            if isinstance(value, Mapping):
                total[key] = add_up([total.get(key, {}), value])
            elif isinstance(value, list):
                total[key] = [*total.get(key, []), *value]
            else:
                total[key] = total.get(key, 0) + value
    return total


def tokens_by_round(rows: Sequence[JSON]) -> JSON:
    """Median and 95th percentile of each token field per call, round by round."""
    rounds = sorted({int(r["round"]) for r in rows})
    out: JSON = {}
    for number in rounds:
        here = [r for r in rows if r["round"] == number]
        out[str(number)] = {"calls": len(here)} | {
            name: {
                "median": quantile([r[name] for r in here], 0.5),
                "p95": quantile([r[name] for r in here], 0.95),
            }
            for name in TOKEN_FIELDS
        }
    return out


def presence_share(by_age: Mapping[str, Sequence[int]]) -> JSON:
    """Facts present, due and the share present, overall and by age."""
    present = sum(p for p, _ in by_age.values())
    due = sum(d for _, d in by_age.values())
    return {
        "present": present,
        "due": due,
        "share": rate(present, due),
        "by_age": {age: {"present": p, "due": d, "share": rate(p, d)} for age, (p, d) in by_age.items()},
    }


def _facts(games: Sequence[JSON]) -> JSON:
    by_age: dict[str, list[int]] = {}
    for g in games:
        for age, (present, due) in g["facts"]["by_age"].items():
            tally = by_age.setdefault(age, [0, 0])
            tally[0] += present
            tally[1] += due
    ordered = dict(sorted(by_age.items(), key=lambda kv: int(kv[0])))
    return presence_share(ordered) | {"unplaced": sum(g["facts"]["unplaced"] for g in games)}


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _deduction(games: Sequence[JSON]) -> JSON:
    rounds = add_up(g["deduction"] for g in games)
    by_round = {
        number: {
            "observations": len(row["rank"]),
            "pairs": row["pairs"],
            "coverage": rate(row["pairs"], row["due"]),
            "brier": row["brier_sum"] / row["pairs"] if row["pairs"] else None,
            "rank": _mean(row["rank"]),
            "chance": _mean(row["chance"]),
        }
        for number, row in sorted(rounds.items(), key=lambda kv: int(kv[0]))
    }
    total = add_up(rounds.values())
    return {
        "brier": total["brier_sum"] / total["pairs"] if total.get("pairs") else None,
        "coverage": rate(total.get("pairs", 0), total.get("due", 0)),
        "rank": _mean(total.get("rank", [])),
        "chance": _mean(total.get("chance", [])),
        "by_round": by_round,
    }


def group_metrics(games: Sequence[JSON]) -> JSON:
    """The figures of one policy and model, from its games' ``game_metrics``."""
    rows = [r for g in games for r in g["call_rows"]]
    cached, sent = (sum(g["stable_prefix"][i] for g in games) for i in (0, 1))
    rejected = add_up(g["rejections"] for g in games)
    votes = add_up(g["revotes"] for g in games)
    kills = {"nights": 0, "decided_by": {}, "skips": 0} | add_up(g["consensus"] for g in games)
    slips = add_up(g["slips"] for g in games)
    choice_slips = sum(slips.get("choice_slips", {}).values())
    suspicion_slips = sum(slips.get("suspicion_slips", {}).values())
    return {
        "games": len(games),
        "seeds": [g["seed"] for g in games],
        "wins": win_rates([str(g["winner"]) for g in games]),
        "rounds": spread([g["rounds"] for g in games if g["rounds"] is not None]),
        "calls_per_game": spread([g["calls"] for g in games]),
        "critical_path_calls": spread([g["critical_calls"] for g in games]),
        "tokens_per_call": {name: spread([r[name] for r in rows]) for name in TOKEN_FIELDS},
        "tokens_per_call_by_round": tokens_by_round(rows),
        "tokens_per_game": {name: spread([g["tokens"][name] for g in games]) for name in TOKEN_FIELDS},
        "billed_tokens": sum(g["tokens"]["billed_tokens"] for g in games),
        "stable_prefix_share": rate(cached, sent),
        "retries": dict(rejected.get("retries", {})),
        "fallbacks": dict(rejected.get("fallbacks", {})),
        "revotes": {
            "votes": votes.get("votes", 0),
            "revotes": votes.get("revotes", 0),
            "frequency": rate(votes.get("revotes", 0), votes.get("votes", 0)),
            "outcomes": dict(votes.get("outcomes", {})),
        },
        "consensus": kills | consensus_rates(kills),
        "fact_presence": _facts(games),
        "grounding_slips": slips
        | {
            "choice_slip_rate": rate(choice_slips, slips.get("choices", 0)),
            "suspicion_slip_rate": rate(suspicion_slips, slips.get("suspicions", 0)),
        },
        "deduction": _deduction(games),
        "context_tools": add_up(g.get("context_tools", {}) for g in games),
        "judged": judged_figures([g["judged"] for g in games]),
    }


def judge(games: Sequence[JSON], baseline: str = BASELINE, margin: float = MARGIN) -> JSON:
    """The judge's verdict on every policy beside ``baseline``, model by model, on the seeds both
    played: it passes when its fact presence is at most ``margin`` below the baseline's and it
    bills fewer tokens. With no seed paired with the baseline (an arena without it) or no fact due,
    ``passed`` is None: the verdict is not applicable."""
    verdicts: list[JSON] = []
    models = sorted({g["model"] for g in games})
    policies = sorted({g["policy"] for g in games} - {baseline})
    for model in models:
        base = {g["seed"]: g for g in games if g["model"] == model and g["policy"] == baseline}
        for policy in policies:
            mine = {g["seed"]: g for g in games if g["model"] == model and g["policy"] == policy}
            if not mine:
                continue
            paired = sorted(set(base) & set(mine))
            ours, theirs = _facts([mine[s] for s in paired]), _facts([base[s] for s in paired])
            billed = sum(mine[s]["tokens"]["billed_tokens"] for s in paired)
            base_billed = sum(base[s]["tokens"]["billed_tokens"] for s in paired)
            verdict: JSON = {
                "policy": policy,
                "model": model,
                "paired_seeds": len(paired),
                "same_play_seeds": sum(mine[s]["play"] == base[s]["play"] for s in paired),
                "same_winner_seeds": sum(mine[s]["winner"] == base[s]["winner"] for s in paired),
                "fact_presence": ours["share"],
                "baseline_fact_presence": theirs["share"],
                "billed_tokens": billed,
                "baseline_billed_tokens": base_billed,
            }
            passed: bool | None
            if not paired:  # nothing to compare: not applicable, which is no failure
                reason, passed = f"no seed played by both it and {baseline}", None
            elif ours["share"] is None or theirs["share"] is None:
                reason, passed = "no fact was due in the paired games", None
            else:
                close = ours["share"] >= theirs["share"] - margin - 1e-12
                cheaper = billed < base_billed
                passed = close and cheaper
                reason = "; ".join(
                    [
                        ("fact presence within" if close else "fact presence more than")
                        + f" {margin * 100:g} points of {baseline}",
                        "bills fewer tokens" if cheaper else "bills no fewer tokens",
                    ]
                )
            verdicts.append(verdict | {"passed": passed, "reason": reason})
    return {"baseline": baseline, "margin_points": margin * 100, "verdicts": verdicts}


def game_row(g: JSON) -> JSON:
    """A game's line in the summary: where it sits, how it ended, what it cost, what it kept."""
    share = presence_share(g["facts"]["by_age"])["share"]
    return {
        key: g[key] for key in ("policy", "model", "seed", "winner", "rounds", "calls", "critical_calls")
    } | {"billed_tokens": g["tokens"]["billed_tokens"], "fact_presence": share}


def summarize(arena_dir: str | Path) -> JSON:
    """The arena's summary, JSON-ready: its request, its games, the figures of every policy and
    model (``groups[policy][model]``), and the judge's verdicts."""
    arena = load_arena(Path(arena_dir))
    games = [game_metrics(load_game(ref)) for ref in arena.finished]
    groups: dict[str, JSON] = {}
    for policy, model in sorted({(g["policy"], g["model"]) for g in games}):
        mine = [g for g in games if g["policy"] == policy and g["model"] == model]
        groups.setdefault(policy, {})[model] = group_metrics(mine)
    return {
        "arena": arena.request,
        "finished": len(games),
        "unfinished": [str(p.relative_to(arena.folder)) for p in arena.unfinished],
        "groups": groups,
        "judge": judge(games),
        "games": [game_row(g) for g in games],
    }
