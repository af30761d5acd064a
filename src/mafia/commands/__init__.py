"""The command line's floor below ``mafia.cli``: its option frame, the checks made before a game
starts, what the terminal shows, and ``mafia serve``."""
