"""A player's memory, derived from their view: engine facts, their beliefs, their own reasoning.

Facts are written by the engine (from the player's private events: kills, protections,
investigations, night-zero strategies); beliefs are what the model returned with its latest action
(its Thought); the last two reasonings are kept verbatim and older plans are condensed into one
deterministic strategy summary (spec 004, section 4). Nothing else is remembered, so the memory is
always consistent with the log.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from mafia.actions import ActionKind, Relationship, Suspicion
from mafia.context.record import GameRecord, read_view
from mafia.events import EventBase, Thought
from mafia.rules import SKIP, Role
from mafia.schemas import (
    InvestigationRecord,
    KillRecord,
    MemoryBeliefs,
    MemoryFacts,
    PastReasoning,
    PlayerMemory,
    ProtectionRecord,
    StrategyNote,
)

RECENT_REASONINGS = 2
SUMMARY_PLANS = 4
_PLAN_WORDS = 30
NIGHT_ACTIONS = frozenset(
    {
        ActionKind.NIGHT_ZERO,
        ActionKind.MAFIA_ROUND1,
        ActionKind.MAFIA_ROUND2,
        ActionKind.NIGHT_KILL,
        ActionKind.PROTECT,
        ActionKind.INVESTIGATE,
    }
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def build_memory(view: Sequence[EventBase], player: str) -> PlayerMemory:
    """The memory ``player`` carries, from their view (``views.player_view``) only."""
    return memory_from_record(read_view(view, player))


def memory_from_record(
    record: GameRecord,
    recent_reasonings: int = RECENT_REASONINGS,
    summary_plans: int = SUMMARY_PLANS,
) -> PlayerMemory:
    """The memory of an already sorted view (the builder's path: one pass for everything)."""
    thoughts = [t for _, t in record.thoughts]
    keep = max(recent_reasonings, 0)
    recent = thoughts[len(thoughts) - keep :] if keep else []
    older = thoughts[: len(thoughts) - len(recent)]
    return PlayerMemory(
        facts=facts(record),
        beliefs=beliefs(record, thoughts[-1] if thoughts else None),
        recent_reasoning=[
            PastReasoning(round=t.round, action=t.action, reasoning=t.reasoning) for t in recent
        ],
        strategy_summary=strategy_summary(older, summary_plans),
    )


def facts(record: GameRecord) -> MemoryFacts:
    """Engine-owned facts from the player's private events, by role."""
    role = record.role
    kills: list[KillRecord] = []
    for number in sorted(record.rounds):
        rnd = record.rounds[number]
        if role is Role.MAFIA and rnd.mafia_vote is not None:
            target = rnd.mafia_vote.final_target
            if target == SKIP:
                kills.append(KillRecord(round=number, target=target, outcome="skipped"))
            elif rnd.resolution is not None:
                outcome = "killed" if rnd.resolution.actual_kill == target else "survived"
                kills.append(KillRecord(round=number, target=target, outcome=outcome))
    protections = [
        ProtectionRecord(round=p.round, target=p.protected, reasoning=p.reasoning)
        for p in record.my_protections
    ]
    investigations = [
        InvestigationRecord(round=i.round, target=i.target, result=i.result, reasoning=i.reasoning)
        for i in record.my_investigations
    ]
    strategies = [StrategyNote(speaker=s.speaker, strategy=s.strategy) for s in record.strategies]
    return MemoryFacts(
        kill_history=kills,
        protection_history=protections,
        investigation_results=investigations,
        night_zero_strategies=strategies if role is Role.MAFIA else [],
        last_kill=kills[-1] if kills else None,
        last_protection=protections[-1] if protections else None,
        last_investigation=investigations[-1] if investigations else None,
    )


def beliefs(record: GameRecord, latest: Thought | None) -> MemoryBeliefs:
    """The beliefs the player returned last; suspicions only of players still alive."""
    if latest is None:
        return MemoryBeliefs()
    living = set(record.living) - {record.me}
    return MemoryBeliefs(
        suspicions=[
            Suspicion(player=s.player, level=s.level, reasoning=s.reasoning)
            for s in latest.suspicions
            if s.player in living
        ],
        relationships=[
            Relationship(players=list(r.players), kind=r.kind, note=r.note) for r in latest.relationships
        ],
        pattern_notes=list(latest.pattern_notes),
    )


@lru_cache(maxsize=4096)
def _first_sentence(text: str) -> str:
    sentence = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    words = sentence.split(" ")
    return sentence if len(words) <= _PLAN_WORDS else " ".join(words[:_PLAN_WORDS]) + " ..."


def _when(thought: Thought) -> str:
    phase = "Night" if thought.action in NIGHT_ACTIONS else "Day"
    return f"{phase} {thought.round} {thought.action}"


def strategy_summary(older: Sequence[Thought], plans: int = SUMMARY_PLANS) -> str:
    """Older plans condensed: the opening plan and the latest few distinct ones, one sentence each.

    Deterministic (no model call): each thought's strategy is cut to its first sentence,
    repeats of the previous plan are dropped, and only the first plan and the last ``plans - 1``
    are kept, with a count of those left out.
    """
    entries: list[tuple[str, str]] = []
    for thought in older:
        plan = _first_sentence(thought.strategy)
        if plan and (not entries or entries[-1][1].lower() != plan.lower()):
            entries.append((_when(thought), plan))
    if not entries:
        return ""
    if len(entries) <= plans:
        kept = entries
    else:
        tail = entries[len(entries) - (plans - 1) :] if plans > 1 else []
        kept = [entries[0], *tail]
    parts = [f"{when}: {plan}" for when, plan in kept]
    if len(kept) < len(entries):
        parts.insert(1, f"({len(entries) - len(kept)} intermediate plans condensed away)")
    return " | ".join(parts)


def clear_cache() -> None:
    """Forget cached plan sentences (for cold-build benchmarks)."""
    _first_sentence.cache_clear()
