"""Run-time context of a game: the models per seat, retry limits and the context policy.

Models are run-scoped dependencies, not state: they never enter a checkpoint. Models may be given
as LangChain chat model instances or as model specs (``"house"``, ``"openai:gpt-4o-mini"``, ...)
resolved by ``mafia.models.factory``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from mafia.context.policy import ContextPolicy

ModelLike = BaseChatModel | str


@dataclass(kw_only=True)
class GameContext:
    """Run-time choices for one game, read by nodes through ``runtime.context``."""

    model: ModelLike = "house"
    """The model for every seat not listed in ``seat_models``."""
    seat_models: Mapping[str, ModelLike] = field(default_factory=dict)
    """Per-seat models, keyed by seat number ("3") or player name ("Player 3")."""
    max_retries: int = 2
    """Re-asks after a malformed or illegal answer before the legal fallback is applied."""
    policy: ContextPolicy = field(default_factory=ContextPolicy)
    """How each player's context is built (window, budget, full transcript)."""
    on_prompt: Callable[[dict[str, Any]], None] | None = None
    """Receives each finished turn's prompt record (from the turn's thread). ``run_game`` sets it;
    graph users can stream ``"custom"`` instead, which costs every turn a hand-off to a thread."""

    def model_spec(self, player: str, seat: int) -> ModelLike:
        """The model (or model spec) that plays ``player`` at ``seat``."""
        for key in (player, str(seat)):
            if key in self.seat_models:
                return self.seat_models[key]
        return self.model
