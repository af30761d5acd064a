"""What a game's calls leave behind: the kinds of call, their records, what they cost, and the
prompt pack and prefix cache the records are stored and read with."""
