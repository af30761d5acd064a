"""``mafia tournament``: several models at one table from the command line, rated per role;
``mafia tournament report DIR`` writes the report. Running the same command again resumes a
stopped tournament, as for an arena."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from mafia.arena.cli import (
    CancelOption,
    ConcurrencyOption,
    DetachOption,
    ProgressOption,
    QueueOption,
    RoundCapOption,
    ServerOption,
    add_queue_commands,
    check_queue_options,
    check_url,
    exit_if_unfinished,
    follow_queued,
    parse_model,
    print_report,
    run_interruptibly,
)
from mafia.commands.checks import RetriesOption, RolesOption, check_out_dir, parse_roles
from mafia.context.policy import DEFAULT_POLICY, POLICIES
from mafia.run.settings import SettingError

# The tournament's engine loads when a tournament runs, not for `mafia tournament --help`.
if TYPE_CHECKING:
    from mafia.game.state import JSON

MODEL_HELP = (
    "A model to seat (repeatable, two or more): a spec (house, house-sloppy, random-legal, house:SEED, "
    "openai:MODEL...), LABEL=SPEC, or a TOML game file whose \\[model] it takes (labelled by the file's "
    "name, or LABEL=FILE)."
)

tournament_app = typer.Typer(
    invoke_without_command=True,
    no_args_is_help=True,
    help="Seat several models at one table, balanced over roles on paired deals, and rate them.",
)


@tournament_app.callback()
def tournament(
    ctx: typer.Context,
    model: Annotated[list[str] | None, typer.Option(help=MODEL_HELP, show_default=False)] = None,
    games: Annotated[
        int,
        typer.Option(
            help="Games in all: a multiple of one deal's games (mixed: one per model; teams: one per "
            "ordered pair; swiss: rounds × 2 × the pairs of a round)."
        ),
    ] = 30,
    players: Annotated[int, typer.Option(help="Seats at every table (5-16).")] = 8,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            help=f"Context policy of every seat, one of {', '.join(POLICIES)}.",
            show_default=DEFAULT_POLICY,
        ),
    ] = None,
    concurrency: ConcurrencyOption = 4,
    seed_start: Annotated[int, typer.Option(help="The first deal's seed; deals take consecutive seeds.")] = 0,
    roles: RolesOption = None,
    round_cap: RoundCapOption = None,
    max_retries: RetriesOption = 2,
    out: Annotated[
        Path, typer.Option(help="Folder of the tournament's results (OUT/tournament-<id>/).")
    ] = Path("runs"),
    tournament_id: Annotated[
        str | None,
        typer.Option(
            "--id", help="The tournament's id; by default one derived from the arguments.", show_default=False
        ),
    ] = None,
    self_play: Annotated[
        bool,
        typer.Option(
            "--self-play",
            help="Also play each deal once with each model alone at the table: shown apart, never rated.",
        ),
    ] = False,
    design: Annotated[
        str,
        typer.Option(
            help="How models are seated: mixed (every model at every table, one holding the Mafia) or "
            "teams (two models a game, one the whole Mafia and the other the whole Town, then the "
            "sides swapped on the same deal); teams tells two models apart in fewer games; swiss "
            "(for many models: teams pairs of similar standing, round by round, see --rounds).",
        ),
    ] = "mixed",
    rounds: Annotated[
        int | None,
        typer.Option(
            help="Swiss rounds (--design swiss only; default ceil(log2 of the models)): each round "
            "pairs models of similar standing on deals of its own, never the same two twice while "
            "others can meet, an odd model out sitting the round out.",
            show_default=False,
        ),
    ] = None,
    server: ServerOption = None,
    queue: QueueOption = False,
    detach: DetachOption = False,
    cancel: CancelOption = False,
    quiet: ProgressOption = False,
) -> None:
    """Play GAMES games seating every MODEL at each table, CONCURRENCY at once; results, ratings
    and summary.json go to OUT/tournament-<id>/. Running the same command again resumes a stopped
    tournament."""
    if ctx.invoked_subcommand is not None:
        return
    from mafia.tournament.run import run_tournament

    console = Console(highlight=False, stderr=True)
    check_url(server)
    check_queue_options(queue, detach=detach, cancel=cancel)
    if not model or len(model) < 2:
        raise SettingError(
            "--model: give two or more models (repeat --model); a tournament seats them together"
        )
    if policy is not None and len(policy) > 1:
        raise SettingError(f"--policy: a tournament plays one context policy; got {', '.join(policy)}")
    contestants = [parse_model(m) for m in model]
    role_counts = parse_roles(roles) if roles is not None else None
    check_out_dir(out)

    def started(folder: Path, total: int) -> None:
        console.print(
            f"Tournament {folder.name.removeprefix('tournament-')}: {total} games of {len(contestants)} "
            f"models at {players} seats, {concurrency} at once; results in {folder}/ "
            "(run the same command again to resume it)",
            soft_wrap=True,
        )

    arguments: dict[str, Any] = {
        "games": games,
        "models": contestants,
        "players": players,
        "policy": policy[0] if policy else DEFAULT_POLICY,
        "concurrency": concurrency,
        "seed_start": seed_start,
        "out": out,
        "tournament_id": tournament_id,
        "roles": role_counts,
        "round_cap": round_cap,
        "max_retries": max_retries,
        "server": server,
        "queue": queue,
        "self_play": self_play,
        "design": design,
        "rounds": rounds,
        "progress": not quiet and not queue,
        "on_start": started,
    }
    summary = run_interruptibly(console, "tournament", run_tournament, arguments)
    if queue:
        follow_queued(console, Path(summary["run"]["folder"]), detach, cancel, "tournament", _standings)
        return
    _print_standings(summary)
    exit_if_unfinished(console, summary)


def _standings(folder: Path) -> JSON:
    """The standings ``collect`` writes for a queued tournament once all its games have finished."""
    from mafia.tournament.run import tournament_summary

    return tournament_summary(folder)


add_queue_commands(tournament_app, "tournament", _standings)


@tournament_app.command("report")
def report(
    folder: Annotated[Path, typer.Argument(help="The tournament's folder (runs/tournament-<id>).")],
    out: Annotated[
        Path | None,
        typer.Option(help="Folder of the report (default FOLDER/report).", show_default=False),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="Also write the tournament as one self-contained page, with every game's replay "
            "page in replays/ beside it.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write the tournament's report: report.md, ratings.png and standings.json, and with --html
    a page of it all linking every game's replay."""
    from mafia.tournament.report import write_report  # matplotlib only when a report is written

    print_report(lambda where, to: write_report(where, to, html), folder, out)
    if html is not None:
        print(f"Page: {html}")


def _print_standings(summary: JSON) -> None:
    """Each model's overall rating, best first, and where the summary is."""
    from mafia.arena.spec import SUMMARY_FILE

    console = Console(highlight=False)
    overall = summary["ratings"]["overall"]
    for label in sorted(overall, key=lambda m: -overall[m]["mu"]):
        r = overall[label]
        console.print(
            f"{label}: rating {r['mu']:.1f} [{r['low']:.1f}, {r['high']:.1f}]", soft_wrap=True, markup=False
        )
    console.print(
        f"{games_line(summary)}; summary: {summary['run']['folder']}/{SUMMARY_FILE}", soft_wrap=True
    )


def games_line(summary: JSON) -> str:
    """The games played of all the tournament's games, as the progress bar counts them (self-play
    games included), and the rated ones among them."""
    line = f"{summary['played']}/{summary['scheduled']} games"
    if summary["self_play_games"]:
        line += (
            f" ({summary['finished']} rated of {summary['games']}, {summary['self_play_games']} self-play)"
        )
    return line
