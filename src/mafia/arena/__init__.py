"""Arenas: many games played at once, paired across context policies and models, resumable, with
their results, metrics and report under ``runs/arena-<id>/``. ``run_arena`` is the entry point."""

from mafia.arena.run import run_arena

__all__ = ["run_arena"]
