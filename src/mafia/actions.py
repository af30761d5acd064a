"""The model-facing answer schema: what a player returns for every decision.

``Answer`` opens with the SGR fields (observations, suspicions with the belief updates the engine
stores as the player's memory, strategy, reasoning), then ``text`` and ``choice``. Field
descriptions are the instructions the model reads. Strict-mode safe: no dict fields, no defaults.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class ActionKind(StrEnum):
    """Every decision a player can be asked to make."""

    SPEAK = "speak"
    VOTE = "vote"
    DEFENSE = "defense"
    REVOTE = "revote"
    LAST_WORDS = "last_words"
    NIGHT_ZERO = "night_zero"
    MAFIA_ROUND1 = "mafia_round1"
    MAFIA_ROUND2 = "mafia_round2"
    NIGHT_KILL = "night_kill"  # a lone Mafia choosing directly
    PROTECT = "protect"
    INVESTIGATE = "investigate"


class Suspicion(BaseModel):
    """How strongly you suspect one living player of being Mafia."""

    model_config = ConfigDict(extra="forbid")
    player: str = Field(description="Exact name of a living player other than you.")
    level: int = Field(description="0 = surely innocent, 5 = unsure, 10 = surely Mafia.")
    reasoning: str = Field(description="One sentence: the evidence behind this level.")


class Relationship(BaseModel):
    """A perceived alliance or conflict between players."""

    model_config = ConfigDict(extra="forbid")
    players: list[str] = Field(description="The two (or more) players involved, by exact name.")
    kind: str = Field(description="'alliance', 'conflict' or 'unclear'.")
    note: str = Field(description="One sentence: what you saw that suggests it.")


class ActionBase(BaseModel):
    """The reasoning fields every action starts with, filled in this order before acting."""

    model_config = ConfigDict(extra="forbid")
    observations: str = Field(
        description="Facts only: what happened since your last turn that matters (speeches, "
        "votes, deaths, your private results). No interpretation."
    )
    suspicions: list[Suspicion] = Field(
        description="Your current suspicion of every other living player, one entry each."
    )
    relationships: list[Relationship] = Field(
        description="Alliances or conflicts you perceive now (may be empty)."
    )
    pattern_notes: list[str] = Field(
        description="Short notes on behaviour patterns worth remembering (may be empty)."
    )
    strategy: str = Field(description="Your plan for this turn and the next, given your role's goal.")
    reasoning: str = Field(
        description="Step by step, why the choice below follows from your observations and plan."
    )


# One schema for every action keeps the response format identical across a player's calls, so a
# provider's prefix cache (which starts with the schema) serves all of them.
class Answer(ActionBase):
    """Your answer: the reasoning fields in order, then the text and the choice the task asks for."""

    text: str | None = Field(
        description="What you say or write, in your persona's voice: your speech, defense or last "
        "words (public), your message to your partners (Mafia round 1) or your plan (night 0). "
        "null when the task asks for no text."
    )
    choice: str | None = Field(
        description='Exactly one name from the task\'s "Valid targets" line ("skip" only where '
        "listed): your nomination, ballot or night target. null when the task asks for no choice, "
        "or in a speech to nominate no one."
    )


ACTION_SCHEMAS: dict[ActionKind, type[ActionBase]] = {kind: Answer for kind in ActionKind}
"""The answer schema of each action: ``Answer`` for all of them (a lookup kept for callers)."""
