"""What a run cost: calls by kind (answers, recall searches, summaries), re-asks and fallbacks
by kind, tokens sent, cached (as the provider reported them and as modelled here),
billed-equivalent input tokens, seconds, and money when the run has prices per million tokens
(``input``, ``cached_input``, ``output``).

Every figure is a sum over the run's prompt records (``prompts.jsonl``): one attempt is one call,
counted by kind as ``mafia.records.call_kinds`` reads them (a recall search is never a re-ask). The
provider's own figures cover the calls whose provider reported them, and say how many. Money takes
each call's provider-reported tokens where the provider reported them, else the local counts
(tokens sent, the modelled cache, the output as counted here).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mafia.records.call_kinds import CallKinds, kinds_of

PRICE_KEYS = ("input", "cached_input", "output")


@dataclass(frozen=True)
class Cost:
    """A run's cost figures (``reported_*`` None where no call had provider figures, which cover
    ``reported_calls`` calls; ``money`` None without prices; ``seconds`` None when the run recorded
    none). ``rejections`` are the re-asks by the kind of the rejection that caused each.
    ``reported_seconds`` is the time the provider says it spent on the calls (llama.cpp's prompt
    evaluation and generation)."""

    calls: int = 0
    recalls: int = 0
    summaries: int = 0
    reasks: int = 0
    rejections: dict[str, int] = field(default_factory=dict)
    fallbacks: dict[str, int] = field(default_factory=dict)
    summary_fallbacks: int = 0
    tokens_sent: int = 0
    output_tokens: int = 0
    cached_modelled: int = 0
    billed_equivalent: float = 0.0
    reported_prompt: int | None = None
    reported_cached: int | None = None
    reported_completion: int | None = None
    reported_seconds: float | None = None
    reported_calls: int = 0
    seconds: float | None = None
    money: float | None = None
    dialects: dict[str, int] = field(default_factory=dict)
    """The calls by the answer schema's dialect they were asked in (``stable``, ``grammar``: see
    ``mafia.models.schema_dialect``); a person's answers have none."""


def _calls_tokens(attempt: Mapping[str, Any]) -> tuple[int, int, int]:
    """One call's (uncached input, cached input, output) tokens for pricing."""
    usage = attempt.get("provider_usage") or {}
    if isinstance(usage.get("prompt_tokens"), int):
        cached = usage.get("cached_tokens") or 0
        return usage["prompt_tokens"] - cached, cached, int(usage.get("completion_tokens") or 0)
    sent = int(attempt.get("prompt_tokens", 0)) + int(attempt.get("schema_tokens", 0))
    cached = int(attempt.get("cached_tokens", 0))
    return sent - cached, cached, int(attempt.get("output_tokens", 0))


def _reported(attempts: list[Mapping[str, Any]], key: str) -> int | None:
    values = [(a.get("provider_usage") or {}).get(key) for a in attempts]
    found = [v for v in values if isinstance(v, int)]
    return sum(found) if found else None


def _reported_seconds(attempts: list[Mapping[str, Any]]) -> float | None:
    """The seconds the provider reported spending on the calls that report them, or None."""
    spent = [
        sum(usage.get(key) or 0.0 for key in ("prompt_ms", "predicted_ms"))
        for usage in ((a.get("provider_usage") or {}) for a in attempts)
        if usage.get("prompt_ms") is not None or usage.get("predicted_ms") is not None
    ]
    return sum(spent) / 1000 if spent else None


def _reporting(attempts: list[Mapping[str, Any]]) -> int:
    """The calls whose provider reported its own prompt tokens."""
    return sum(isinstance((a.get("provider_usage") or {}).get("prompt_tokens"), int) for a in attempts)


