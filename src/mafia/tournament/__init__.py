"""Tournaments: several models at one table, seated so that each plays every role equally often
on paired deals, rated per role from the logs. ``run_tournament`` is the entry point (loaded on
first use, so ``mafia tournament --help`` does not load the engine)."""

from typing import TYPE_CHECKING

from mafia.lazy import lazy_exports

if TYPE_CHECKING:
    from mafia.tournament.run import run_tournament

__all__ = ["run_tournament"]

__getattr__ = lazy_exports(__name__, {"run_tournament": "mafia.tournament.run"})
