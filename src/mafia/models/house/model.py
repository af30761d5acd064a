"""The house model: an offline, deterministic LangChain chat model that plays Mafia sensibly.

It decides only from the messages it is sent (never from engine state): it reads the rendered
prompt's anchor lines (``mafia.prompts.anchors``) and its ``[YOUR MEMORY]`` JSON, scores the table
(``board``), decides the task (``decisions``) with wordings coloured by persona
(``phrasing``), and writes the answer into whatever schema is bound, walking its JSON schema so
that unknown schemas still get a valid answer. The same messages and seed give the same answer,
byte for byte: all randomness comes from a ``random.Random`` seeded with sha256(seed, prompt).

Two structured-output routes, as with real providers:

- ``bind_tools`` / ``with_structured_output(method="function_calling")``: the answer is a tool call.
- ``with_structured_output(method="json_schema")``: the schema is bound as an OpenAI
  ``response_format`` and the answer is JSON in the message content. Like ``ChatOpenAI``, an
  invalid answer on this route raises ``pydantic.ValidationError`` even with ``include_raw=True``
  (set ``raise_json_errors=False`` to get ``parsing_error`` instead).

Without tools or a response format it answers in plain text (the speech, or its choice).

``chaos`` is the probability of a deliberately bad answer (an illegal choice, a missing or
mistyped field, no tool call, or broken JSON) so tests can exercise the engine's retry path.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, cast

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.base import LangSmithParams
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import ToolCall
from langchain_core.output_parsers import JsonOutputParser
from langchain_core.output_parsers.openai_tools import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config, get_callback_manager_for_config
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field

from mafia.models.house.decisions import Decision, Knobs, decide
from mafia.models.house.prompt_reading import PromptView, moment_text, read_prompt
from mafia.models.house.recalling import RECALL_TOOL, conversation, offers_recall, recall_query, use_recall
from mafia.models.house.schema_fill import fill
from mafia.models.house.summarising import asks_summary, summary_args

__all__ = ["HouseModel", "prompt_text"]

# What makes a tool look like an action: the actions' own fields and the two distinctive reasoning
# fields (not generic names such as "reasoning" or "strategy" that an unrelated tool may have too).
_ACTION_FIELDS = frozenset({"observations", "suspicions", "text", "choice"})
_PLAYER_FIELDS = ("choice",)  # the fields naming a player (chaos: illegal)
ToolLike = dict[str, Any] | type | Callable[..., Any] | BaseTool
Args = dict[str, Any]


class HouseModel(BaseChatModel):
    """The embedded default player (see the module doc). All knobs are plain fields."""

    seed: int = 0
    """Seeds every choice together with the prompt text: same seed and messages, same answer."""
    skill: float = Field(default=1.0, ge=0.0, le=1.0)
    """Chance of the reasoned choice (and suspicion level); otherwise a random legal one (a random
    level): a weaker baseline."""
    aggression: float = Field(default=0.5, ge=0.0, le=1.0)
    """Readiness to nominate and vote on thin evidence, make early reads and counterclaim."""
    chaos: float = Field(default=0.0, ge=0.0, le=1.0)
    """Probability of a deliberately illegal or malformed answer (for retry-path tests)."""
    paired_dice: bool = False
    """Seed the choices with the decision's moment (``moment_text``: state, seat and task) instead
    of the whole prompt, so that two context policies that give the model the same reading make the
    same choice: their arenas then differ by what the policies show, not by the dice."""
    raise_json_errors: bool = True
    """json_schema route with include_raw=True: raise on an invalid answer as ChatOpenAI does."""

    @property
    def _llm_type(self) -> str:
        return "mafia-house"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "skill": self.skill,
            "aggression": self.aggression,
            "chaos": self.chaos,
            "raise_json_errors": self.raise_json_errors,
        } | ({"paired_dice": True} if self.paired_dice else {})

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "mafia"
        params["ls_model_name"] = "house"
        return params

    # ---- generation ----------------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.answer(messages, **kwargs))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # Pure CPU work well under a millisecond: no executor hop.
        return ChatResult(generations=[ChatGeneration(message=self.answer(messages, **kwargs))])

    def answer(self, messages: Sequence[BaseMessage], **kwargs: Any) -> AIMessage:
        """The reply to ``messages``, given the bound ``tools`` / ``tool_choice`` or
        ``response_format`` in ``kwargs``. Reads nothing but these arguments."""
        prompt, recalled = conversation(messages)
        text = prompt_text(prompt)  # decisions read the prompt; recall answers only add a fact
        digest = hashlib.sha256(f"{self.seed}\x1f{text}".encode()).digest()
        dice = (
            hashlib.sha256(f"{self.seed}\x1f{moment_text(text)}".encode()).digest()
            if self.paired_dice
            else digest
        )
        rng = random.Random(int.from_bytes(dice[:8], "big"))
        view = read_prompt(text)
        knobs = Knobs(skill=self.skill, aggression=self.aggression)
        wild = self._wild_rng(digest)  # None unless this answer is to be a bad one

        response_format = kwargs.get("response_format")
        schema = _response_schema(response_format)
        if schema is not None and asks_summary(text, _props(schema)):
            args = fill(schema, summary_args(text, _props(schema)))
            return _message(json.dumps(args, ensure_ascii=False), [], text, digest, "stop")
        if schema is not None:
            decision = decide(view, _props(schema), rng, knobs)
            args = fill_schema(schema, decision)
            content = json.dumps(args, ensure_ascii=False)
            if wild is not None:
                content = _wild_json(args, schema, view, wild)
            return _message(content, [], text, digest, "stop")

        tool = _pick_tool(kwargs.get("tools"), kwargs.get("tool_choice"))
        if tool is None:
            decision = decide(view, frozenset(), rng, knobs)
            return _message(decision.reply(), [], text, digest, "stop")
        function = tool["function"]
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        if asks_summary(text, _props(parameters)):
            args = fill(parameters, summary_args(text, _props(parameters)))
            call = ToolCall(name=function["name"], args=args, id=None)
            return _message("", [call], text, digest, "tool_calls")
        decision = decide(view, _props(parameters), rng, knobs)
        query = recall_query(text, view, decision) if not recalled else None
        if query is not None and offers_recall(kwargs.get("tools"), kwargs.get("tool_choice")):
            call = ToolCall(name=RECALL_TOOL, args={"query": query}, id=f"call_{digest.hex()[:20]}_r")
            return _message("", [call], text, digest, "tool_calls")
        decision = use_recall(decision, recalled)
        args = fill_schema(parameters, decision)
        if wild is not None:
            kind = wild.choice(("illegal", "missing", "wrong_type", "no_tool_call"))
            if kind == "no_tool_call":
                return _message(decision.reply(), [], text, digest, "stop")
            args = _wild_args(kind, args, parameters, view, wild)
        call_id = f"call_{digest.hex()[:24]}"
        call = ToolCall(name=function["name"], args=args, id=call_id, type="tool_call")
        return _message("", [call], text, digest, "tool_calls")

    def _wild_rng(self, digest: bytes) -> random.Random | None:
        """With probability ``chaos``, the random stream that spoils this answer (its own stream,
        apart from the decision's, so chaos never changes a sound answer); otherwise None."""
        if self.chaos <= 0.0:
            return None
        rng = random.Random(int.from_bytes(digest[8:16], "big"))
        return rng if rng.random() < self.chaos else None

    # ---- binding -------------------------------------------------------------------------

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: str | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools in OpenAI format; the house calls the action-looking one (or the one
        named by ``tool_choice``)."""
        formatted = [_openai_tool(t) for t in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def with_structured_output(
        self,
        schema: dict[str, Any] | type,
        *,
        include_raw: bool = False,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | BaseModel]:
        """Structured output by ``method="function_calling"`` (default) or ``"json_schema"``.

        Equivalent to the base class for function calling, but hands tracing a precomputed
        schema dict, which saves about 2 ms of schema conversion per call.
        """
        method = kwargs.pop("method", None) or "function_calling"
        strict = kwargs.pop("strict", None)
        if kwargs:
            raise ValueError(f"Received unsupported arguments {kwargs}")
        tool = _openai_tool(schema)
        name = tool["function"]["name"]
        parse: Callable[[AIMessage], Any]
        if method == "function_calling":
            llm = self.bind_tools(
                [tool],
                tool_choice="any",
                ls_structured_output_format={
                    "kwargs": {"method": "function_calling"},
                    "schema": tool,
                },
            )
            tools_parser: JsonOutputToolsParser
            if isinstance(schema, type) and issubclass(schema, BaseModel):
                tools_parser = PydanticToolsParser(tools=[schema], first_tool_only=True)
            else:
                tools_parser = JsonOutputKeyToolsParser(key_name=name, first_tool_only=True)

            def parse(message: AIMessage) -> Any:
                return tools_parser.parse_result([ChatGeneration(message=message)])

            return _structured(llm, parse, include_raw, catch=True)
        if method == "json_schema":
            json_schema: dict[str, Any] = {
                "name": name,
                "schema": tool["function"].get("parameters", {}),
            }
            if "description" in tool["function"]:
                json_schema["description"] = tool["function"]["description"]
            if strict is not None:
                json_schema["strict"] = strict
            llm = self.bind(
                response_format={"type": "json_schema", "json_schema": json_schema},
                ls_structured_output_format={
                    "kwargs": {"method": "json_schema", "strict": strict},
                    "schema": tool,
                },
            )
            if isinstance(schema, type) and issubclass(schema, BaseModel):
                model = schema

                def parse(message: AIMessage) -> Any:
                    return model.model_validate_json(_content(message))

            else:
                json_parser = JsonOutputParser()

                def parse(message: AIMessage) -> Any:
                    return json_parser.parse(_content(message))

            return _structured(llm, parse, include_raw, catch=not self.raise_json_errors)
        raise ValueError(f"Unsupported method {method!r}: use 'function_calling' or 'json_schema'.")


def _structured(
    llm: Runnable[LanguageModelInput, AIMessage],
    parse: Callable[[AIMessage], Any],
    include_raw: bool,
    *,
    catch: bool,
) -> Runnable[LanguageModelInput, Any]:
    """``llm`` followed by parsing, shaped like the base class's result (``raw``, ``parsed``,
    ``parsing_error`` with ``include_raw``). One plain step instead of the base class's parallel
    map and fallbacks: the same output without a thread pool per call (about 5 ms saved)."""
    if not include_raw:
        return llm | _ParseStep(parse)

    def assemble(raw: AIMessage) -> dict[str, Any]:
        if not catch:
            return {"raw": raw, "parsed": parse(raw), "parsing_error": None}
        try:
            parsed = parse(raw)
        except Exception as exc:  # reported to the caller, as the base class does
            return {"raw": raw, "parsed": None, "parsing_error": exc}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}

    return llm | _ParseStep(assemble)


class _ParseStep(Runnable[AIMessage, Any]):
    """The parse step after the model, traced as a ``parse_structured_output`` chain run.

    A ``RunnableLambda`` would do the same but inspects its function's signature on every call
    (twice); this step knows its function takes just the message.
    """

    name = "parse_structured_output"

    def __init__(self, func: Callable[[AIMessage], Any]) -> None:
        self.func = func

    def invoke(self, input: AIMessage, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        config = ensure_config(config)
        run_manager = get_callback_manager_for_config(config).on_chain_start(
            None,
            input,
            name=config.get("run_name") or self.get_name(),
            run_id=config.pop("run_id", None),
        )
        try:
            output = self.func(input)
        except BaseException as exc:
            run_manager.on_chain_error(exc)
            raise
        run_manager.on_chain_end(output)
        return output

    async def ainvoke(self, input: AIMessage, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        # Pure CPU work: no executor hop.
        return self.invoke(input, config, **kwargs)


# ---- messages ------------------------------------------------------------------------------


def prompt_text(messages: Sequence[BaseMessage]) -> str:
    """All message text joined by newlines: the only input the house model reads."""
    return "\n".join(_content(m) for m in messages)


def _content(message: Any) -> str:
    content = message.content if isinstance(message, BaseMessage) else message
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "".join(parts)
    return str(content)


def _message(text: str, calls: list[ToolCall], prompt: str, digest: bytes, end: str) -> AIMessage:
    out_chars = len(text) + sum(_size(c["args"]) for c in calls)
    input_tokens = (len(prompt) + 3) // 4
    output_tokens = (out_chars + 3) // 4
    usage = UsageMetadata(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )
    return AIMessage(
        content=text,
        tool_calls=calls,
        usage_metadata=usage,
        response_metadata={"model_name": "mafia-house", "finish_reason": end},
        id=f"house-{digest.hex()[:16]}",
    )


def _size(args: dict[str, Any]) -> int:
    """Roughly the JSON length of a tool call's arguments (cheap: top-level text, 60 per item)."""
    return sum(
        len(k) + (len(v) if isinstance(v, str) else 60 * len(v) if isinstance(v, list) else 8)
        for k, v in args.items()
    )


