"""Run-time context of a game: the models per seat, retry limits and the context policy.

Models are run-scoped dependencies, not state: they never enter a checkpoint. Models may be given
as LangChain chat model instances or as model specs (``"house"``, ``"openai:gpt-4o-mini"``, ...)
resolved by ``mafia.models.factory``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langgraph.runtime import Runtime
from pydantic import WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from mafia.answers import TextLimits
from mafia.context.policy import ContextPolicy

ModelLike = BaseChatModel | str
# Studio and the API give models as spec strings; Python callers may also pass instances.
ModelSetting = Annotated[
    ModelLike,
    WithJsonSchema({"type": "string", "description": "house, house:SEED, openai:MODEL or PROVIDER:MODEL"}),
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
    text_limits: TextLimits = field(default_factory=TextLimits)
    """The longest text kept of each model-written field (speech, message, plan, reasoning); a
    longer one is cut and the cut logged as a ``text_truncated`` event."""
    on_prompt: SkipJsonSchema[Callable[[dict[str, Any]], None] | None] = None
    """Receives each finished turn's prompt record (from the turn's thread). ``run_game`` sets it;
    graph users can stream ``"custom"`` instead, which costs every turn a hand-off to a thread."""

    def __post_init__(self) -> None:
        # A context given as JSON (Studio, the API) arrives with the policy as a plain mapping.
        if isinstance(self.policy, Mapping):
            self.policy = ContextPolicy(**self.policy)
        if isinstance(self.text_limits, Mapping):
            self.text_limits = TextLimits(**self.text_limits)
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {self.max_retries}")

    def model_spec(self, player: str, seat: int) -> ModelLike:
        """The model (or model spec) that plays ``player`` at ``seat``."""
        for key in (player, str(seat)):
            if key in self.seat_models:
                return self.seat_models[key]
        return self.model


DEFAULT_CONTEXT = GameContext()


def game_context(runtime: Runtime[GameContext]) -> GameContext:
    """The run's context, or the defaults (house model everywhere) when a run was started
    without one, as Studio and plain ``graph.invoke`` calls may be."""
    context: GameContext | None = runtime.context
    return context if context is not None else DEFAULT_CONTEXT
