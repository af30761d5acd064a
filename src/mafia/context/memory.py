"""A player's memory, derived from their view: engine facts, their beliefs, their own reasoning.

Facts are written by the engine (from the player's private events: kills, protections,
investigations, night-zero strategies); beliefs are what the model returned with its latest action
(its Thought); the last two reasonings are kept verbatim and the plans are condensed into one
deterministic strategy summary (spec 004, section 4). Nothing else is remembered, so the memory is
always consistent with the log.

As prompt text (``memory_text``) every fact appears once: the Mafia's kills and the Detective's
results have their own sections, so the memory shows only the Doctor's protections (one short
entry a night) and the Mafia's night-zero plans; suspicions are one line of levels with the
reasons of the strongest few. It grows with the game by one entry per own night result at most.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from mafia.context.beliefs import pruned_beliefs
from mafia.context.policy import RECENT_REASONINGS, SUMMARY_PLANS
from mafia.context.record import GameRecord, read_view
from mafia.context.safety import quote_text
from mafia.context.schemas import (
    InvestigationRecord,
    KillRecord,
    MemoryBeliefs,
    MemoryFacts,
    PastReasoning,
    PlayerMemory,
    ProtectionRecord,
    StrategyNote,
)
from mafia.game.actions import ActionKind, Suspicion
from mafia.game.events import EventBase, Thought
from mafia.game.rules import ROLES, SKIP, on_mafia
from mafia.prompts import anchors

TOP_REASONS = 2
_PLAN_WORDS = 12
_TEAM_PLAN_WORDS = 20
FULL_PLANS_ROUND = 1
EMPTY = "Nothing yet: this is your first turn."
ARCHIVED_NOTE = "Older beliefs archived, found by recall"
NIGHT_ACTIONS = frozenset(
    {
        ActionKind.NIGHT_ZERO,
        ActionKind.MAFIA_ROUND1,
        ActionKind.MAFIA_ROUND2,
        ActionKind.NIGHT_KILL,
        *(spec.night_action for spec in ROLES.values() if spec.night_action is not None),
    }
)
"""The actions taken at night: the Mafia's, and each role's own (``ROLES``)."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def build_memory(view: Sequence[EventBase], player: str) -> PlayerMemory:
    """The memory ``player`` carries, from their view (``views.player_view``) only."""
    return memory_from_record(read_view(view, player))


def memory_from_record(
    record: GameRecord,
    recent_reasonings: int = RECENT_REASONINGS,
    summary_plans: int = SUMMARY_PLANS,
    prune_beliefs: bool = False,
) -> PlayerMemory:
    """The memory of an already sorted view (the builder's path: one pass for everything).
    ``prune_beliefs`` keeps every belief entry by the turn it last changed (``context.beliefs``)
    instead of the latest answer's beliefs alone."""
    thoughts = [t for _, t in record.thoughts]
    keep = max(recent_reasonings, 0)
    recent = thoughts[len(thoughts) - keep :] if keep else []
    archived = 0
    if prune_beliefs:
        held, archived = pruned_beliefs(record)
    else:
        held = beliefs(record, thoughts[-1] if thoughts else None)
    # Every plan, the latest included: the recent turns keep only their reasoning verbatim, so
    # without it the current plan would be shown nowhere.
    return PlayerMemory(
        facts=facts(record),
        beliefs=held,
        archived_beliefs=archived,
        recent_reasoning=[
            PastReasoning(round=t.round, action=t.action, reasoning=t.reasoning) for t in recent
        ],
        strategy_summary=strategy_summary(thoughts, summary_plans),
    )


def facts(record: GameRecord) -> MemoryFacts:
    """Engine-owned facts from the player's private events, by role."""
    role = record.role
    kills: list[KillRecord] = []
    for number in sorted(record.rounds):
        rnd = record.rounds[number]
        if on_mafia(role) and rnd.mafia_vote is not None:
            target = rnd.mafia_vote.final_target
            if target == SKIP:
                kills.append(KillRecord(round=number, target=target, outcome="skipped"))
            elif rnd.resolution is not None:
                outcome = "killed" if target in rnd.resolution.deaths else "survived"
                kills.append(KillRecord(round=number, target=target, outcome=outcome))
    protections = [
        ProtectionRecord(round=p.round, target=p.protected, reasoning=p.reasoning)
        for p in record.my_protections
    ]
    investigations = [
        InvestigationRecord(round=i.round, target=i.target, result=i.result, reasoning=i.reasoning)
        for i in record.my_investigations
    ]
    # During night zero the plans are tonight's business, shown in Mafia info; in round 1 they are
    # memory in full, and from Day 2 on their first sentences (the team has acted on them by then).
    strategies: list[StrategyNote] = []
    if on_mafia(role) and record.current_round >= 1:
        full = record.current_round <= FULL_PLANS_ROUND
        strategies = [
            StrategyNote(
                speaker=s.speaker,
                strategy=s.strategy if full else _first_sentence(s.strategy, _TEAM_PLAN_WORDS),
            )
            for s in record.strategies
        ]
    return MemoryFacts(
        kill_history=kills,
        protection_history=protections,
        investigation_results=investigations,
        night_zero_strategies=strategies,
        last_kill=kills[-1] if kills else None,
        last_protection=protections[-1] if protections else None,
        last_investigation=investigations[-1] if investigations else None,
    )