# ---- schemas -------------------------------------------------------------------------------


@lru_cache(maxsize=128)
def _cached_tool(schema: type) -> dict[str, Any]:
    return convert_to_openai_tool(schema)


def _openai_tool(tool: ToolLike) -> dict[str, Any]:
    if isinstance(tool, type):
        return _cached_tool(tool)
    if isinstance(tool, dict) and tool.get("type") == "function" and "function" in tool:
        return tool
    return convert_to_openai_tool(tool)


def _response_schema(response_format: Any) -> Mapping[str, Any] | None:
    """The bound response format's JSON schema, itself (not a copy): ``fill`` caches compiled
    schemas by identity, and nothing downstream mutates it."""
    if isinstance(response_format, type) and issubclass(response_format, BaseModel):
        return cast(Mapping[str, Any], _cached_tool(response_format)["function"]["parameters"])
    if isinstance(response_format, Mapping):
        inner = response_format.get("json_schema")
        if isinstance(inner, Mapping):
            schema = inner.get("schema")
            if isinstance(schema, Mapping):
                return schema
    return None


def _props(schema: Mapping[str, Any]) -> frozenset[str]:
    props = schema.get("properties")
    return frozenset(props) if isinstance(props, Mapping) else frozenset()


def _pick_tool(tools: Any, tool_choice: Any) -> dict[str, Any] | None:
    if not tools or tool_choice == "none":
        return None
    formatted = [_openai_tool(t) for t in tools]
    wanted: str | None = None
    if isinstance(tool_choice, str) and tool_choice not in ("auto", "any", "required"):
        wanted = tool_choice
    elif isinstance(tool_choice, Mapping):
        function = tool_choice.get("function")
        wanted = function.get("name") if isinstance(function, Mapping) else tool_choice.get("name")
    if wanted is not None:
        for t in formatted:
            if t["function"]["name"] == wanted:
                return t

    def overlap(tool: dict[str, Any]) -> int:
        return len(_props(tool["function"].get("parameters") or {}) & _ACTION_FIELDS)

    scored = [(overlap(t), t) for t in formatted]
    best = max(scored, key=lambda x: x[0])
    if best[0] == 0 and tool_choice in (None, "auto"):
        return None
    return best[1]


