"""Replays of a finished or stopped game from its run folder: the game as the table saw it or with
every private action, the exact prompts one seat received, and a self-contained HTML page."""

from mafia.replay.run_folder import ReplayError, RunFolder, load_run

__all__ = ["ReplayError", "RunFolder", "load_run"]
