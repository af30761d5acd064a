"""Test chat models: a scripted player and a random-legal player, both reading only their prompt.

They override ``bind_tools`` so ``with_structured_output`` works through the tool-calling route,
and answer with a tool call filled from the bound schema. Also two small helpers the tests share:
the table size of a seeded many-game run and a free local port.
"""

from __future__ import annotations

import functools
import hashlib
import random
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from mafia.prompts import anchors


@dataclass(frozen=True)
class Ask:
    """What a test model sees of one call: who, which action, the legal targets, the prompt."""

    player: str
    role: str
    action: str
    targets: list[str]
    text: str
    retry: bool


def read_ask(messages: Sequence[BaseMessage]) -> Ask:
    """Who is asked what, read from the prompt with the anchors (as any model would)."""
    text = "\n".join(m.text for m in messages)
    identity = anchors.IDENTITY_LINE.search(text)
    task = anchors.TASK_LINE.search(text)
    targets = anchors.TARGETS_LINE.search(text)
    assert identity and task, "prompt lacks identity or task anchors"
    return Ask(
        player=identity["name"],
        role=identity["role"],
        action=task["action"].lower(),
        targets=anchors.split_names(targets["targets"]) if targets else [],
        text=text,
        retry="previous answer was rejected" in text,
    )


def fill(schema: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Arguments for a tool schema: ``fields`` where given, short filler text elsewhere."""
    args: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        if name in fields:
            args[name] = fields[name]
        elif prop.get("type") == "array":
            args[name] = []
        elif prop.get("type") == "string":
            args[name] = f"{name} noted."
        else:
            args[name] = None
    return args


@functools.lru_cache(maxsize=128)
def _class_tool(schema: type) -> dict[str, Any]:
    return convert_to_openai_tool(schema)


def openai_tool(tool: Any) -> dict[str, Any]:
    """A tool in OpenAI's format; a schema class is converted once, as the house model does (its
    JSON schema, rebuilt at every call, was a sixth of a scripted game's time)."""
    return _class_tool(tool) if isinstance(tool, type) else convert_to_openai_tool(tool)


def tool_call_result(
    name: str, args: dict[str, Any], call_id: str = "call-1", usage: dict[str, int] | None = None
) -> ChatResult:
    """What a tool-calling model answers: one call of the tool ``name`` with ``args``."""
    call: ToolCall = {"name": name, "args": args, "id": call_id, "type": "tool_call"}
    message = AIMessage(content="", tool_calls=[call], usage_metadata=cast(Any, usage))
    return ChatResult(generations=[ChatGeneration(message=message)])


class ToolCallingFake(BaseChatModel):
    """Base for the fakes: binds tools, answers each call with one tool call."""

    delay: float = 0.0
    _calls: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "test-fake"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.bind(tools=[openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def answer(self, ask: Ask) -> dict[str, Any]:
        raise NotImplementedError

    @property
    def calls(self) -> int:
        return self._calls

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self._calls += 1
        if self.delay:
            time.sleep(self.delay)
        tool = kwargs["tools"][0]["function"]
        args = fill(tool["parameters"], self.answer(read_ask(messages)))
        return tool_call_result(
            tool["name"], args, usage={"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        )


class RandomLegalModel(ToolCallingFake):
    """Picks uniformly among the prompt's valid targets, seeded by the prompt text."""

    seed: int = 0

    def answer(self, ask: Ask) -> dict[str, Any]:
        digest = hashlib.sha256(f"{self.seed}\n{ask.text}".encode()).digest()
        rng = random.Random(digest)
        pick = rng.choice(ask.targets) if ask.targets else None
        if ask.action == "speak" and rng.random() >= 0.7:
            pick = None
        return {"text": f"{ask.player} speaks.", "choice": pick}


Script = Callable[[Ask], dict[str, Any] | None]


class ScriptedModel(ToolCallingFake):
    """Follows a script: ``script(ask)`` returns answer fields (``text``, ``choice``), or None to skip
    / not nominate."""

    script: Script | None = Field(default=None, exclude=True)
    log: list[Ask] = Field(default_factory=list, exclude=True)

    def answer(self, ask: Ask) -> dict[str, Any]:
        with self._lock:
            self.log.append(ask)
        fields = self.script(ask) if self.script is not None else None
        base: dict[str, Any] = {"text": f"{ask.player} speaks.", "choice": "skip"}
        if ask.action in ("speak", "defense", "last_words", "night_zero"):
            base["choice"] = None
        if ask.action == "protect":
            base["choice"] = ask.player
        if ask.action == "investigate":
            base["choice"] = ask.targets[0] if ask.targets else "nobody"
        return {**base, **(fields or {})}


class Recording(ScriptedModel):
    """A scripted player that also records each call's message roles, texts and tool schema."""

    calls_seen: list[tuple[list[str], list[str], dict[str, Any]]] = Field(default_factory=list, exclude=True)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        schema = kwargs["tools"][0]["function"]["parameters"]
        with self._lock:
            self.calls_seen.append(([m.type for m in messages], [m.text for m in messages], schema))
        return super()._generate(messages, *args, **kwargs)


class Searcher(ScriptedModel):
    """A scripted player that calls ``recall`` (with ``query``) ``searches`` times a turn before
    answering, and records the messages of every call, whether recall was offered and the tools."""

    searches: int = 1
    query: str = "Player"
    seen: list[tuple[list[BaseMessage], bool]] = Field(default_factory=list, exclude=True)
    tools_seen: list[list[dict[str, Any]]] = Field(default_factory=list, exclude=True)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        # Recall may be called where it is bound and the tool choice does not name another tool.
        choice = kwargs.get("tool_choice")
        offered = choice in (None, "any", "recall") and any(
            t["function"]["name"] == "recall" for t in kwargs["tools"]
        )
        with self._lock:
            self.seen.append((list(messages), offered))
            self.tools_seen.append(list(kwargs["tools"]))
        done = sum(isinstance(m, ToolMessage) for m in messages)
        if offered and done < self.searches:
            return tool_call_result("recall", {"query": self.query}, f"r{done}")
        return super()._generate(messages, *args, **kwargs)


def table_size(seed: int) -> int:
    """Seats of the seeded game ``seed`` in the many-game runs: every size from 5 to 16 in turn."""
    return 5 + seed % 12


def free_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
