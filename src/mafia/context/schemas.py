"""Structured shapes a player's context is made of: memory, transcripts, the validated response.

Strict-mode safe like the action schemas (lists of small models, no dict fields), so any of them can
be shown to or requested from a model as JSON.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from mafia.game.actions import ActionBase, ActionKind, Suspicion


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- transcript ----------------------------------------------------------------------------


class SpeechLine(_Shape):
    """A speech as it appears in a transcript, with the role its speaker claimed in it (if stated)."""

    speaker: str
    text: str
    nomination: str | None = None
    claim: str | None = None


class BallotLine(_Shape):
    """One vote: the voter and their choice (a name or 'skip')."""

    voter: str
    target: str


VoteOutcome = str  # "Player 5 eliminated", "no elimination", "tie: A, B", "no vote", "pending"


class DayRoundTranscript(_Shape):
    """One round in full: the night's death, every speech, the votes and any revote, last words."""

    round_number: int
    night_kill: str | None = None
    speeches: list[SpeechLine] = Field(default_factory=list)
    votes: list[BallotLine] = Field(default_factory=list)
    vote_outcome: VoteOutcome = "pending"
    defense_speeches: list[SpeechLine] = Field(default_factory=list)
    revote: list[BallotLine] = Field(default_factory=list)
    revote_outcome: VoteOutcome | None = None
    last_words: SpeechLine | None = None


class Nomination(_Shape):
    """Who nominated a player whom the day's vote then eliminated or tied."""

    nominee: str
    nominators: list[str] = Field(default_factory=list)


class RoleClaim(_Shape):
    """Someone claimed a role (for themself), as read from a speech."""

    player: str
    role: str


class CompressedRoundSummary(_Shape):
    """An older round squeezed to the facts: deaths, results with who voted with whom, the
    nominations that put the eliminated or tied players up, and claims (for the ledger)."""

    round_number: int
    night_death: str | None = None
    vote_death: str | None = None
    vote_result: VoteOutcome = "no vote"
    vote_line: str = ""
    defense_note: str | None = None
    nominations: list[Nomination] = Field(default_factory=list)
    claims: list[RoleClaim] = Field(default_factory=list)


# ---- memory --------------------------------------------------------------------------------


class KillRecord(_Shape):
    """A Mafia night kill attempt and what became of it."""

    round: int
    target: str
    outcome: Literal["killed", "survived", "skipped"]


class ProtectionRecord(_Shape):
    """A Doctor protection; the Doctor is never told whether it saved anyone."""

    round: int
    target: str
    reasoning: str


class InvestigationRecord(_Shape):
    """A Detective investigation and its result."""

    round: int
    target: str
    result: Literal["Mafia", "Not Mafia"]
    reasoning: str = ""


class StrategyNote(_Shape):
    """A Mafia member's night-zero strategy, shared with the whole team."""

    speaker: str
    strategy: str


class MemoryFacts(_Shape):
    """Engine-owned facts: written by the engine from the log, never by the model."""

    kill_history: list[KillRecord] = Field(default_factory=list)
    protection_history: list[ProtectionRecord] = Field(default_factory=list)
    investigation_results: list[InvestigationRecord] = Field(default_factory=list)
    night_zero_strategies: list[StrategyNote] = Field(default_factory=list)
    last_kill: KillRecord | None = None
    last_protection: ProtectionRecord | None = None
    last_investigation: InvestigationRecord | None = None


class MemoryBeliefs(_Shape):
    """Model-written beliefs, as returned with the player's latest action."""

    suspicions: list[Suspicion] = Field(default_factory=list)
    relationships: list[str] = Field(default_factory=list)
    pattern_notes: list[str] = Field(default_factory=list)


class PastReasoning(_Shape):
    """One of the player's own earlier reasonings, kept verbatim."""

    round: int
    action: str
    reasoning: str


class PlayerMemory(_Shape):
    """What a player carries between calls: facts, beliefs, and its own recent reasoning."""

    facts: MemoryFacts = Field(default_factory=MemoryFacts)
    beliefs: MemoryBeliefs = Field(default_factory=MemoryBeliefs)
    recent_reasoning: list[PastReasoning] = Field(default_factory=list)
    strategy_summary: str = ""
    archived_beliefs: int = 0
    """Belief entries pruned out of the prompt for age (``context.beliefs``), reachable by recall."""


class PlayerResponse(_Shape):
    """A validated answer: the legal action taken, and the memory it leaves the player with."""

    player: str
    action: ActionKind
    output: SerializeAsAny[ActionBase]
    choice: str | None = None
    fallback: bool = False
    memory: PlayerMemory
