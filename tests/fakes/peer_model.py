"""The peer-setting scripted player: fixed-length text, a suspicion for everyone, random legal choices.

Engines are compared on token cost with one scripted model: 60-word speeches (and every other text
an action asks for), 30-word observations, strategy and reasoning, a short suspicion entry for every
other living player, and a uniformly random legal choice read from the prompt's valid targets. It
fills whatever schema it is bound to by field name (the per-action fields ``speech``, ``plan``,
``message``, ``nomination``, ``vote``, ``target``, or one answer's ``text`` and ``choice``), so it
plays with any answer schema. Seeded by the prompt text: the same game gives the same answers.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from fakes import openai_tool
from mafia.prompts import anchors

SPEECH_WORDS = 60
REASONING_WORDS = 30
SUSPICION_WORDS = 8
REASONING_FIELDS = ("observations", "strategy", "reasoning")
TEXT_FIELDS = ("speech", "plan", "message", "text")
CHOICE_FIELDS = ("nomination", "vote", "target", "choice")
# Actions that ask for text; under one answer schema the others leave ``text`` null.
TEXT_ACTIONS = frozenset({"speak", "defense", "last_words", "night_zero", "mafia_round1"})
KILL_ACTIONS = frozenset({"mafia_round1", "mafia_round2", "night_kill"})
VOTE_ACTIONS = frozenset({"vote", "revote"})
SKIP = "skip"

_PROSE = (
    "I think we should look again at how the vote went yesterday and who stayed quiet when it "
    "mattered most because silence can hide a plan while loud voices can push the table toward a "
    "wrong choice so let us compare every claim with the record and ask each player to explain "
    "their reasons clearly before we decide anything today and keep an open mind about the rest"
)
_WORDS = _PROSE.split()


class PeerModel(BaseChatModel):
    """Scripted player of the peer setting. With ``passive``, every ballot is "skip" and the Mafia
    skip every kill (the long-game setting); other choices stay random and legal."""

    seed: int = 0
    passive: bool = False

    @property
    def _llm_type(self) -> str:
        return "peer-scripted"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.bind(tools=[openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        """One tool call filled for the bound tool (stop words and callbacks play no part)."""
        tool = kwargs["tools"][0]["function"]
        filled = self.answer(tool["parameters"], "\n".join(m.text for m in messages))
        message = AIMessage(
            content="",
            tool_calls=[{"name": tool["name"], "args": filled, "id": "call-1", "type": "tool_call"}],
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def answer(self, schema: Mapping[str, Any], prompt: str) -> dict[str, Any]:
        """An instance of ``schema`` for the decision ``prompt`` asks for."""
        rng = random.Random(hashlib.sha256(f"{self.seed}\n{prompt}".encode()).digest())
        identity = anchors.IDENTITY_LINE.search(prompt)
        task = anchors.TASK_LINE.search(prompt)
        targets_line = anchors.TARGETS_LINE.search(prompt)
        living_line = anchors.LIVING_LINE.search(prompt)
        me = identity["name"] if identity else ""
        action = task["action"].lower() if task else ""
        targets = anchors.split_names(targets_line["targets"]) if targets_line else []
        living = anchors.split_names(living_line["names"]) if living_line else list(targets)
        others = [p for p in living if p != me and p != SKIP]
        out: dict[str, Any] = {}
        for name, prop in schema.get("properties", {}).items():
            prop = _resolve(schema, prop)
            if name in REASONING_FIELDS:
                out[name] = _words(rng, REASONING_WORDS, others)
            elif name == "suspicions":
                item = _resolve(schema, prop.get("items", {}))
                out[name] = [_suspicion(schema, item, rng, player) for player in others]
            elif name in TEXT_FIELDS:
                wants = action in TEXT_ACTIONS or name != "text"
                out[name] = _words(rng, SPEECH_WORDS, others) if wants else None
            elif name in CHOICE_FIELDS:
                out[name] = self.choose(rng, action, _options(prop) or targets)
            else:
                out[name] = _default(prop)
        return out

    def choose(self, rng: random.Random, action: str, options: list[str]) -> str | None:
        """A uniformly random legal choice (a speech may also nominate no one)."""
        if not options:
            return None
        if self.passive and (action in VOTE_ACTIONS or action in KILL_ACTIONS) and SKIP in options:
            return SKIP
        if action == "speak":
            return rng.choice([*options, None])
        return rng.choice(options)


def _words(rng: random.Random, count: int, names: Sequence[str]) -> str:
    """``count`` words of plain prose (split on spaces), now and then naming a player."""
    words: list[str] = []
    while len(words) < count:
        name = rng.choice(names).split() if names and len(words) % 12 == 5 else []
        words += name if 0 < len(name) <= count - len(words) else [rng.choice(_WORDS)]
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _suspicion(root: Mapping[str, Any], item: Mapping[str, Any], rng: random.Random, player: str) -> Any:
    fields: dict[str, Any] = {}
    for name, prop in item.get("properties", {}).items():
        prop = _resolve(root, prop)
        if name == "player":
            fields[name] = player
        elif _types(prop) & {"integer", "number"}:
            fields[name] = rng.randint(0, 10)
        elif "string" in _types(prop):
            fields[name] = _words(rng, SUSPICION_WORDS, [])
        else:
            fields[name] = _default(prop)
    return fields


def _resolve(root: Mapping[str, Any], prop: Mapping[str, Any]) -> Mapping[str, Any]:
    """``prop`` with a local ``$ref`` followed."""
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part, {})
        return dict(node)
    return prop


def _types(prop: Mapping[str, Any]) -> set[str]:
    kinds = prop.get("type")
    found = set(kinds) if isinstance(kinds, list) else {kinds} if isinstance(kinds, str) else set()
    for option in prop.get("anyOf", []):
        found |= _types(option)
    return found


def _options(prop: Mapping[str, Any]) -> list[str]:
    """The choices an ``enum`` allows (a re-ask schema lists the legal options)."""
    values = list(prop.get("enum", []))
    for option in prop.get("anyOf", []):
        values += option.get("enum", [])
    return [v for v in values if isinstance(v, str)]


def _default(prop: Mapping[str, Any]) -> Any:
    kinds = _types(prop)
    if "null" in kinds:
        return None
    if "array" in kinds:
        return []
    if "string" in kinds:
        return ""
    if kinds & {"integer", "number"}:
        return 0
    if "boolean" in kinds:
        return False
    return None
