"""Replays of a finished or stopped game from its run folder: the game as the table saw it or with
every private action, the exact prompts one seat received, and a self-contained HTML page. The
names load on first use, so ``mafia replay --help`` does not load the engine."""

from typing import TYPE_CHECKING

from mafia.lazy import lazy_exports

if TYPE_CHECKING:
    from mafia.replay.run_folder import ReplayError, RunFolder, load_run

__all__ = ["ReplayError", "RunFolder", "load_run"]

__getattr__ = lazy_exports(__name__, {name: "mafia.replay.run_folder" for name in __all__})
