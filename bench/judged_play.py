"""How few games tell a scripted strategist from a random player: ``house`` against
``random-legal`` at 7 seats in the ``teams`` design (one model the whole Mafia, the other the whole
Town, then the sides swapped on the same deal), seeded from deal 0, through ``run_tournament``.

The judged-play metrics are read from the first ``--metric-games`` games (a prefix of whole
deals), the outcome ratings from all of them. Prints ``games=`` (rated games played),
``metric_games=``, ``separated_metrics=`` (the metrics whose 95% bootstrap intervals over all
of a model's seats do not overlap for the two models, in ``metric_games`` games),
``separated=`` (their keys), ``rating_separated=`` (1 when the two overall ratings' 95%
intervals do not overlap after ``games`` games, else 0), ``design=`` and ``wall_s=``.
``--quick`` plays 4 games at 5 seats, a smoke test of the script.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import benchlib  # noqa: F401  (turns tracing off before LangChain loads)
from mafia.arena.bootstrap import overlap
from mafia.tournament import run_tournament
from mafia.tournament.judged_view import separated
from mafia.tournament.results import load_tournament
from mafia.tournament.spec import TEAMS
from mafia.tournament.standings import standings

MODELS = ["house", "random-legal"]
CONCURRENCY = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=24, help="rated games, even (default 24)")
    parser.add_argument("--metric-games", type=int, default=12, help="games the metrics read (default 12)")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="4 games at 5 seats: a smoke test")
    args = parser.parse_args()
    games, metric_games, players = (4, 4, 5) if args.quick else (args.games, args.metric_games, args.players)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        summary = run_tournament(
            games=games, models=MODELS, players=players, concurrency=CONCURRENCY, out=tmp, design=TEAMS
        )
        wall = time.perf_counter() - start
        if summary["finished"] != games or summary["run"]["unfinished"]:
            sys.exit(f"only {summary['finished']} of {games} games finished: {summary['run']['unfinished']}")
        tournament = load_tournament(Path(summary["run"]["folder"]))
    first = dataclasses.replace(tournament, tables=tournament.tables[:metric_games])
    metrics = separated(standings(first), *MODELS)
    overall = summary["ratings"]["overall"]
    a, b = (overall[m] for m in MODELS)
    apart = not overlap((a["low"], a["high"]), (b["low"], b["high"]))
    print(f"games={games}")
    print(f"metric_games={len(first.tables)}")
    print(f"separated_metrics={len(metrics)}")
    print(f"separated={','.join(metrics) or '-'}")
    print(f"rating_separated={int(apart)}")
    print(f"design={TEAMS}")
    print(f"wall_s={wall:.2f}")


if __name__ == "__main__":
    main()
