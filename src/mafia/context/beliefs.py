"""Pruned beliefs (spec 004, section 3): belief entries kept by the turn they last changed.

Every belief entry the player ever wrote (a suspicion of one player, a relationship, a pattern
note) carries the player's own turn at which it last changed: a suspicion when its level or reason
changed, a relationship or note when it was first written. Measured against the turn being
decided, hot entries (changed in the last ``HOT_TURNS`` turns) stay in full, warm ones are
condensed to their first words, and cold ones (untouched for more than ``COLD_TURNS`` turns) leave
the prompt: ``archived_beliefs`` hands them to the recall index instead. Suspicions of dead players
are never shown (as in the default memory) but stay searchable.
"""

from __future__ import annotations

from dataclasses import dataclass

from mafia.context.record import GameRecord
from mafia.context.safety import quote_text
from mafia.context.schemas import MemoryBeliefs
from mafia.game.actions import Suspicion

HOT_TURNS = 2
COLD_TURNS = 10
_WARM_WORDS = 8


@dataclass(frozen=True)
class BeliefEntry:
    """One belief as last written: its kind, its key (a player or the text), the turn it last
    changed, the round of that turn, and its value."""

    kind: str  # "suspicion", "relationship" or "pattern note"
    key: str
    turn: int
    round: int
    level: int
    text: str

    @property
    def line(self) -> str:
        """The entry as a recall hit."""
        what = f"suspicion of {self.key}, level {self.level}" if self.kind == "suspicion" else self.kind
        return f'Round {self.round}, your archived {what}: "{quote_text(self.text)}"'


def belief_entries(record: GameRecord) -> list[BeliefEntry]:
    """Every belief entry of the player's thoughts with the turn (1 = first) it last changed."""
    latest: dict[tuple[str, str], BeliefEntry] = {}
    for turn, (_, thought) in enumerate(record.thoughts, start=1):
        for s in thought.suspicions:
            old = latest.get(("suspicion", s.player))
            if old is None or (old.level, old.text) != (s.level, s.reasoning):
                latest[("suspicion", s.player)] = BeliefEntry(
                    "suspicion", s.player, turn, thought.round, s.level, s.reasoning
                )
        for kind, texts in (("relationship", thought.relationships), ("pattern note", thought.pattern_notes)):
            for text in texts:
                key = " ".join(text.lower().split())
                if (kind, key) not in latest:
                    latest[(kind, key)] = BeliefEntry(kind, key, turn, thought.round, 0, text)
    return sorted(latest.values(), key=lambda e: (e.turn, e.kind, e.key))


def _age(record: GameRecord, entry: BeliefEntry) -> int:
    """Turns since the entry last changed, counted from the turn being decided now."""
    return len(record.thoughts) + 1 - entry.turn


def _condensed(text: str) -> str:
    words = text.split()
    return text if len(words) <= _WARM_WORDS else " ".join(words[:_WARM_WORDS]) + " ..."


def pruned_beliefs(record: GameRecord) -> tuple[MemoryBeliefs, int]:
    """The beliefs the prompt shows (hot in full, warm condensed; suspicions only of living
    players, in seat order) and how many cold entries were archived."""
    seat = {name: i for i, name in enumerate(record.living) if name != record.me}
    suspicions: list[Suspicion] = []
    relationships: list[str] = []
    notes: list[str] = []
    archived = 0
    for entry in belief_entries(record):
        age = _age(record, entry)
        if age > COLD_TURNS:
            archived += 1
            continue
        text = entry.text if age <= HOT_TURNS else _condensed(entry.text)
        if entry.kind == "suspicion":
            if entry.key in seat:
                suspicions.append(Suspicion(player=entry.key, level=entry.level, reasoning=text))
        elif entry.kind == "relationship":
            relationships.append(text)
        else:
            notes.append(text)
    suspicions.sort(key=lambda s: seat[s.player])
    return MemoryBeliefs(suspicions=suspicions, relationships=relationships, pattern_notes=notes), archived


def archived_beliefs(record: GameRecord) -> list[BeliefEntry]:
    """The cold entries: out of the prompt, in the recall index."""
    return [e for e in belief_entries(record) if _age(record, e) > COLD_TURNS]


BUDGET_STEPS = ("beliefs condensed", "relationships and notes archived", "suspicion reasons archived")
"""What a token budget takes from pruned beliefs, one step at a time (after the reasonings)."""


def squeezed(beliefs: MemoryBeliefs, archived: int, steps: int) -> tuple[MemoryBeliefs, int]:
    """The beliefs after ``steps`` of ``BUDGET_STEPS``: all condensed, then relationships and
    notes out of the prompt (counted as archived: recall still finds them), then suspicions as
    levels only."""
    if steps <= 0:
        return beliefs, archived
    suspicions = [s.model_copy(update={"reasoning": _condensed(s.reasoning)}) for s in beliefs.suspicions]
    relationships = [_condensed(r) for r in beliefs.relationships]
    notes = [_condensed(n) for n in beliefs.pattern_notes]
    if steps >= 2:
        archived += len(relationships) + len(notes)
        relationships, notes = [], []
    if steps >= 3:
        suspicions = [s.model_copy(update={"reasoning": ""}) for s in suspicions]
    return MemoryBeliefs(suspicions=suspicions, relationships=relationships, pattern_notes=notes), archived
