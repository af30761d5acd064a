"""The rare paths a game's log shows (ties, revotes, Round 2, saves, each way a game ends), so the
sweeps can show they take every one of them."""

from __future__ import annotations

from mafia.game.state import JSON

RARE = (
    "tie_then_defense",
    "revote_eliminates",
    "revote_ties",
    "round2",
    "round2_split",
    "lone_mafia_kill",
    "doctor_saves",
    "no_nominee",
    "draw",
    "town_wins",
    "mafia_wins",
    "last_words_end_the_game",
)
"""Every rare path ``rare_paths`` names."""


def rare_paths(events: list[JSON]) -> set[str]:
    """The names of the rare paths one game took, read from its log."""
    found: set[str] = set()
    for i, event in enumerate(events):
        kind = event["type"]
        if kind == "vote_round":
            if event["revote"]:
                found.add("revote_eliminates" if event["eliminated"] else "revote_ties")
            elif event["outcome"] == "tie":
                found.add("tie_then_defense")
            elif event["outcome"] == "no_vote":
                found.add("no_nominee")
        elif kind == "mafia_vote":
            if event["coordination_round"] == 0:
                found.add("lone_mafia_kill")
            elif event["coordination_round"] == 2:
                found.add("round2")
                if event["decided_by"] == "lowest_seat":
                    found.add("round2_split")
        elif kind == "night_resolution":
            if event["intended_kill"] is not None and event["actual_kill"] is None:
                found.add("doctor_saves")
        elif kind == "last_words" and events[i + 1]["type"] == "game_over":
            found.add("last_words_end_the_game")
        elif kind == "game_over":
            found.add({"town": "town_wins", "mafia": "mafia_wins", "draw": "draw"}[event["winner"]])
    return found
