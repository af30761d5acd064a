"""The model-facing answer schema: what a player returns for every decision.

``Answer`` opens with the SGR fields (observations, suspicions with the belief updates the engine
stores as the player's memory, strategy, reasoning), then ``text`` and ``choice``. Field
descriptions are the instructions the model reads. Strict-mode safe: no dict fields, no defaults.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

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


# The field descriptions below are the answer guide the model reads (the schema is sent with every
# call, ahead of the messages, and billed): short, each said once. Field titles (the field names
# again) are left out of the schema, and so are the nested classes' titles and docstrings: their
# fields say it all. The answer's own title stays: it names the tool or response format.


def _untitled(schema: dict[str, Any]) -> None:
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


def _untitled_nested(schema: dict[str, Any]) -> None:
    _untitled(schema)
    schema.pop("title", None)
    schema.pop("description", None)


_NESTED = ConfigDict(extra="forbid", json_schema_extra=_untitled_nested)


class Suspicion(BaseModel):
    """Your suspicion of one living player."""

    model_config = _NESTED
    player: str = Field(description="Exact name.")
    level: int = Field(description="0 innocent, 5 unsure, 10 surely Mafia")
    reasoning: str = Field(description="One sentence of evidence.")


class Relationship(BaseModel):
    """An alliance or conflict you perceive."""

    model_config = _NESTED
    players: list[str] = Field(description="Exact names.")
    kind: str = Field(description="alliance, conflict or unclear")
    note: str = Field(description="One sentence: what you saw.")


class ActionBase(BaseModel):
    """The reasoning fields every answer starts with, filled in this order before acting."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_untitled)
    observations: str = Field(description="New facts since your last turn.")
    suspicions: list[Suspicion] = Field(
        description="Every other living player; revise your last levels. As Mafia, rate the "
        "danger to your team."
    )
    relationships: list[Relationship] = Field(description="Who backs or clashes with whom (may be empty).")
    pattern_notes: list[str] = Field(
        description="Voting habits, claims, contradictions worth remembering (may be empty)."
    )
    strategy: str = Field(description="Your plan; the first sentence states it.")
    reasoning: str = Field(description="Why your text and choice follow.")


# One schema for every action keeps the response format identical across a player's calls, so a
# provider's prefix cache (which starts with the schema) serves all of them.
class Answer(ActionBase):
    """Your answer: the reasoning fields in order, then the text and the choice the task asks for,
    and the role a speech claims. Only text, choice and claim are shown to others (Mafia messages
    and plans to partners only)."""

    text: str | None = Field(
        description="In your persona's voice: speech, defense, last words, Mafia message or plan. "
        "null if the task asks for none."
    )
    choice: str | None = Field(
        description='One exact name from "Valid targets". null if the task asks for none or you '
        "nominate no one."
    )
    claim: str | None = Field(
        description="The role you publicly claim in this speech, defense or last words, if any: "
        '"Detective", "Doctor", "Town" or "Mafia" (shown to everyone, true or not). null when you '
        "claim no role in it, and for every other task."
    )


ACTION_SCHEMAS: dict[ActionKind, type[ActionBase]] = {kind: Answer for kind in ActionKind}
"""The answer schema of each action: ``Answer`` for all of them (a lookup kept for callers)."""
