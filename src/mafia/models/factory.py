"""Model factory: turn a model spec and its settings into a LangChain chat model, and call it for
structured answers.

Specs: ``house`` or ``house:SEED`` (the built-in offline model; its weaker variants ``house-sloppy``
and ``random-legal`` take a seed the same way), ``openai:MODEL`` (any
OpenAI-compatible server, through ``base_url`` or ``OPENAI_BASE_URL``), or any ``provider:model``
string that ``init_chat_model`` understands with its provider package installed. A spec alone gets
the default ``ModelSettings``; a model built here keeps its settings, which decide how each
structured call is made (output limit per action, concurrency cap, schema in the prompt).
"""

from __future__ import annotations

import contextvars
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.rate_limiters import InMemoryRateLimiter
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableSequence
from pydantic import BaseModel, ValidationError

from mafia.game.rules import SEED_MAX, SEED_MIN
from mafia.models.house.variants import SKILLS, house_variant
from mafia.models.settings import LOCAL_API_KEY, ModelSettings

if TYPE_CHECKING:
    import httpx


class ModelSpecError(ValueError):
    """A model spec that cannot be turned into a chat model; the message says what is allowed."""


class CallCancelled(KeyboardInterrupt):
    """A model call given up because the run was interrupted (never taken for an answer)."""


_models: dict[str, BaseChatModel] = {}
# Settings of the models built here, by model identity (those models are kept for the process).
_settings: dict[int, ModelSettings] = {}
# Keyed by model identity; the model is kept in the value so its id cannot be reused meanwhile.
# Least recently used first, and bounded: a long run makes a new model for every game.
_structured: OrderedDict[tuple[int, type[BaseModel]], tuple[BaseChatModel, StructuredCall]] = OrderedDict()
STRUCTURED_CACHE_SIZE = 256
_lock = threading.RLock()  # building a model takes it again for the provider's shared limits

SPEC_HELP = (
    "use 'house', 'house:SEED' (or 'house-sloppy', 'random-legal', 'house-paired', with ':SEED' too), "
    "'openai:MODEL' or 'PROVIDER:MODEL' (init_chat_model)"
)


def parse_house_seed(spec: str) -> int | None:
    """The seed of a ``house[:SEED]`` spec (or of a house variant's), or None if the spec names
    another model."""
    name, _, seed = spec.partition(":")
    if name not in SKILLS:
        return None
    if not seed:
        return 0
    if not re.fullmatch(r"-?[0-9]+", seed):  # ASCII digits only: int() refuses "²" and "--5"
        raise ModelSpecError(f"model {spec!r}: the house seed must be an integer; {SPEC_HELP}")
    if not SEED_MIN <= int(seed) <= SEED_MAX:
        raise ModelSpecError(f"model {spec!r}: the house seed must fit in 64 bits ({SEED_MIN} to {SEED_MAX})")
    return int(seed)


def settings_for(spec: str | ModelSettings) -> ModelSettings:
    """The settings of a spec or settings object (a bare spec gets the defaults)."""
    if isinstance(spec, ModelSettings):
        return spec
    try:
        return ModelSettings(model=spec)
    except ValidationError as exc:
        raise ModelSpecError(f"model {spec!r}: {SPEC_HELP}") from exc


def build_model(spec: str | ModelSettings) -> BaseChatModel:
    """A new chat model for ``spec`` with its settings (no network until it is called)."""
    settings = settings_for(spec)
    seed = parse_house_seed(settings.model)
    if seed is not None:
        return house_variant(settings.model.partition(":")[0], seed)
    provider, sep, name = settings.model.partition(":")
    if not sep or not provider or not name:
        raise ModelSpecError(f"model {settings.model!r}: {SPEC_HELP}")
    kwargs = _client_kwargs(settings)
    if provider == "openai":
        from langchain_openai import ChatOpenAI
        from openai import DefaultHttpxClient, OpenAIError

        # The client keeps each reply's body for the call that asked for it: the provider's usage
        # figures (and llama.cpp's timings), and the answer's text when the SDK's parse rejects it.
        client = DefaultHttpxClient(event_hooks={"response": [keep_reply]})
        try:
            return ChatOpenAI(model=name, http_client=client, **kwargs)
        except OpenAIError as exc:  # no key: say which settings it needs, not a traceback
            raise ModelSpecError(
                f"model {settings.model!r}: {exc} (set OPENAI_API_KEY, and OPENAI_BASE_URL for "
                "another server, or base_url and api_key_env in a game file)"
            ) from exc
    try:
        from langchain.chat_models import init_chat_model  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ModelSpecError(
            f"model {settings.model!r}: provider {provider!r} needs `pip install langchain` and its "
            f"provider package; {SPEC_HELP}"
        ) from exc
    try:
        chat: BaseChatModel = init_chat_model(settings.model, **kwargs)
    except (ImportError, ValueError) as exc:
        raise ModelSpecError(f"model {settings.model!r}: {exc}") from exc
    return chat


