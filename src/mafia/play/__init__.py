"""Playing a game from Python: the runner that streams the graph and writes the logs as the game
goes, and the checkpoint stores it resumes from."""
