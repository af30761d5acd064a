"""How a game used the model-driven context tools: recall calls inside turns, and the summariser's
calls with the summaries it wrote and the fallbacks the check made (with their reasons)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mafia.context.policy import POLICIES
from mafia.context.recall import RECALL_KIND
from mafia.context.summary import SUMMARY_ACTION
from mafia.game.events import ColdSummary, EventBase, SummaryFallback
from mafia.game.state import JSON


def fallback_reason(reason: str) -> str:
    """A fallback's reason as a kind to count: its first words ("dropped day 3 vote result ..."
    counts as "dropped day ... vote result")."""
    if reason.startswith("dropped "):
        words = reason.split()
        return "dropped " + " ".join(w for w in words[1:4] if not w.isdigit() and w != "day")
    return reason.split(":")[0].split("(")[0].strip()[:40]


def budget_of(policy: str) -> int | None:
    """The token budget of the registered policy called ``policy`` (None: none, or unknown)."""
    known = POLICIES.get(policy)
    return known.token_budget if known is not None else None


def context_tools(events: Sequence[EventBase], prompts: Sequence[JSON], budget: int | None = None) -> JSON:
    """Recall calls (answered and refused) and the turns that made them, the summariser's calls,
    summaries, fallbacks by reason and billed tokens, and under a token ``budget`` the players'
    calls within it (as billed: the messages, any re-ask and recall exchange, the schema and tools)."""
    turns = [r for r in prompts if r.get("action") != SUMMARY_ACTION]
    searches = [a for r in turns for a in r.get("attempts", []) if a.get("kind") == RECALL_KIND]
    summaries = [r for r in prompts if r.get("action") == SUMMARY_ACTION]
    reasons = Counter(fallback_reason(e.reason) for e in events if isinstance(e, SummaryFallback))
    return {
        "turns": len(turns),
        "recall_calls": len(searches),
        "recall_refused": sum(1 for a in searches if a.get("recall", {}).get("refused")),
        "turns_with_recall": sum(1 for r in turns if r.get("recalls")),
        "summary_calls": sum(len(r.get("attempts", [])) for r in summaries),
        "summaries": sum(1 for e in events if isinstance(e, ColdSummary)),
        "summary_fallbacks": dict(reasons),
        "summary_billed_tokens": sum(float(r.get("billed_tokens") or 0) for r in summaries),
        "budget_calls": budget_calls(turns, budget),
    }


def budget_calls(turns: Sequence[JSON], budget: int | None) -> dict[str, int]:
    """The players' calls within ``budget`` as billed (``prompt_tokens + schema_tokens``), and all
    of them (none counted without a budget)."""
    if budget is None:
        return {"within": 0, "calls": 0}
    attempts = [a for r in turns for a in r.get("attempts", [])]
    sizes = [int(a.get("prompt_tokens", 0)) + int(a.get("schema_tokens", 0)) for a in attempts]
    return {"within": sum(size <= budget for size in sizes), "calls": len(sizes)}