def _client_kwargs(settings: ModelSettings) -> dict[str, Any]:
    """The chat model's constructor arguments for ``settings`` (unset options left out, so the
    provider's own defaults stand)."""
    kwargs: dict[str, Any] = {
        "timeout": settings.timeout,
        "max_retries": settings.request_retries,
        "max_tokens": settings.max_tokens,
    }
    optional = {"temperature": settings.temperature, "seed": settings.seed, "extra_body": settings.extra_body}
    kwargs.update({key: value for key, value in optional.items() if value is not None})
    if settings.api_key_env is not None:
        key = os.environ.get(settings.api_key_env)
        if not key:
            raise ModelSpecError(
                f"model {settings.model!r}: api_key_env names {settings.api_key_env}, "
                "which is not set in the environment"
            )
        kwargs["api_key"] = key
    if settings.base_url is not None:
        kwargs["base_url"] = settings.base_url
        kwargs.setdefault("api_key", LOCAL_API_KEY)
    if settings.requests_per_second is not None:
        kwargs["rate_limiter"] = _limiter(settings.provider_key(), settings.requests_per_second)
    return kwargs


_limiters: dict[str, InMemoryRateLimiter] = {}
_gates: dict[str, CallGate] = {}


def _limiter(provider: str, per_second: float) -> InMemoryRateLimiter:
    """The provider's one rate limiter; the strictest rate asked for it applies to all its models."""
    with _lock:
        limiter = _limiters.get(provider)
        if limiter is None:
            limiter = _limiters[provider] = InMemoryRateLimiter(
                requests_per_second=per_second, check_every_n_seconds=0.05
            )
        limiter.requests_per_second = min(limiter.requests_per_second, per_second)
        return limiter


class CallGate:
    """At most ``limit`` calls in flight on one provider; narrowing it applies to later calls."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self._free = threading.Condition()

    def narrow(self, limit: int) -> None:
        with self._free:
            self.limit = min(self.limit, limit)

    def __enter__(self) -> None:
        with self._free:
            self._free.wait_for(lambda: self.active < self.limit)
            self.active += 1

    def __exit__(self, *exc: object) -> None:
        with self._free:
            self.active -= 1
            self._free.notify()


def _gate(settings: ModelSettings) -> CallGate | None:
    """The provider's concurrency cap, shared by its models (the smallest cap asked applies)."""
    if settings.max_concurrent is None:
        return None
    with _lock:
        gate = _gates.setdefault(settings.provider_key(), CallGate(settings.max_concurrent))
        gate.narrow(settings.max_concurrent)
        return gate


def resolve_model(spec: BaseChatModel | str | ModelSettings) -> BaseChatModel:
    """The chat model for a spec, settings or instance; equal specs and settings are built once per
    process and reused."""
    if isinstance(spec, BaseChatModel):
        return spec
    settings = settings_for(spec)
    key = settings.key()
    with _lock:
        if key not in _models:
            _models[key] = model = build_model(settings)
            if parse_house_seed(settings.model) is None:  # the house model takes no call settings
                _settings[id(model)] = settings
        return _models[key]


def model_settings(model: BaseChatModel) -> ModelSettings | None:
    """The settings ``model`` was built with here, or None for a model given as an instance."""
    return _settings.get(id(model))


def model_dialect(model: BaseChatModel) -> str:
    """How ``model`` is asked for structured output: its settings' dialect ("stable" for a model
    given as an instance)."""
    settings = model_settings(model)
    return settings.dialect if settings is not None else "stable"


_reply: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("mafia_reply", default=None)
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "cached_tokens", "cache_n", "prompt_n")


def keep_reply(response: httpx.Response) -> None:
    """An HTTP response hook: the JSON body of a successful reply, kept for the call being made
    (``StructuredCall`` opens a box per call; a retried request leaves its last reply)."""
    box = _reply.get()
    if box is None or response.status_code != 200:
        return
    response.read()
    try:
        body = response.json()
    except ValueError:
        return
    if isinstance(body, dict):
        box["body"] = body


