"""``run_tournament``: games at mixed tables (or two models side against side), balanced over
the tournament, played as an arena's games are (a local pool of threads or a LangGraph server,
resumable, with the arena's progress bar and logs), then rated from their logs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from threading import Event
from typing import Any

from mafia.arena.run import ModelsArg, contestants_of, play_ask, policies_of
from mafia.arena.spec import SUMMARY_FILE, ArenaError, write_json
from mafia.context.policy import DEFAULT_POLICY, ContextPolicy
from mafia.game.state import JSON
from mafia.tournament.ratings import PASSES
from mafia.tournament.results import load_tournament
from mafia.tournament.spec import KIND, MIXED, SWISS, TournamentSpec
from mafia.tournament.standings import standings
from mafia.tournament.swiss import play_swiss


def run_tournament(
    *,
    games: int,
    models: ModelsArg,
    players: int = 8,
    policy: str | ContextPolicy = DEFAULT_POLICY,
    concurrency: int = 4,
    seed_start: int = 0,
    out: str | Path = "runs",
    tournament_id: str | None = None,
    roles: Mapping[str, int] | None = None,
    round_cap: int | None = None,
    max_retries: int = 2,
    server: str | None = None,
    queue: bool = False,
    progress: bool = False,
    passes: int = PASSES,
    self_play: bool = False,
    design: str = MIXED,
    rounds: int | None = None,
    on_start: Callable[[Path, int], None] | None = None,
    stop: Event | None = None,
) -> JSON:
    """Play ``games`` games seating every one of ``models`` at each table of ``players``, under
    ``out/tournament-<id>/``, and return the standings (also written to summary.json).

    Each deal (from ``seed_start``) is played once per model, each model holding the Mafia once
    and the others sharing the Town, so every model holds every seat and role equally often;
    ``games`` is a multiple of the number of models. With ``design="teams"`` each deal is played
    instead once per ordered pair of models, one the whole Mafia and the other the whole Town (each
    pair both ways round), and ``games`` is a multiple of the number of such pairs. ``models`` are as for
    ``run_arena`` (specs, settings, chat models, a label mapping, or Contestants without per-seat
    models). Without ``tournament_id`` the id is derived from the ask, so the same call resumes a
    stopped tournament; ``on_start``, ``stop``, ``server``, ``queue`` and KeyboardInterrupt behave as
    in ``run_arena`` (queued games are collected with ``tournament_summary``). ``passes`` is the
    number of random game orders the ratings average over.
    ``self_play`` also plays each deal once with each model alone at the table (shown apart, never
    rated). With ``design="swiss"`` the models play ``rounds`` Swiss rounds (by default
    ``pairing.default_rounds``), each pairing models of similar standing as teams pairs on deals
    of its own; a round is played once the one before has finished, so it cannot be queued.
    """
    if passes < 1:
        raise ArenaError(f"passes: must be 1 or more, got {passes}")
    spec = TournamentSpec(
        games=games,
        players=players,
        policies=policies_of([policy]),
        contestants=contestants_of(models),
        seed_start=seed_start,
        roles=roles,
        round_cap=round_cap,
        max_retries=max_retries,
        self_play=self_play,
        design=design,
        rounds=rounds,
    )
    if queue and design == SWISS:
        raise ArenaError(
            "--queue: a swiss tournament pairs each round on the results of the one before, so its "
            "games cannot be queued at once; run it without --queue"
        )
    play: dict[str, Any] = {
        "concurrency": concurrency,
        "server": server,
        "queue": queue,
        "progress": progress,
        "on_start": on_start,
        "stop": stop,
    }
    if design == SWISS:
        folder, played = play_swiss(spec, Path(out), tournament_id, **play)
    else:
        folder, played = play_ask(spec, Path(out), KIND, tournament_id, **play)
    summary = {**tournament_summary(folder, passes), "run": played.record(folder, concurrency, server)}
    write_json(folder / SUMMARY_FILE, summary)
    return summary


def tournament_summary(folder: Path, passes: int = PASSES) -> JSON:
    """The standings of the games finished in a tournament's ``folder`` (its summary without
    ``run``)."""
    return standings(load_tournament(folder), passes)
