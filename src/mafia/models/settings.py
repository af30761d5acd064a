"""Per-model call settings: what a chat model built from a spec is given, with defaults for a game.

A game makes a few hundred calls, some of them at once, and must neither hang on a silent server
nor stop on a passing fault; so every model built from a spec gets a request timeout, an output
limit, bounded client retries and, where set, a provider-wide rate limit and concurrency cap.
Models given as instances are used as they are.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, field
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.dataclasses import dataclass

from mafia.game.actions import ActionKind
from mafia.game.rules import SEED_MAX, SEED_MIN
from mafia.models.schema_dialect import Dialect, infer_dialect, min_output_tokens, worst_shape

StructuredMethod = Literal["json_schema", "function_calling", "json_mode"]
ACTIONS = tuple(kind.value for kind in ActionKind)

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_TOKENS = 4096
DEFAULT_REQUEST_RETRIES = 2
LOCAL_API_KEY = "unused"
"""Sent to a ``base_url`` given without ``api_key_env``: local servers ignore the key, and a key
from the environment is never sent to a server the user did not pair it with."""


@dataclass(frozen=True, kw_only=True, config=ConfigDict(extra="forbid", strict=True))
class ModelSettings:
    """One seat's model and how it is called. Every field but ``model`` is optional; the defaults
    suit a real game. Settings a provider has no use for (the house model's) are ignored."""

    model: Annotated[str, Field(min_length=1)] = "house"
    """The model spec: ``house``, ``house:SEED``, ``openai:MODEL`` or ``PROVIDER:MODEL``."""
    base_url: str | None = None
    """The server's OpenAI-compatible API root, e.g. ``http://127.0.0.1:8080/v1``."""
    api_key_env: str | None = None
    """The name of the environment variable holding the API key (never the key itself)."""
    timeout: Annotated[float, Field(gt=0, le=3600)] = DEFAULT_TIMEOUT
    """Seconds a request may take before it counts as failed (then retried, see below)."""
    max_tokens: Annotated[int, Field(ge=16)] = DEFAULT_MAX_TOKENS
    """Output token limit of every answer: enough for the full structured answer of a 16-seat game."""
    action_max_tokens: dict[str, Annotated[int, Field(ge=16)]] = field(default_factory=dict)
    """Per-action output limits (``speak``, ``vote``, ...) that replace ``max_tokens``."""
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    """Sampling temperature; None keeps the provider's default."""
    seed: Annotated[int, Field(ge=SEED_MIN, le=SEED_MAX)] | None = None
    """The provider's sampling seed, where it has one (reproducible answers)."""
    request_retries: Annotated[int, Field(ge=0, le=10)] = DEFAULT_REQUEST_RETRIES
    """The client's own retries of a provider fault (429 honouring Retry-After, 5xx, timeouts,
    dropped connections), with backoff; past them the game stops and can be resumed."""
    method: StructuredMethod | None = None
    """How the answer schema is enforced: ``json_schema`` (OpenAI's default), ``function_calling``,
    or ``json_mode`` (JSON output, the schema stated in the system message) for servers without
    either."""
    requests_per_second: Annotated[float, Field(gt=0)] | None = None
    """Rate limit shared by every model on the same provider (see ``provider_key``)."""
    max_concurrent: Annotated[int, Field(ge=1)] | None = None
    """Most calls in flight at once on the same provider; a local server's slot count."""
    extra_body: dict[str, Any] | None = None
    """Extra JSON fields of an OpenAI-compatible request, e.g. ``{"repeat_penalty": 1.15}``."""
    schema: Dialect | None = None
    """The answer schema's dialect (``mafia.models.schema_dialect``): ``grammar`` bounds every ask for a
    server that compiles the schema into a grammar, ``stable`` keeps one schema all game for a
    provider that bills and caches it. None infers it from the server (see ``dialect``)."""

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"https?://[^\s/]+", value):
            raise ValueError(f"must be an http:// or https:// URL, got {value!r}")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.fullmatch(value):
            raise ValueError(f"must be an environment variable name (letters, digits, _), got {value!r}")
        return value

    @field_validator("action_max_tokens")
    @classmethod
    def _known_actions(cls, value: dict[str, int]) -> dict[str, int]:
        unknown = sorted(set(value) - set(ACTIONS))
        if unknown:
            raise ValueError(f"unknown action {unknown[0]!r}; allowed: {', '.join(ACTIONS)}")
        return value

    @model_validator(mode="after")
    def _grammar_fits(self) -> ModelSettings:
        if self.schema == "grammar" and self.method == "json_mode":
            raise ValueError(
                "schema: 'grammar' needs a server that enforces the schema, which json_mode does not; "
                "allowed with json_mode: 'stable'"
            )
        # Only a grammar asked for is checked here: inferring one asks the server what it is, which
        # reading settings must not wait on (a server reads them inside its event loop).
        short = self._too_short_for_grammar() if self.schema == "grammar" else None
        if short is not None:
            raise ValueError(short)
        return self

    def _too_short_for_grammar(self) -> str | None:
        """Why the output limits cannot hold a grammar-bounded answer, or None when they can."""
        needed = min_output_tokens(worst_shape())
        for action in ACTIONS:
            if self.tokens_for(action) < needed:
                where = f"action_max_tokens.{action}" if action in self.action_max_tokens else "max_tokens"
                return (
                    f"{where}: {self.tokens_for(action)} is too small for schema 'grammar' "
                    f"(answers need at least {needed} tokens); raise it or set schema = 'stable'"
                )
        return None

    @property
    def dialect(self) -> Dialect:
        """The answer schema's dialect: the ``schema`` setting, else ``grammar`` for a ``base_url``
        server that shows itself to be llama.cpp, vLLM or Ollama, and ``stable`` for any other
        (``schema_dialect.infer_dialect``; asked when a turn first needs it), ``stable`` too when
        the output limits are too small for a bounded answer."""
        if self.schema is not None:
            return self.schema
        if self.provider == "house":
            return "stable"
        url = self.base_url
        if url is None and self.provider == "openai":
            url = os.environ.get("OPENAI_BASE_URL") or None
        inferred = infer_dialect(self.provider, url, self.method)
        return "stable" if inferred == "grammar" and self._too_short_for_grammar() else inferred

    @property
    def provider(self) -> str:
        """The spec's provider part (``openai``, ``house``, ...)."""
        return self.model.partition(":")[0]

    def provider_key(self) -> str:
        """What the rate limit and concurrency cap are shared by: the server's URL where there is
        one, otherwise the provider's name."""
        if self.base_url:
            return self.base_url.rstrip("/")
        if self.provider == "openai":
            return os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        return self.provider

    def tokens_for(self, action: str | None) -> int:
        """The output limit of one answer to ``action``."""
        return self.action_max_tokens.get(action or "", self.max_tokens)

    def key(self) -> str:
        """A canonical text of every field: equal settings build one shared model."""
        return json.dumps(asdict(self), sort_keys=True, default=str)


def first_error(exc: ValidationError) -> str:
    """A settings error in one line: the field's dotted path and what is wrong with it."""
    error = exc.errors()[0]
    loc = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    if not loc:  # a check of several fields names its field in the message
        return message
    got = error.get("input")
    if error["type"] != "value_error" and isinstance(got, str | int | float | bool):
        message += f", got {got!r}"
    return f"{loc}: {message}"
