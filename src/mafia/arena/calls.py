"""Call metrics of one game, read from its prompt records (prompts.jsonl): calls, the critical
path, tokens per call and per game, the stable-prefix share, and re-asks and fallbacks by kind.

Every attempt of a turn is one model call; its token fields are the attempt's (``prompt_tokens``,
``schema_tokens``, ``output_tokens``, ``cached_tokens``, ``billed_tokens``: see mafia.models.billing).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mafia.game.rules import ROLES
from mafia.game.state import JSON
from mafia.records.call_kinds import call_count, kinds_of

TOKEN_FIELDS = ("prompt_tokens", "schema_tokens", "output_tokens", "billed_tokens")

# Turns the game asks at once (one graph step): every voter of a vote or revote, every Mafia in
# Round 2, and at nightfall the first Mafia's turn (Round 1 or a lone Mafia's kill) beside the
# Doctor and the Detective. Every other turn is a step of its own.
TOGETHER = {"vote": "vote", "revote": "revote", "mafia_round2": "mafia_round2"}
NIGHTFALL = {
    "mafia_round1": "mafia",
    "night_kill": "mafia",
    **{spec.night_action.value: role.value.lower() for role, spec in ROLES.items() if spec.night_action},
}


def calls(prompts: Iterable[JSON]) -> int:
    """Model calls of a game: every attempt of every turn (``call_count``)."""
    return call_count(prompts)


def steps(prompts: Sequence[JSON]) -> list[list[JSON]]:
    """The records grouped by the step that asked them: runs of consecutive records of one round
    that the game asks at once (see ``TOGETHER`` and ``NIGHTFALL``)."""
    groups: list[list[JSON]] = []
    key: tuple[int, str] | None = None
    taken: set[str] = set()
    for record in prompts:
        action = str(record.get("action"))
        kind = TOGETHER.get(action) or ("nightfall" if action in NIGHTFALL else None)
        here = (int(record.get("round", 0)), kind) if kind is not None else None
        slot = NIGHTFALL.get(action, "")
        if here is None or here != key or (kind == "nightfall" and slot in taken):
            groups.append([])
            taken = set()
        groups[-1].append(record)
        taken.add(slot)
        key = here
    return groups


def critical_path_calls(prompts: Sequence[JSON]) -> int:
    """Calls on the critical path: per step, the most calls any one of its turns made (turns of a
    step run side by side; a turn's re-asks follow one another)."""
    return sum(max(call_count([r]) for r in group) for group in steps(prompts))


def call_rows(prompts: Iterable[JSON]) -> list[JSON]:
    """One row per call: its round, action and token fields."""
    rows: list[JSON] = []
    for record in prompts:
        for attempt in record.get("attempts", []):
            row: JSON = {"round": int(record.get("round", 0)), "action": record.get("action")}
            row.update({name: float(attempt.get(name, 0)) for name in (*TOKEN_FIELDS, "cached_tokens")})
            rows.append(row)
    return rows


def game_tokens(prompts: Iterable[JSON]) -> JSON:
    """A game's token totals over all its calls (the cached ones too)."""
    rows = call_rows(prompts)
    return {name: sum(r[name] for r in rows) for name in (*TOKEN_FIELDS, "cached_tokens")}


def stable_prefix(prompts: Iterable[JSON]) -> tuple[float, float]:
    """(cached tokens, input tokens) over a game's calls: the share of what was sent that a prefix
    cache served, because an earlier call of the game began the same way."""
    rows = call_rows(prompts)
    return sum(r["cached_tokens"] for r in rows), sum(r["prompt_tokens"] + r["schema_tokens"] for r in rows)


def rejections(prompts: Iterable[JSON]) -> JSON:
    """Re-asked answers by the kind of their rejection, fallbacks by the kind of the last one (the
    summary's fallbacks are counted with the context tools)."""
    kinds = kinds_of(prompts)
    return {"retries": kinds.reasked, "fallbacks": kinds.fallbacks}