def provider_usage(body: Mapping[str, Any] | None, message: Any = None) -> dict[str, Any] | None:
    """The usage a provider reported for one call, or None when it reported nothing: OpenAI's
    ``usage`` (with ``prompt_tokens_details.cached_tokens``) and llama.cpp's ``timings``
    (``cache_n``, the prompt tokens served from its cache, ``prompt_n``, and the milliseconds it
    spent evaluating the prompt, ``prompt_ms``, and generating, ``predicted_ms``), each None where
    absent. Without a kept body, the usage a chat model put in its message's metadata."""
    usage: Any = (body or {}).get("usage")
    timings: Any = (body or {}).get("timings")
    if body is None and isinstance(message, BaseMessage):
        usage = message.response_metadata.get("token_usage")
    usage = usage if isinstance(usage, Mapping) else {}
    timings = timings if isinstance(timings, Mapping) else {}
    if not usage and not timings:
        return None
    details = usage.get("prompt_tokens_details")
    details = details if isinstance(details, Mapping) else {}
    found = {
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "cached_tokens": details.get("cached_tokens"),
        "cache_n": timings.get("cache_n"),
        "prompt_n": timings.get("prompt_n"),
    }
    counts = {key: value if isinstance(value, int) else None for key, value in found.items()}
    times = {key: timings.get(key) for key in ("prompt_ms", "predicted_ms")}
    return {**counts, **{key: _milliseconds(value) for key, value in times.items()}}


def _milliseconds(value: Any) -> float | None:
    """A reported duration in milliseconds, rounded to one microsecond; None if it is no number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return round(float(value), 3)


def reply_content(body: Mapping[str, Any] | None) -> str:
    """The answer's text in a kept reply body (its first choice's content), or ""."""
    try:
        content = (body or {})["choices"][0]["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        return ""
    return content if isinstance(content, str) else ""


@dataclass(frozen=True)
class CallInFlight:
    """A model call being waited for: whose turn, which model, since when (``time.monotonic``)."""

    player: str
    model: str
    started: float


_in_flight: dict[int, CallInFlight] = {}


def calls_in_flight() -> list[CallInFlight]:
    """The model calls being waited for now, oldest first."""
    with _lock:
        return sorted(_in_flight.values(), key=lambda call: call.started)


REPLY_ATTRIBUTE = "mafia_reply"


def reply_of(exc: BaseException) -> dict[str, Any] | None:
    """The reply body kept for the call that raised ``exc`` (a refusal, a cut answer), if any."""
    body = getattr(exc, REPLY_ATTRIBUTE, None)
    return body if isinstance(body, dict) else None


class StructuredCall:
    """A model bound to an action schema: ``invoke`` returns ``{"raw", "parsed", "parsing_error"}``.

    Same contract as ``with_structured_output(schema, include_raw=True)``, but the model's own
    ``llm | parser`` sequence is run step by step: the include_raw wrapper starts a thread pool
    on every call, which costs more than a whole turn of the engine. A model built from settings
    is called with its per-action output limit and within its provider's concurrency cap (in
    ``json_mode`` the prompt itself states the schema: see ``states_schema``).
    """

    def __init__(
        self, model: BaseChatModel, schema: type[BaseModel], settings: ModelSettings | None = None
    ) -> None:
        self.settings = settings
        self.gate = _gate(settings) if settings is not None else None
        method: dict[str, Any] = (
            {"method": settings.method} if settings is not None and settings.method else {}
        )
        chain = model.with_structured_output(schema, **method)
        if isinstance(chain, RunnableSequence):
            llm = RunnableSequence(*chain.steps[:-1]) if len(chain.steps) > 2 else chain.first
            self.llm: Runnable[Any, Any] = _without_schema_metadata(llm)
            self.parser: Runnable[Any, Any] | None = chain.last
            self.fallback: Runnable[Any, Any] | None = None
        else:
            self.llm, self.parser = chain, None
            self.fallback = model.with_structured_output(schema, include_raw=True, **method)

    def invoke(
        self, messages: Any, config: RunnableConfig | None = None, *, action: str | None = None
    ) -> dict[str, Any]:
        """Ask for one answer. ``action`` (by default the turn's ``action`` run metadata, which
        the player turn sets) picks the output limit."""
        if self.gate is None:
            return self._call(messages, config, action)
        with self.gate:
            return self._call(messages, config, action)

    def _call(self, messages: Any, config: RunnableConfig | None, action: str | None) -> dict[str, Any]:
        """One call; the result also holds the provider's ``usage`` and the answer's ``content``
        as the reply carried them (None and "" where the model kept no reply)."""
        box: dict[str, Any] = {}
        token = _reply.set(box)
        metadata = (config or {}).get("metadata", {})
        waiting = CallInFlight(
            str(metadata.get("player", "")), str(metadata.get("model", "")), time.monotonic()
        )
        with _lock:
            _in_flight[id(box)] = waiting
        try:
            result = self._ask(messages, config, action)
        except (OutputParserException, ValidationError) as exc:  # the SDK's own parse of the answer
            result = {"raw": None, "parsed": None, "parsing_error": exc}
        except Exception as exc:
            if "body" in box:
                setattr(exc, REPLY_ATTRIBUTE, box["body"])
            raise
        finally:
            _reply.reset(token)
            with _lock:
                _in_flight.pop(id(box), None)
        body = box.get("body")
        return {**result, "usage": provider_usage(body, result.get("raw")), "content": reply_content(body)}

    def _ask(self, messages: Any, config: RunnableConfig | None, action: str | None) -> dict[str, Any]:
        # A provider request may never return: it is made cancellable. The house model and models
        # given as instances answer on the calling thread (no thread hand-off per turn).
        request = _cancellable if self.settings is not None else _direct
        if self.fallback is not None:
            fallback = self.fallback
            result: dict[str, Any] = request(lambda: fallback.invoke(messages, config))
            return result
        kwargs = limit_kwargs(self.settings, config, action)
        raw = request(lambda: self.llm.invoke(messages, config, **kwargs))
        assert self.parser is not None
        try:
            parsed = self.parser.invoke(raw, config)
        except (OutputParserException, ValidationError, ValueError) as exc:  # LangChain's parse
            return {"raw": raw, "parsed": None, "parsing_error": exc}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}


def limit_kwargs(
    settings: ModelSettings | None, config: RunnableConfig | None, action: str | None = None
) -> dict[str, Any]:
    """The call's output limit for ``action`` (by default the turn's ``action`` run metadata), when
    it is not the model's own default."""
    if settings is None:
        return {}
    action = action or (config or {}).get("metadata", {}).get("action")
    limit = settings.tokens_for(action)
    return {"max_tokens": limit} if limit != settings.max_tokens else {}


