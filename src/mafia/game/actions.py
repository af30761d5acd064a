"""The model-facing answer schema: what a player returns for every decision.

``Answer`` opens with the SGR fields (observations, suspicions with the belief updates the engine
stores as the player's memory, strategy, reasoning), then ``text`` and ``choice``. Field
descriptions are the instructions the model reads. Strict-mode safe: no dict fields, no defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
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
    GUARD = "guard"
    SHOOT = "shoot"


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
    player: str
    level: int = Field(description="0 innocent to 10 surely Mafia")
    reasoning: str = Field(description="One sentence.")


class ActionBase(BaseModel):
    """The reasoning fields every answer starts with, filled in this order before acting."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_untitled)
    observations: str = Field(description="What is new since your last turn.")
    suspicions: list[Suspicion] = Field(
        description="Every other living player. As Mafia: danger to your team."
    )
    relationships: list[str] = Field(description="Alliances and conflicts you see, one each.")
    pattern_notes: list[str] = Field(description="Habits, claims, contradictions to remember.")
    strategy: str = Field(description="Your plan; its first sentence states it.")
    reasoning: str = Field(description="Why your text and choice follow.")


def _nullable_as_type_list(prop: dict[str, Any]) -> None:
    """``anyOf: [{type: T}, {type: null}]`` written as ``type: [T, "null"]``: the same schema in
    fewer tokens (OpenAI's strict mode documents both)."""
    options = prop.get("anyOf")
    if isinstance(options, list) and all(set(o) == {"type"} for o in options):
        prop["type"] = [o["type"] for o in options]
        del prop["anyOf"]


def _undescribed(schema: dict[str, Any]) -> None:
    """The answer's schema as sent: no title or docstring, nullable fields as type lists."""
    _untitled(schema)
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        _nullable_as_type_list(prop)


# One schema for every action keeps the response format identical across a player's calls, so a
# provider's prefix cache (which starts with the schema) serves all of them. Its docstring stays
# out of the schema: the fields say it all, and the rules say what others see.
class Answer(ActionBase):
    """Your answer: the reasoning fields in order, then the text and the choice the task asks for,
    and the role a speech claims. Only text, choice and claim are shown to others (Mafia messages
    and plans to partners only)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_undescribed)
    text: str | None = Field(description="In your persona's voice.")
    choice: str | None = Field(description="An exact name from Valid targets.")
    claim: str | None = Field(description="Detective, Doctor, Town or Mafia.")


def empty_answer() -> dict[str, Any]:
    """Every field of ``Answer``, empty: what an answer given without reasoning (a person's, a test
    driver's) starts from."""
    return {
        "observations": "",
        "suspicions": [],
        "relationships": [],
        "pattern_notes": [],
        "strategy": "",
        "reasoning": "",
        "text": None,
        "choice": None,
        "claim": None,
    }


ACTION_SCHEMAS: dict[ActionKind, type[ActionBase]] = {kind: Answer for kind in ActionKind}
"""The answer schema of each action: ``Answer`` for all of them (a lookup kept for callers)."""


@dataclass(frozen=True, kw_only=True)
class TextLimits:
    """The longest text, in characters, kept of each model-written field; longer text is cut."""

    speech: int = 1200
    """A day speech, a defense or last words."""
    message: int = 600
    """A Mafia member's Round 1 message to partners."""
    plan: int = 800
    """A Mafia member's night-zero plan for partners."""
    private: int = 1500
    """Each private reasoning field (observations, strategy, reasoning), shown back in memory."""
    note: int = 300
    """Each suspicion reasoning, relationship note and pattern note."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 20:
                raise ValueError(f"text_limits.{f.name} must be an integer of 20 or more, got {value!r}")
