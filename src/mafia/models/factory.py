"""Model factory: turn a model spec into a LangChain chat model, and cache structured runnables.

Specs: ``house`` or ``house:SEED`` (the built-in offline model), ``openai:MODEL`` (any
OpenAI-compatible server through ``OPENAI_BASE_URL``), or any ``provider:model`` string that
``init_chat_model`` understands with its provider package installed.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableSequence
from pydantic import ValidationError

from mafia.actions import ActionBase


class ModelSpecError(ValueError):
    """A model spec that cannot be turned into a chat model; the message says what is allowed."""


_models: dict[str, BaseChatModel] = {}
# Keyed by model identity; the model is kept in the value so its id cannot be reused meanwhile.
# Least recently used first, and bounded: a long run makes a new model for every game.
_structured: OrderedDict[tuple[int, type[ActionBase]], tuple[BaseChatModel, StructuredCall]] = OrderedDict()
STRUCTURED_CACHE_SIZE = 256
_lock = threading.Lock()

SPEC_HELP = "use 'house', 'house:SEED', 'openai:MODEL' or 'PROVIDER:MODEL' (init_chat_model)"


def parse_house_seed(spec: str) -> int | None:
    """The seed of a ``house[:SEED]`` spec, or None if the spec names another model."""
    name, _, seed = spec.partition(":")
    if name != "house":
        return None
    if not seed:
        return 0
    if not re.fullmatch(r"-?[0-9]+", seed):  # ASCII digits only: int() refuses "²" and "--5"
        raise ModelSpecError(f"model {spec!r}: the house seed must be an integer; {SPEC_HELP}")
    return int(seed)


def build_model(spec: str) -> BaseChatModel:
    """A new chat model for ``spec`` (no network until it is called)."""
    seed = parse_house_seed(spec)
    if seed is not None:
        from mafia.models.house import HouseModel

        return HouseModel(seed=seed)
    provider, sep, model = spec.partition(":")
    if not sep or not provider or not model:
        raise ModelSpecError(f"model {spec!r}: {SPEC_HELP}")
    if provider == "openai":
        from langchain_openai import ChatOpenAI
        from openai import OpenAIError

        try:
            return ChatOpenAI(model=model)
        except OpenAIError as exc:  # no key: say which settings it needs, not a traceback
            raise ModelSpecError(
                f"model {spec!r}: {exc} (set OPENAI_API_KEY, and OPENAI_BASE_URL for another server)"
            ) from exc
    try:
        from langchain.chat_models import init_chat_model  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ModelSpecError(
            f"model {spec!r}: provider {provider!r} needs `pip install langchain` and its "
            f"provider package; {SPEC_HELP}"
        ) from exc
    try:
        chat: BaseChatModel = init_chat_model(spec)
    except (ImportError, ValueError) as exc:
        raise ModelSpecError(f"model {spec!r}: {exc}") from exc
    return chat


def resolve_model(spec: BaseChatModel | str) -> BaseChatModel:
    """The chat model for a spec or instance; specs are built once per process and reused."""
    if isinstance(spec, BaseChatModel):
        return spec
    with _lock:
        if spec not in _models:
            _models[spec] = build_model(spec)
        return _models[spec]


class StructuredCall:
    """A model bound to an action schema: ``invoke`` returns ``{"raw", "parsed", "parsing_error"}``.

    Same contract as ``with_structured_output(schema, include_raw=True)``, but the model's own
    ``llm | parser`` sequence is run step by step: the include_raw wrapper starts a thread pool
    on every call, which costs more than a whole turn of the engine.
    """

    def __init__(self, model: BaseChatModel, schema: type[ActionBase]) -> None:
        chain = model.with_structured_output(schema)
        if isinstance(chain, RunnableSequence):
            llm = RunnableSequence(*chain.steps[:-1]) if len(chain.steps) > 2 else chain.first
            self.llm: Runnable[Any, Any] = _without_schema_metadata(llm)
            self.parser: Runnable[Any, Any] | None = chain.last
            self.fallback: Runnable[Any, Any] | None = None
        else:
            self.llm, self.parser = chain, None
            self.fallback = model.with_structured_output(schema, include_raw=True)

    def invoke(self, messages: Any, config: RunnableConfig | None = None) -> dict[str, Any]:
        if self.fallback is not None:
            result: dict[str, Any] = self.fallback.invoke(messages, config)
            return result
        raw = self.llm.invoke(messages, config)
        assert self.parser is not None
        try:
            parsed = self.parser.invoke(raw, config)
        except (OutputParserException, ValidationError, ValueError) as exc:
            return {"raw": raw, "parsed": None, "parsing_error": exc}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}


def _without_schema_metadata(llm: Runnable[Any, Any]) -> Runnable[Any, Any]:
    """Drop the binding's ``ls_structured_output_format``: it only labels traces, and langchain
    re-derives the whole JSON schema from it on every call (milliseconds per turn)."""
    if isinstance(llm, RunnableBinding) and "ls_structured_output_format" in llm.kwargs:
        kwargs = {k: v for k, v in llm.kwargs.items() if k != "ls_structured_output_format"}
        return RunnableBinding(bound=llm.bound, kwargs=kwargs, config=llm.config)
    return llm


def structured(model: BaseChatModel, schema: type[ActionBase]) -> StructuredCall:
    """The model bound to ``schema`` for structured answers, built once per model and schema."""
    key = (id(model), schema)
    with _lock:
        if key in _structured:
            _structured.move_to_end(key)
        else:
            _structured[key] = (model, StructuredCall(model, schema))
            if len(_structured) > STRUCTURED_CACHE_SIZE:
                _structured.popitem(last=False)
        return _structured[key][1]
