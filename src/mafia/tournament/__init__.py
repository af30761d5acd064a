"""Tournaments: several models at one table, seated so that each plays every role equally often
on paired deals, rated per role from the logs. ``run_tournament`` is the entry point."""

from mafia.tournament.run import run_tournament

__all__ = ["run_tournament"]
