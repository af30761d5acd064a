"""Win rates of the house model in the default 7-seat game over 500 seeds, with 95% intervals, and
how often its Mafia need Round 2.

Prints ``town_win_rate=`` and ``mafia_win_rate=`` (fractions of all games; draws are neither), and
``round2_share=``: the share of team nights (nights with two or more living Mafia, who must agree
on a kill) that went to Round 2, with ``team_nights=`` and ``lowest_seat_nights=`` (Round 2 still
split, so the lowest seat's choice stood). Games run in a process pool, one per core.
``--roles role=N,...`` deals the given role counts (the command line's syntax) in every game.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from benchlib import quick, wilson
from mafia.commands.checks import parse_roles
from mafia.play.runner import run_game

GAMES = 500


def played(seed: int, roles: Mapping[str, int] | None = None) -> tuple[str, Counter[str]]:
    """The game's winner and its team nights by how the kill was settled."""
    state = run_game({"seed": seed} if roles is None else {"seed": seed, "roles": dict(roles)})
    nights: Counter[str] = Counter()
    for event in state["events"]:
        if event["type"] == "mafia_vote" and event["coordination_round"] > 0:
            nights["team"] += 1
            nights["round2"] += event["coordination_round"] == 2
            nights["lowest_seat"] += event["decided_by"] == "lowest_seat"
    return str(state["winner"]), nights


def main() -> None:
    args = sys.argv[1:]
    roles = parse_roles(args[args.index("--roles") + 1]) if "--roles" in args else None
    numbers = [arg for arg in args if arg.isdigit()]
    games = 4 if quick() else int(numbers[0]) if numbers else GAMES
    with ProcessPoolExecutor() as pool:
        results = list(pool.map(partial(played, roles=roles), range(games), chunksize=10))
    wins = Counter(winner for winner, _ in results)
    nights = sum((n for _, n in results), Counter[str]())
    if roles is not None:
        print("roles=" + ",".join(f"{name}={count}" for name, count in roles.items()))
    for side in ("town", "mafia", "draw"):
        low, high = wilson(wins[side], games)
        print(f"{side}: {wins[side]}/{games} (95% interval {low:.3f}-{high:.3f})")
    print(f"town_win_rate={wins['town'] / games:.3f}")
    print(f"mafia_win_rate={wins['mafia'] / games:.3f}")
    print(f"team_nights={nights['team']}")
    print(f"lowest_seat_nights={nights['lowest_seat']}")
    print(f"round2_share={nights['round2'] / max(nights['team'], 1):.3f}")


if __name__ == "__main__":
    main()
