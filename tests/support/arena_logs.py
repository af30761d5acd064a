"""Arena folders for tests: hand-built prompt records, and games written in the arena's layout
(``games/<policy>/<model>/seed-<seed>/`` with events.jsonl, prompts.jsonl, run.json, result.json),
either from hand-built logs or played with the house model."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mafia.context import ContextPolicy
from mafia.game.events import EventBase, GameOver, to_jsonl
from mafia.models.house import HouseModel
from mafia.play.runner import run_game

JSON = dict[str, Any]
POLICIES = {"full-history": ContextPolicy(full_transcript=True), "seed-window": ContextPolicy()}


def attempt(
    raw: str = "{}",
    kind: str | None = None,
    *,
    prompt: int = 100,
    schema: int = 50,
    output: int = 10,
    cached: int = 0,
    billed: float | None = None,
) -> JSON:
    """One call of a turn as a prompt record keeps it (billed as the uncached input plus a quarter
    of the cached, unless given)."""
    cost = prompt + schema - cached + 0.25 * cached if billed is None else billed
    return {
        "raw": raw,
        "error": None if kind is None else f"rejected: {kind}",
        "kind": kind,
        "prompt_tokens": prompt,
        "schema_tokens": schema,
        "output_tokens": output,
        "cached_tokens": cached,
        "billed_tokens": cost,
    }


def record(
    round: int,
    player: str,
    action: str,
    attempts: Sequence[JSON] = (),
    *,
    fallback_kind: str | None = None,
    system: str = "",
    user: str = "",
) -> JSON:
    """One turn's prompt record (one accepted call unless ``attempts`` are given)."""
    calls = list(attempts) or [attempt()]
    return {
        "id": f"{round}:{action}:{player}",
        "round": round,
        "player": player,
        "action": action,
        "system": system,
        "user": user,
        "attempts": calls,
        "fallback": fallback_kind is not None,
        "fallback_kind": fallback_kind,
        "billed_tokens": sum(a["billed_tokens"] for a in calls),
    }


def write_game(
    root: Path,
    policy: str,
    model: str,
    seed: int,
    events: Sequence[EventBase],
    prompts: Sequence[JSON],
    *,
    finished: bool = True,
) -> Path:
    """A game's run folder in the arena layout; ``result.json`` only when ``finished``."""
    folder = root / "games" / policy / model / f"seed-{seed}"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text(to_jsonl(events), encoding="utf-8")
    lines = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in prompts)
    (folder / "prompts.jsonl").write_text(lines, encoding="utf-8")
    (folder / "run.json").write_text(json.dumps({"run_id": f"seed-{seed}"}), encoding="utf-8")
    if finished:
        over = next((e for e in events if isinstance(e, GameOver)), None)
        result = {"winner": over.winner if over else None, "rounds": over.round if over else None}
        (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
    return folder


def play_arena(
    root: Path,
    seeds: Sequence[int],
    players: int = 6,
    policies: Mapping[str, ContextPolicy] = POLICIES,
    model: str = "house",
) -> Path:
    """Play every seed under every policy with the house model into ``root`` (an arena folder)."""
    for name, policy in policies.items():
        for seed in seeds:
            out = root / "games" / name / model
            state = run_game(
                {"seed": seed, "players": players},
                model=HouseModel(seed=seed),
                policy=policy,
                out_dir=out,
                thread_id=f"seed-{seed}",
            )
            result = {"winner": state["winner"], "rounds": state.get("round")}
            (out / f"seed-{seed}" / "result.json").write_text(json.dumps(result), encoding="utf-8")
    request = {"players": players, "seeds": list(seeds), "policies": list(policies), "models": [model]}
    (root / "arena.json").write_text(json.dumps(request), encoding="utf-8")
    return root