def cost_of(
    records: Iterable[Mapping[str, Any]],
    prices: Mapping[str, float] | None = None,
    seconds: float | None = None,
) -> Cost:
    """The cost of a run's prompt records (billed records, as ``prompts.jsonl`` holds them)."""
    records = list(records)
    attempts: list[Mapping[str, Any]] = [a for r in records for a in r.get("attempts", [])]
    money = None
    if prices:
        per_call = [_calls_tokens(a) for a in attempts]
        money = (
            sum(
                u * prices["input"] + c * prices["cached_input"] + o * prices["output"]
                for u, c, o in per_call
            )
            / 1_000_000
        )
    kinds: CallKinds = kinds_of(records)
    return Cost(
        calls=kinds.calls,
        recalls=kinds.recalls,
        summaries=kinds.summaries,
        reasks=kinds.reasks,
        rejections=kinds.reasked,
        fallbacks=kinds.fallbacks,
        summary_fallbacks=kinds.summary_fallbacks,
        tokens_sent=sum(int(a.get("prompt_tokens", 0)) + int(a.get("schema_tokens", 0)) for a in attempts),
        output_tokens=sum(int(a.get("output_tokens", 0)) for a in attempts),
        cached_modelled=sum(int(a.get("cached_tokens", 0)) for a in attempts),
        billed_equivalent=sum((float(a.get("billed_tokens", 0.0)) for a in attempts), 0.0),
        reported_prompt=_reported(attempts, "prompt_tokens"),
        reported_cached=_reported(attempts, "cached_tokens"),
        reported_completion=_reported(attempts, "completion_tokens"),
        reported_seconds=_reported_seconds(attempts),
        reported_calls=_reporting(attempts),
        seconds=seconds,
        money=money,
        dialects=dict(sorted(Counter(str(a["schema"]) for a in attempts if a.get("schema")).items())),
    )


def run_cost(folder: Path) -> Cost:
    """The cost of the run in ``folder``: its prompt records, and the prices and seconds its
    ``run.json`` holds (a last line a kill left unfinished is left out)."""
    records: list[dict[str, Any]] = []
    path = folder / "prompts.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").split("\n"):
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    try:
        run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        run = {}
    prices = run.get("prices") if isinstance(run, dict) else None
    seconds = run.get("seconds") if isinstance(run, dict) else None
    return cost_of(records, prices if isinstance(prices, dict) else None, seconds)


def _dialects(dialects: Mapping[str, int]) -> list[str]:
    """Which schema dialect the calls were asked in: "stable schema dialect", or each dialect's
    calls when a table's models spoke several ("schema dialects grammar 40, stable 38")."""
    if len(dialects) == 1:
        return [f"{next(iter(dialects))} schema dialect"]
    return [f"schema dialects {', '.join(f'{k} {n}' for k, n in dialects.items())}"] if dialects else []


def _kinds(counts: Mapping[str, int]) -> str:
    return " (" + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) + ")" if counts else ""


def _calls_by_kind(cost: Cost) -> str:
    """The calls that were no answer of a player's, e.g. " (recall 12, summary 3, 1 fell back)"."""
    kinds = []
    if cost.recalls:
        kinds.append(f"recall {cost.recalls}")
    if cost.summaries:
        fell = f", {cost.summary_fallbacks} fell back" if cost.summary_fallbacks else ""
        kinds.append(f"summary {cost.summaries}{fell}")
    return f" ({', '.join(kinds)})" if kinds else ""


def cost_line(cost: Cost) -> str:
    """The cost in one line, as ``play``, ``runs`` and ``replay`` print it."""
    parts = [
        f"{cost.calls} calls{_calls_by_kind(cost)}",
        *_dialects(cost.dialects),
        f"{cost.reasks} re-asks{_kinds(cost.rejections)}",
        f"{sum(cost.fallbacks.values())} fallbacks{_kinds(cost.fallbacks)}",
        f"{cost.tokens_sent:,} tokens sent",
        f"{cost.cached_modelled:,} cached (modelled)",
    ]
    if cost.reported_prompt is not None:
        parts.append(
            f"provider ({cost.reported_calls} of {cost.calls} calls): {cost.reported_prompt:,} prompt, "
            f"{cost.reported_cached or 0:,} cached, {cost.reported_completion or 0:,} completion"
        )
    parts.append(f"{cost.billed_equivalent:,.0f} billed-equivalent")
    parts.append(f"{cost.output_tokens:,} output")
    if cost.seconds is not None:
        parts.append(f"{cost.seconds:.1f} s")
    if cost.money is not None:
        parts.append(f"${cost.money:.4f}")
    return "Cost: " + ", ".join(parts)
