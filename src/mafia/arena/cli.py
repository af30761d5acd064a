"""``mafia arena``: many games at once from the command line, paired across context policies and
models, resumable by running the same command again. A group, so sub-commands (``mafia arena
report DIR``) are dispatched before the run's options are read."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from mafia.commands.checks import (
    RetriesOption,
    RolesOption,
    SummariserOption,
    check_out_dir,
    check_summariser,
    parse_roles,
)
from mafia.commands.cli_frame import ctrl_c_stops_calls
from mafia.context.policy import DEFAULT_POLICY, POLICIES
from mafia.run.settings import SettingError

# The arena's engine loads when an arena runs, not for `mafia arena --help`.
if TYPE_CHECKING:
    from mafia.arena.spec import Contestant
    from mafia.game.state import JSON

# The options an arena and a tournament share, declared once.
ConcurrencyOption = Annotated[int, typer.Option(help="Games played at once.")]
RoundCapOption = Annotated[int | None, typer.Option(help="Rounds before a game is a draw.")]
ServerOption = Annotated[
    str | None,
    typer.Option(
        help="Play the games on a LangGraph server (e.g. http://127.0.0.1:2024).", show_default=False
    ),
]
# ``status``, ``collect`` and ``cancel``: the default (None) is the server the games' queued.json
# names. The default goes first: typer takes an Option's first positional argument as its default.
OtherServerOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        help="Another server process on the same database and Redis, where the one the games were "
        "queued on is gone (default: that one, as the folder's queued.json records it).",
        show_default=False,
    ),
]
ProgressOption = Annotated[bool, typer.Option(help="No progress bar; only the result.")]
QueueOption = Annotated[
    bool,
    typer.Option(
        help="Queue the games on the --server (mafia serve) as background runs, then follow them "
        "there; Ctrl-C leaves them running."
    ),
]
DetachOption = Annotated[bool, typer.Option(help="With --queue: return once the games are queued.")]
CancelOption = Annotated[
    bool, typer.Option(help="With --queue: Ctrl-C cancels the games on the server instead of leaving them.")
]
FOLLOW_S = 2.0  # seconds between two looks at the queued games
Summary = Callable[[Path], "JSON"]  # a queued folder's summary once all its games have finished


arena_app = typer.Typer(
    invoke_without_command=True,
    no_args_is_help=True,
    help="Play many games at once, paired across context policies and models.",
)

MODEL_HELP = (
    "A model to compare (repeatable): a spec (house, house:SEED, openai:MODEL...), LABEL=SPEC, or a "
    "TOML game file whose \\[model] and \\[seats] it takes (labelled by the file's name, or LABEL=FILE)."
)
URL = re.compile(r"https?://[^\s/]+\S*")


def check_url(server: str | None) -> str | None:
    """``server`` as given (None stays None), refused in one line unless it is an http(s) URL."""
    if server is not None and not URL.fullmatch(server):
        raise SettingError(f"--server {server!r}: give the server's http:// or https:// URL")
    return server


def check_queue_options(queue: bool, **with_queue: bool) -> None:
    """Refuse the options that only mean something for games queued on a server (``--detach``,
    ``--cancel``) when ``--queue`` is not given: without it the games would play here and the
    option would silently do nothing."""
    given = [f"--{name}" for name, on in with_queue.items() if on]
    if given and not queue:
        raise SettingError(
            f"{', '.join(given)}: only with --queue (and --server URL): the games queued there"
        )


def parse_model(text: str) -> Contestant:
    """One ``--model`` value as a contestant (SettingError names what is allowed)."""
    from mafia.arena.spec import LABEL, label_for
    from mafia.run.game_file import GameFileError, load_game_file

    label, sep, value = text.partition("=")
    if not sep or not LABEL.fullmatch(label):
        label, value = "", text
    value = value.strip()
    if not value:
        raise SettingError(f"--model {text!r}: give a model spec, LABEL=SPEC or a TOML game file")
    if value.endswith(".toml"):
        try:
            file = load_game_file(Path(value))
        except GameFileError as exc:
            raise SettingError(f"--model: {str(exc).removeprefix('--config: ')}") from None
        if file.model is None and not file.seats:
            raise SettingError(f"--model {value}: the file names no model ([model] or [seats])")
        return _contestant(label or label_for(Path(value).stem), file.model or "house", dict(file.seats))
    return _contestant(label or label_for(value), value, {})


def _contestant(label: str, model: Any, seats: dict[str, Any]) -> Contestant:
    from mafia.arena.spec import ArenaError, Contestant

    try:
        return Contestant(label, model, seats)
    except ArenaError as exc:
        raise SettingError(f"--model: {exc}") from None


@arena_app.callback()
def arena(
    ctx: typer.Context,
    games: Annotated[
        int, typer.Option(help="Seeds each policy and model plays (the same seeds for all).")
    ] = 10,
    players: Annotated[int, typer.Option(help="Seats at every table (5-16).")] = 7,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            help=f"Context policy to compare (repeatable): {', '.join(POLICIES)}.", show_default=False
        ),
    ] = None,
    model: Annotated[list[str] | None, typer.Option(help=MODEL_HELP, show_default=False)] = None,
    concurrency: ConcurrencyOption = 4,
    seed_start: Annotated[int, typer.Option(help="The first seed; the games play consecutive seeds.")] = 0,
    roles: RolesOption = None,
    round_cap: RoundCapOption = None,
    max_retries: RetriesOption = 2,
    out: Annotated[Path, typer.Option(help="Folder of the arena's results (OUT/arena-<id>/).")] = Path(
        "runs"
    ),
    arena_id: Annotated[
        str | None,
        typer.Option(
            "--id", help="The arena's id; by default one derived from the arguments.", show_default=False
        ),
    ] = None,
    server: ServerOption = None,
    queue: QueueOption = False,
    detach: DetachOption = False,
    cancel: CancelOption = False,
    summariser: SummariserOption = None,
    quiet: ProgressOption = False,
) -> None:
    """Play GAMES seeds with every policy and model, CONCURRENCY games at once; results and
    summary.json go to OUT/arena-<id>/. Running the same command again resumes a stopped arena:
    finished games are skipped, stopped ones go on from their checkpoints."""
    if ctx.invoked_subcommand is not None:
        return
    from mafia.arena.run import run_arena

    console = Console(highlight=False, stderr=True)
    check_url(server)
    check_queue_options(queue, detach=detach, cancel=cancel)
    contestants = [parse_model(m) for m in model or ["house"]]
    role_counts = parse_roles(roles) if roles is not None else None
    check_out_dir(out)
    names = policy or [DEFAULT_POLICY]
    arguments: dict[str, Any] = {
        "games": games,
        "players": players,
        "policies": names,
        "models": contestants,
        "concurrency": concurrency,
        "seed_start": seed_start,
        "out": out,
        "roles": role_counts,
        "round_cap": round_cap,
        "max_retries": max_retries,
        "arena_id": arena_id,
        "server": server,
        "queue": queue,
        "progress": not quiet and not queue,
    }
    if summariser is not None:  # an arena asked without one keeps its id (arena.json records it)
        known = [POLICIES[n] for n in names if n in POLICIES]  # an unknown name is refused by the arena
        arguments["summariser"] = check_summariser("--summariser", summariser, players, known)

    def started(arena_dir: Path, total: int) -> None:
        console.print(
            f"Arena {arena_dir.name.removeprefix('arena-')}: {total} games ({games} seeds x {len(names)} "
            f"policies x {len(contestants)} models), {concurrency} at once; results in {arena_dir}/ "
            "(run the same command again to resume it)",
            soft_wrap=True,
        )

    summary = run_interruptibly(console, "arena", run_arena, {**arguments, "on_start": started})
    if queue:
        follow_queued(console, Path(summary["run"]["folder"]), detach, cancel)
        return
    _print_summary(summary)
    exit_if_unfinished(console, summary)


def exit_if_unfinished(console: Console, summary: JSON) -> None:
    """Exit with code 1, saying how to resume them, when some games of a summary did not finish."""
    unfinished = summary["run"]["unfinished"]
    if unfinished:
        console.print(
            f"{len(unfinished)} games did not finish; run the same command again to resume them.",
            style="yellow",
        )
        raise typer.Exit(code=1)


@arena_app.command("report")
def report(
    arena_dir: Annotated[Path, typer.Argument(help="The arena's folder (runs/arena-<id>).")],
    out: Annotated[
        Path | None,
        typer.Option(help="Folder of the report (default ARENA_DIR/report).", show_default=False),
    ] = None,
) -> None:
    """Write the arena's report (report.md with its PNG plots) and print the judge's verdict."""
    from mafia.arena.report import write_report  # matplotlib loads only where it plots

    print_report(write_report, arena_dir, out)


def print_report(write: Callable[[Path, Path | None], Path], folder: Path, out: Path | None) -> None:
    """Write a report of ``folder`` with ``write`` and say where it is; a folder that is not an
    arena or a tournament is one line."""
    from mafia.arena.spec import ArenaError

    try:
        page = write(folder, out)
    except ArenaError as exc:
        raise SettingError(str(exc)) from None
    print(f"Report: {page}")


def run_interruptibly(
    console: Console, kind: str, run: Callable[..., JSON], arguments: dict[str, Any]
) -> JSON:
    """``run(**arguments)`` (an arena or a tournament): Ctrl-C gives up the model calls in flight,
    every game stops at a checkpoint, and the command ends with code 130 saying how to go on; a
    bad ask is one line."""
    from mafia.arena.spec import ArenaError

    try:
        with ctrl_c_stops_calls():
            return run(**arguments)
    except ArenaError as exc:
        raise SettingError(str(exc)) from None
    except KeyboardInterrupt:
        console.print(f"stopped. Run the same command again to resume the {kind}.", style="bold red")
        raise typer.Exit(code=130) from None


def _print_summary(summary: JSON) -> None:
    """Winners and calls by policy and model, and where the summary is."""
    from mafia.arena.spec import SUMMARY_FILE

    console = Console(highlight=False)
    for pair in summary["by_pair"]:
        wins = ", ".join(f"{side} {count}" for side, count in pair["winners"].items())
        console.print(
            f"{pair['policy']} / {pair['model']}: {pair['finished']}/{pair['games']} games ({wins}), "
            f"{pair['calls_per_game']} calls per game",
            soft_wrap=True,
        )
    console.print(f"Summary: {summary['run']['folder']}/{SUMMARY_FILE}", soft_wrap=True)


def arena_summary(folder: Path) -> JSON:
    """The summary ``collect`` writes for a queued arena once all its games have finished."""
    from mafia.arena.queued import arena_summary as summary_of

    return summary_of(folder)


def follow_queued(
    console: Console,
    folder: Path,
    detach: bool,
    cancel: bool,
    noun: str = "arena",
    summary: Summary = arena_summary,
) -> None:
    """After queueing an arena (or a tournament, ``noun``): say how to follow the games, or follow
    them here, writing each as it finishes, until all have; Ctrl-C leaves them running on the
    server (or, with ``cancel``, cancels them)."""
    from mafia.arena.queued import cancel as cancel_games

    console.print(
        f"Queued on the server. `mafia {noun} status {folder}` shows where the games stand, "
        f"`mafia {noun} collect {folder}` writes the finished ones.",
        soft_wrap=True,
    )
    if detach:
        return
    try:
        _collect_until_done(console, folder, noun, summary)
    except KeyboardInterrupt:
        if cancel:
            console.print(f"Cancelled {cancel_games(folder)} runs; queue the {noun} again to go on.")
        else:
            console.print(
                f"Detached: the games go on on the server; `mafia {noun} collect {folder}` writes them."
            )
        raise typer.Exit(code=130) from None


def _collect_until_done(
    console: Console, folder: Path, noun: str, summary: Summary, server: str | None = None
) -> None:
    """Collect the finished games every few seconds, printing where they stand when it changes,
    until every game is finished or stopped. A server in trouble for a while (its PostgreSQL or
    Redis down) is said and waited out: its games go on once it is back."""
    import time

    from mafia.arena.queued import collect as collect_games

    shown = ""
    while True:
        try:
            progress = _queued(collect_games, folder, summary=summary, server=server)
        except ServerTrouble as exc:
            if str(exc) != shown:
                console.print(f"{exc}", style="yellow", soft_wrap=True)
                shown = str(exc)
            time.sleep(FOLLOW_S)
            continue
        line = progress.line()
        if line != shown:
            console.print(line, soft_wrap=True)
            shown = line
        if progress.finished + len(progress.stopped) >= progress.total:
            break
        time.sleep(FOLLOW_S)
    for game, why in progress.stopped.items():
        console.print(f"{game}: {why}; queue the {noun} again to go on", style="yellow", soft_wrap=True)
    if progress.stopped:
        raise typer.Exit(code=1)


class ServerTrouble(SettingError):
    """The server of queued games does not answer, or fails (one line: which component is down)."""


def _queued(look: Callable[..., Any], folder: Path, **options: Any) -> Any:
    """``look(folder)`` (status, collect or cancel) with a bad folder or a server in trouble as one
    line (which of its components is down, when the server can say)."""
    import httpx

    from mafia.arena.queued import queue_record, server_trouble
    from mafia.arena.spec import ArenaError

    try:
        return look(folder, **options)
    except ArenaError as exc:
        raise SettingError(str(exc)) from None
    except httpx.HTTPError as exc:  # the server does not answer, or fails
        url = options.get("server") or str(queue_record(folder)["server"])
        raise ServerTrouble(f"{folder}: {server_trouble(url, exc)}") from None


def add_queue_commands(app: typer.Typer, noun: str, summary: Summary) -> None:
    """``status``, ``collect`` and ``cancel`` on ``app`` for its games queued on a server
    (``noun``: arena or tournament; ``summary``: what ``collect`` writes once all have finished)."""
    folder_argument = typer.Argument(help=f"The {noun}'s folder (runs/{noun}-<id>).")

    @app.command("status")
    def status(folder: Path = folder_argument, server: OtherServerOption = None) -> None:
        """Where the queued games stand on the server, with the time left at their pace."""
        from mafia.arena.queued import collect as collect_games

        progress = _queued(collect_games, folder, write=False, server=check_url(server))
        console = Console(highlight=False)
        console.print(progress.line(), soft_wrap=True)
        for game, why in progress.stopped.items():
            console.print(f"{game}: {why}", soft_wrap=True)

    @app.command("collect")
    def collect(
        folder: Path = folder_argument,
        wait: Annotated[bool, typer.Option(help="Go on until every game has finished.")] = False,
        server: OtherServerOption = None,
    ) -> None:
        """Write the logs and results of the queued games that have finished on the server
        (byte-identical to a local game's); the summary once all have."""
        from mafia.arena.queued import collect as collect_games

        console = Console(highlight=False)
        server = check_url(server)
        if wait:
            try:
                _collect_until_done(console, folder, noun, summary, server)
            except KeyboardInterrupt:
                console.print("Detached: the games go on on the server.")
                raise typer.Exit(code=130) from None
            return
        console.print(_queued(collect_games, folder, summary=summary, server=server).line(), soft_wrap=True)

    @app.command("cancel")
    def cancel(folder: Path = folder_argument, server: OtherServerOption = None) -> None:
        """Cancel the queued and running games; each stops at its last whole step, and queueing
        again goes on from there."""
        from mafia.arena.queued import cancel as cancel_games

        print(f"Cancelled {_queued(cancel_games, folder, server=check_url(server))} runs.")


add_queue_commands(arena_app, "arena", arena_summary)