def _hints(decision: Decision) -> dict[str, Any]:
    hints = dict(decision.fields)
    hints["suspicions"] = [
        {"player": p, "level": level, "reasoning": why} for p, level, why in decision.suspicions
    ]
    hints["relationships"] = list(decision.relationships)
    hints["pattern_notes"] = list(decision.pattern_notes)
    return hints


def fill_schema(schema: Mapping[str, Any], decision: Decision) -> dict[str, Any]:
    """An instance of ``schema`` (a JSON schema object) carrying the decision where the field
    names are known, and short type-correct defaults everywhere else."""
    return fill(schema, _hints(decision))


# ---- chaos ---------------------------------------------------------------------------------


def _illegal_choice(view: PromptView, rng: random.Random) -> str:
    legal = set(view.targets or view.living)
    pool = [d[0] for d in view.dead] + [view.me, "Nobody"]
    return rng.choice([p for p in pool if p and p not in legal] or ["Nobody"])


def _wild_args(
    kind: str, args: dict[str, Any], schema: Mapping[str, Any], view: PromptView, rng: random.Random
) -> dict[str, Any]:
    out = dict(args)
    choices = [f for f in _PLAYER_FIELDS if f in out]
    if kind == "illegal" and choices:
        out[rng.choice(choices)] = _illegal_choice(view, rng)
        return out
    required = schema.get("required")
    keys = [k for k in (required if isinstance(required, list) else list(out)) if k in out]
    if kind == "wrong_type" and keys:
        key = "suspicions" if "suspicions" in out else rng.choice(keys)
        out[key] = 12345 if isinstance(out[key], str) else "see my notes"
        return out
    if keys:
        del out[rng.choice(keys)]
    return out


def _wild_json(args: Args, schema: Mapping[str, Any], view: PromptView, rng: random.Random) -> str:
    kind = rng.choice(("illegal", "missing", "wrong_type", "broken"))
    if kind == "broken":
        text = json.dumps(args, ensure_ascii=False)
        return text[: max(1, len(text) // 2)]
    return json.dumps(_wild_args(kind, args, schema, view, rng), ensure_ascii=False)
