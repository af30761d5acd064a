"""Playing a swiss tournament round by round: each round is paired from the results of the rounds
before it, read back from the games' logs, so a resumed tournament pairs its rounds again exactly
as it did, and plays no game twice (a finished game is skipped as in any arena)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from threading import Event
from typing import Any

from mafia.arena.run import Played, play_ask
from mafia.tournament.judged import outcomes
from mafia.tournament.pairing import Round, first_order, pair_round, standing
from mafia.tournament.results import TableResult, read_table
from mafia.tournament.spec import KIND, TournamentSpec


def scores(tables: list[TableResult], labels: list[str]) -> dict[str, float]:
    """Each model's wins above its roles' baseline (the leaderboard's figure) over ``tables``; 0
    for a model without a game."""
    advantage = outcomes(tables, labels, [])
    return {label: advantage[label]["advantage"]["value"] or 0.0 for label in labels}


def schedule(spec: TournamentSpec, folder: Path) -> TournamentSpec:
    """``spec`` with every round paired that the finished games in ``folder`` allow: round one,
    then each next round once every rated game of the one before has a result."""
    labels = [c.label for c in spec.contestants]
    order = first_order(labels, spec.seed_start)
    rounds: list[Round] = []
    finished: list[TableResult] = []
    for number in range(spec.round_count):
        rounds.append(pair_round(standing(scores(finished, labels), order), rounds))
        paired = replace(spec, schedule=tuple(rounds))
        seeds = set(paired.round_seeds(number))
        for table, slot in zip(paired.tables(), paired.games_in(folder), strict=True):
            if table.seed not in seeds or table.self_play:
                continue
            if slot.result() is None:
                return paired
            finished.append(read_table(slot.folder, slot.thread_id, [c.label for c in table.seats]))
    return replace(spec, schedule=tuple(rounds))


def play_swiss(spec: TournamentSpec, out: Path, ask_id: str | None, **play: Any) -> tuple[Path, Played]:
    """Play ``spec`` round by round under ``out`` (``play`` as ``play_ask`` takes it), each round
    once the one before has finished; stops at a round left unfinished. Returns the folder and what
    was played in all."""
    ask_id = ask_id or spec.default_id()
    folder = out / f"{KIND}-{ask_id}"
    stop: Event = play.get("stop") or Event()
    runs: list[Played] = []
    while True:
        spec = schedule(spec, folder)
        paired = len(spec.schedule)
        title = f" round {paired}/{spec.round_count}"
        folder, played = play_ask(spec, out, KIND, ask_id, **{**play, "stop": stop}, title=title)
        play["on_start"] = None  # the tournament is announced once
        runs.append(played)
        if played.unfinished or stop.is_set() or paired == spec.round_count:
            break
        if len(schedule(spec, folder).schedule) == paired:  # a game left no result: go no further
            break
    last = runs[-1]
    return folder, Played(
        last.games, sum(r.played for r in runs), last.unfinished, sum(r.wall_s for r in runs)
    )
