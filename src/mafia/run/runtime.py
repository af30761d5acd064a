"""Run-time context of a game: the models per seat, retry limits and the context policy.

Models are run-scoped dependencies, not state: they never enter a checkpoint. Models may be given
as LangChain chat model instances, as model specs (``"house"``, ``"openai:gpt-4o-mini"``, ...) or
as ``ModelSettings`` (a spec with its call settings), resolved by ``mafia.models.factory``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langgraph.runtime import Runtime
from pydantic import ValidationError, WithJsonSchema

from mafia.context.policy import DEFAULT_POLICY, POLICIES, ContextPolicy
from mafia.game.actions import TextLimits
from mafia.models.settings import ModelSettings, first_error
from mafia.run.inputs import from_mapping, init_fields, policy_from_input

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


@dataclass(kw_only=True, init=False)
class GameContext:
    """Run-time choices for one game, read by nodes through ``runtime.context``.

    Built from keywords, as LangGraph builds it from a run's JSON context: an unknown key, a wrong
    type or a bad value is refused with one line naming the key and what is allowed."""

    model: ModelSetting = "house"
    """The model for every seat not listed in ``seat_models``."""
    seat_models: Mapping[str, ModelSetting] = field(default_factory=dict)
    """Per-seat models, keyed by seat number ("3") or player name ("Player 3")."""
    max_retries: int = 2
    """Re-asks after a malformed or illegal answer before the legal fallback is applied."""
    policy: ContextPolicy = field(default_factory=lambda: POLICIES[DEFAULT_POLICY])
    """How each player's context is built (window, budget, full transcript): a registered policy's
    name, its settings, or a policy; by default ``DEFAULT_POLICY``."""
    summariser: ModelSetting | None = None
    """Who writes the cold days' summary under a policy with summaries: a model, ``"seat:N"`` for
    that seat's model, or None for ``model``."""
    text_limits: TextLimits = field(default_factory=TextLimits)
    """The longest text kept of each model-written field (speech, message, plan, reasoning); a
    longer one is cut and the cut logged as a ``text_truncated`` event."""
    change_run: list[str] = field(default_factory=list)
    """What a resumed run may change from what it was started as: "model" (models, people, retries)
    and "policy". Each change is logged as a ``run_changed`` event; any other is refused."""

    def __init__(self, **values: Any) -> None:
        init_fields(self, values, "context")
        self.__post_init__()

    def __post_init__(self) -> None:
        # A context given as JSON (Studio, the API) arrives with the policy (or its name), the text
        # limits and model settings as plain values; a bad one is refused here, before the run.
        self.policy = policy_from_input(self.policy)
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
            self.text_limits = from_mapping("text_limits", TextLimits, self.text_limits)
        allowed = ("model", "policy")
        if not isinstance(self.change_run, list | tuple) or not set(self.change_run) <= set(allowed):
            raise ValueError(f"change_run: must be a list of {', '.join(allowed)}, got {self.change_run!r}")
        self.change_run = list(self.change_run)
        retries = self.max_retries
        if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
            raise ValueError(f"max_retries: must be an integer of 0 or more, got {retries!r}")

    def model_spec(self, player: str, seat: int) -> ModelLike:
        """The model (or model spec) that plays ``player`` at ``seat``."""
        for key in (player, str(seat)):
            if key in self.seat_models:
                return self.seat_models[key]
        named = player.casefold()  # a name in any case, as the command line and replays take it
        return next((m for k, m in self.seat_models.items() if k.strip().casefold() == named), self.model)


def _settings_of(where: str, model: Any) -> Any:
    """A model given as JSON settings (a mapping) as ``ModelSettings``; anything else as it is."""
    if not isinstance(model, Mapping):
        return model
    try:
        return ModelSettings(**model)
    except ValidationError as exc:
        raise ValueError(f"{where}.{first_error(exc)}") from None


DEFAULT_CONTEXT = GameContext()


def game_context(runtime: Runtime[GameContext]) -> GameContext:
    """The run's context, or the defaults (house model everywhere) when a run was started
    without one, as Studio and plain ``graph.invoke`` calls may be."""
    context: GameContext | None = runtime.context
    return context if context is not None else DEFAULT_CONTEXT
