"""Run-time context of a game: the models per seat, retry limits and the context policy.

Models are run-scoped dependencies, not state: they never enter a checkpoint. Models may be given
as LangChain chat model instances, as model specs (``"house"``, ``"openai:gpt-4o-mini"``, ...) or
as ``ModelSettings`` (a spec with its call settings), resolved by ``mafia.models.factory``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, TypeVar, cast

from langchain_core.language_models import BaseChatModel
from langgraph.runtime import Runtime
from pydantic import ValidationError, WithJsonSchema

from mafia.answers import TextLimits
from mafia.context.policy import ContextPolicy
from mafia.models.settings import ModelSettings, first_error

T = TypeVar("T")

ModelLike = BaseChatModel | str | ModelSettings
# Studio and the API give models as spec strings or settings objects; Python callers may also pass
# instances.
ModelSetting = Annotated[
    ModelLike,
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "description": "house, house:SEED, openai:MODEL or PROVIDER:MODEL"},
                {
                    "type": "object",
                    "description": "model settings: model (the spec), base_url, api_key_env, timeout, "
                    "max_tokens, action_max_tokens, temperature, seed, request_retries, method, "
                    "requests_per_second, max_concurrent, extra_body",
                },
            ]
        }
    ),
]


@dataclass(kw_only=True)
class GameContext:
    """Run-time choices for one game, read by nodes through ``runtime.context``."""

    model: ModelSetting = "house"
    """The model for every seat not listed in ``seat_models``."""
    seat_models: Mapping[str, ModelSetting] = field(default_factory=dict)
    """Per-seat models, keyed by seat number ("3") or player name ("Player 3")."""
    max_retries: int = 2
    """Re-asks after a malformed or illegal answer before the legal fallback is applied."""
    policy: ContextPolicy = field(default_factory=ContextPolicy)
    """How each player's context is built (window, budget, full transcript)."""
    summariser: ModelSetting | None = None
    """Who writes the cold days' summary under a policy with summaries: a model, ``"seat:N"`` for
    that seat's model, or None for ``model``."""
    text_limits: TextLimits = field(default_factory=TextLimits)
    """The longest text kept of each model-written field (speech, message, plan, reasoning); a
    longer one is cut and the cut logged as a ``text_truncated`` event."""

    def __post_init__(self) -> None:
        # A context given as JSON (Studio, the API) arrives with the policy, the text limits and
        # model settings as plain mappings; a bad one is refused here, before the run starts.
        if isinstance(self.policy, Mapping):
            self.policy = _from_mapping("policy", ContextPolicy, self.policy)
        self.model = _settings_of("model", self.model)
        self.summariser = _settings_of("summariser", self.summariser)
        chosen = self.summariser
        if isinstance(chosen, str) and chosen.startswith("seat:") and not chosen[5:].isdigit():
            raise ValueError(f"summariser: a seat is 'seat:N' with N a seat number, got {chosen!r}")
        if not isinstance(self.seat_models, Mapping):
            raise ValueError(
                f"seat_models: must map seat numbers or names to models, got {self.seat_models!r}"
            )
        self.seat_models = {
            seat: _settings_of(f"seat_models.{seat}", m) for seat, m in self.seat_models.items()
        }
        if isinstance(self.text_limits, Mapping):
            self.text_limits = _from_mapping("text_limits", TextLimits, self.text_limits)
        if not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {self.max_retries!r}")

    def model_spec(self, player: str, seat: int) -> ModelLike:
        """The model (or model spec) that plays ``player`` at ``seat``."""
        for key in (player, str(seat)):
            if key in self.seat_models:
                return self.seat_models[key]
        return self.model


def _settings_of(where: str, model: Any) -> Any:
    """A model given as JSON settings (a mapping) as ``ModelSettings``; anything else as it is."""
    if not isinstance(model, Mapping):
        return model
    try:
        return ModelSettings(**model)
    except ValidationError as exc:
        raise ValueError(f"{where}.{first_error(exc)}") from None


def _from_mapping(where: str, kind: type[T], values: Mapping[str, Any]) -> T:
    """``kind`` built from a JSON mapping; an unknown key is refused naming the allowed ones."""
    allowed = [f.name for f in fields(cast(Any, kind)) if f.init]
    unknown = sorted(set(values) - set(allowed))
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown setting; allowed: {', '.join(allowed)}")
    return kind(**values)


DEFAULT_CONTEXT = GameContext()


def game_context(runtime: Runtime[GameContext]) -> GameContext:
    """The run's context, or the defaults (house model everywhere) when a run was started
    without one, as Studio and plain ``graph.invoke`` calls may be."""
    context: GameContext | None = runtime.context
    return context if context is not None else DEFAULT_CONTEXT