def beliefs(record: GameRecord, latest: Thought | None) -> MemoryBeliefs:
    """The beliefs the player returned last; suspicions only of players still alive."""
    if latest is None:
        return MemoryBeliefs()
    seat = {name: i for i, name in enumerate(record.living) if name != record.me}
    latest_of = {s.player: s for s in latest.suspicions if s.player in seat}
    return MemoryBeliefs(
        suspicions=[
            Suspicion(player=s.player, level=s.level, reasoning=s.reasoning)
            for s in sorted(latest_of.values(), key=lambda s: seat[s.player])
        ],
        relationships=list(latest.relationships),
        pattern_notes=list(latest.pattern_notes),
    )


@lru_cache(maxsize=4096)
def _first_sentence(text: str, words_kept: int = _PLAN_WORDS) -> str:
    """The first sentence of ``text``, cut to ``words_kept`` words (an ellipsis marks a cut)."""
    sentence = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    words = sentence.split(" ")
    return sentence if len(words) <= words_kept else " ".join(words[:words_kept]) + " ..."


def _when(thought: Thought | PastReasoning) -> str:
    phase = "Night" if thought.action in NIGHT_ACTIONS else "Day"
    return f"{phase} {thought.round} {thought.action}"


def strategy_summary(thoughts: Sequence[Thought], plans: int = SUMMARY_PLANS) -> str:
    """Plans condensed: the opening plan and the latest few distinct ones, one sentence each.

    Deterministic (no model call): each thought's strategy is cut to its first sentence and made
    safe to quote, repeats of the previous plan are dropped, and only the first plan and the last
    ``plans - 1`` are kept, with a count of those left out.
    """
    entries: list[tuple[str, str]] = []
    for thought in thoughts:
        plan = quote_text(_first_sentence(thought.strategy))
        if plan and (not entries or entries[-1][1].lower() != plan.lower()):
            entries.append((_when(thought), plan))
    if not entries:
        return ""
    if len(entries) <= plans:
        kept = entries
    else:
        tail = entries[len(entries) - (plans - 1) :] if plans > 1 else []
        kept = [entries[0], *tail]
    parts = [f'{when}: "{plan}"' for when, plan in kept]
    if len(kept) < len(entries):
        parts.insert(1, f"({len(entries) - len(kept)} plans between)")
    return " | ".join(parts)


def memory_text(memory: PlayerMemory, scores: bool = False, grouped: bool = False) -> str:
    """The memory as prompt text: own facts not shown elsewhere, beliefs, plans, last reasonings.

    Every word the model wrote is quoted like player text, so nothing in it can pass for an engine
    line. Suspicions are one line of levels in seat order, with the reasons of the ``TOP_REASONS``
    highest only (ties by seat). With ``scores`` (the ``lean`` policy's memory) the beliefs are
    the levels alone, with the latest reasoning and no plans, relationships or notes.
    """
    facts, beliefs = memory.facts, memory.beliefs
    lines: list[str] = []
    if facts.protection_history:
        entries = [(p.round, p.target) for p in facts.protection_history]
        lines.append(anchors.format_protections(entries, grouped))
    if facts.night_zero_strategies:
        lines.append("Your team's night-zero plans:")
        lines.extend(
            anchors.format_strategy(n.speaker, quote_text(n.strategy)) for n in facts.night_zero_strategies
        )
    if scores:
        return "\n".join([*lines, *_scores(memory)]) or EMPTY
    if beliefs.suspicions:
        lines.append(anchors.format_suspicions([(s.player, s.level) for s in beliefs.suspicions]))
        top = sorted(beliefs.suspicions, key=lambda s: -s.level)[:TOP_REASONS]
        reasons = [f'{s.player}: "{quote_text(s.reasoning)}"' for s in top if quote_text(s.reasoning)]
        if reasons:
            lines.append("Why, for the highest: " + "; ".join(reasons))
    if beliefs.relationships:
        lines.append(
            "Relationships you see: " + "; ".join(f'"{quote_text(r)}"' for r in beliefs.relationships)
        )
    if beliefs.pattern_notes:
        lines.append("Your pattern notes: " + "; ".join(f'"{quote_text(n)}"' for n in beliefs.pattern_notes))
    if memory.archived_beliefs:
        lines.append(f"{ARCHIVED_NOTE}: {memory.archived_beliefs} (untouched for over 10 turns).")
    if memory.strategy_summary:
        lines.append("Your plans, condensed: " + memory.strategy_summary)
    if memory.recent_reasoning:
        lines.append("Your last reasonings:")
        lines.extend(f'- {_when(r)}: "{quote_text(r.reasoning)}"' for r in memory.recent_reasoning)
    return "\n".join(lines) if lines else EMPTY


def _scores(memory: PlayerMemory) -> list[str]:
    """The suspicion levels and the latest reasoning, one line each (the ``lean`` memory)."""
    lines: list[str] = []
    if memory.beliefs.suspicions:
        lines.append(anchors.format_suspicions([(s.player, s.level) for s in memory.beliefs.suspicions]))
    if memory.recent_reasoning:
        last = memory.recent_reasoning[-1]
        lines.append(f'Your latest reasoning ({_when(last)}): "{quote_text(last.reasoning)}"')
    return lines


def clear_cache() -> None:
    """Forget cached plan sentences (for cold-build benchmarks)."""
    _first_sentence.cache_clear()
