"""Model-facing action schemas: what a player returns for each decision.

Every schema opens with the SGR fields (observations, suspicions with the belief updates the engine
stores as the player's memory, strategy, reasoning), then the action's own fields. Field
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


class SpeakAction(ActionBase):
    """A day speech, with an optional nomination."""

    speech: str = Field(description="What you say to the table, in your persona's voice.")
    nomination: str | None = Field(
        description="Exact name of one living player (not you) to nominate for elimination, "
        "or null to nominate no one."
    )


class VoteAction(ActionBase):
    """A ballot in a vote or revote."""

    vote: str = Field(description="Exact name of one of the listed candidates, or 'skip'.")


class DefenseAction(ActionBase):
    """A tied player's defense speech before the revote."""

    speech: str = Field(description="Your defense to the table, in your persona's voice.")


class LastWordsAction(ActionBase):
    """The final words of a player just voted out."""

    speech: str = Field(description="Your last words to the table.")


class NightZeroAction(ActionBase):
    """The Mafia's opening strategy, shared with partners; no kill tonight."""

    plan: str = Field(
        description="Strategy notes for your partners: day signals, cover stories, whom to push."
    )


class MafiaRound1Action(ActionBase):
    """A Mafia member's kill proposal and message to partners."""

    target: str = Field(description="Exact name of one listed target, or 'skip' for no kill.")
    message: str = Field(description="A short message to your partners explaining your pick.")


class MafiaRound2Action(ActionBase):
    """A Mafia member's final kill choice (Round 2), or a lone Mafia's direct choice."""

    target: str = Field(description="Exact name of one listed target, or 'skip' for no kill.")


class ProtectAction(ActionBase):
    """The Doctor's protection for tonight."""

    target: str = Field(description="Exact name of one living player to protect (you may pick yourself).")


class InvestigateAction(ActionBase):
    """The Detective's investigation for tonight."""

    target: str = Field(description="Exact name of one living player (not you) to investigate.")


AnyAction = (
    SpeakAction
    | VoteAction
    | DefenseAction
    | LastWordsAction
    | NightZeroAction
    | MafiaRound1Action
    | MafiaRound2Action
    | ProtectAction
    | InvestigateAction
)

ACTION_SCHEMAS: dict[ActionKind, type[ActionBase]] = {
    ActionKind.SPEAK: SpeakAction,
    ActionKind.VOTE: VoteAction,
    ActionKind.REVOTE: VoteAction,
    ActionKind.DEFENSE: DefenseAction,
    ActionKind.LAST_WORDS: LastWordsAction,
    ActionKind.NIGHT_ZERO: NightZeroAction,
    ActionKind.MAFIA_ROUND1: MafiaRound1Action,
    ActionKind.MAFIA_ROUND2: MafiaRound2Action,
    ActionKind.NIGHT_KILL: MafiaRound2Action,
    ActionKind.PROTECT: ProtectAction,
    ActionKind.INVESTIGATE: InvestigateAction,
}
