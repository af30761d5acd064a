"""Arenas: many games played at once, paired across context policies and models, resumable, with
their results, metrics and report under ``runs/arena-<id>/``. ``run_arena`` is the entry point
(loaded on first use, so ``mafia arena --help`` does not load the engine)."""

from typing import TYPE_CHECKING

from mafia.lazy import lazy_exports

if TYPE_CHECKING:
    from mafia.arena.run import run_arena

__all__ = ["run_arena"]

__getattr__ = lazy_exports(__name__, {"run_arena": "mafia.arena.run"})