def provider_call(model: BaseChatModel, call: Callable[[dict[str, Any]], Any], config: RunnableConfig) -> Any:
    """``call(kwargs)`` made as a structured call makes its request: within the provider's
    concurrency cap, cancellable, with the action's output limit in ``kwargs`` (calls that bind
    other tools than the answer's: recall)."""
    settings = model_settings(model)
    kwargs = limit_kwargs(settings, config)
    request = _cancellable if settings is not None else _direct
    gate = _gate(settings) if settings is not None else None
    if gate is None:
        return request(lambda: call(kwargs))
    with gate:
        return request(lambda: call(kwargs))


_cancelled = threading.Event()
_waiting: set[threading.Event] = set()


def cancel_calls() -> None:
    """Give up every model call in flight and refuse new ones, for the rest of the process.

    Called on Ctrl-C: a request a server never answers would otherwise hold its worker thread, and
    LangGraph waits for every task of a step before a run can end.
    """
    with _lock:
        _cancelled.set()
        for done in _waiting:
            done.set()


def _cancellable(call: Callable[[], Any]) -> Any:
    """Run one provider request on its own daemon thread and wait for it, or for ``cancel_calls``
    (an abandoned request ends with the process; a thread costs far less than a request)."""
    done = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the waiting thread as it is
            box["error"] = exc
        finally:
            done.set()

    with _lock:
        if _cancelled.is_set():
            raise CallCancelled("the run was interrupted")
        _waiting.add(done)
    try:
        context = contextvars.copy_context()  # tracing and callbacks follow the call
        threading.Thread(target=context.run, args=(run,), daemon=True, name="model-call").start()
        done.wait()
    finally:
        with _lock:
            _waiting.discard(done)
    if "error" in box:
        raise box["error"]
    if "value" not in box:
        raise CallCancelled("the run was interrupted")
    return box["value"]


def _direct(call: Callable[[], Any]) -> Any:
    return call()


def states_schema(model: BaseChatModel) -> bool:
    """Whether ``model`` is called in ``json_mode``: the server enforces JSON only, so the prompt's
    system message states the schema (context/builder.py renders that note)."""
    settings = model_settings(model)
    return settings is not None and settings.method == "json_mode"


def _without_schema_metadata(llm: Runnable[Any, Any]) -> Runnable[Any, Any]:
    """Drop the binding's ``ls_structured_output_format``: it only labels traces, and langchain
    re-derives the whole JSON schema from it on every call (milliseconds per turn)."""
    if isinstance(llm, RunnableBinding) and "ls_structured_output_format" in llm.kwargs:
        kwargs = {k: v for k, v in llm.kwargs.items() if k != "ls_structured_output_format"}
        return RunnableBinding(bound=llm.bound, kwargs=kwargs, config=llm.config)
    return llm


def structured(model: BaseChatModel, schema: type[BaseModel]) -> StructuredCall:
    """The model bound to ``schema`` for structured answers, built once per model and schema."""
    key = (id(model), schema)
    with _lock:
        if key in _structured:
            _structured.move_to_end(key)
        else:
            _structured[key] = (model, StructuredCall(model, schema, model_settings(model)))
            if len(_structured) > STRUCTURED_CACHE_SIZE:
                _structured.popitem(last=False)
        return _structured[key][1]
