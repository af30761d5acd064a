"""Command line: ``mafia play`` runs a game live in the terminal and writes its logs under ``runs/``;
``mafia resume`` goes on with a checkpointed game that stopped; ``mafia runs`` lists the games. Play
and resume read an optional TOML game file (``--config``); options given on the command line override it."""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from mafia.arena.cli import arena_app
from mafia.commands.checks import (
    RetriesOption,
    RolesOption,
    SummariserOption,
    check_checkpoint_file,
    check_out_dir,
    check_summariser,
    parse_roles,
)
from mafia.commands.cli_frame import MafiaApp, OneLineErrors, ctrl_c_stops_calls, terminal_wrapped
from mafia.commands.stdout import OutputLost, terminal
from mafia.context.policy import DEFAULT_POLICY, POLICIES, UNRECORDED_POLICY, ContextPolicy
from mafia.game.rules import ConfigError
from mafia.play.checkpoints import (
    CHECKPOINT_FILE,
    DSN_ENV,
    CheckpointStoreError,
    check_dsn,
    list_threads,
    open_checkpointer,
)
from mafia.records.cost import cost_line, run_cost
from mafia.replay.command import replay
from mafia.run.inputs import policy_from_input
from mafia.run.settings import SettingError, check_seats, config_from_input
from mafia.tournament.cli import tournament_app

# The engine (LangGraph, LangChain, the models and the game's schemas) loads inside the commands
# that play, so `mafia --help`, `--version` and a refused argument start in a fraction of a second.
if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from mafia.models.settings import ModelSettings
    from mafia.run.game_file import GameFile
    from mafia.run.record import RunMismatch

    Model = str | ModelSettings

app = MafiaApp(
    cls=OneLineErrors,
    add_completion=False,
    no_args_is_help=True,
    help="LLM players play Mafia on LangGraph.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(arena_app, name="arena")
app.add_typer(tournament_app, name="tournament")


def parse_seat_models(items: list[str]) -> dict[str, str]:
    """``["3=openai:gpt-4o-mini"]`` as {seat or name: model spec}."""
    seats: dict[str, str] = {}
    for item in items:
        seat, sep, spec = item.partition("=")
        if not sep or not seat.strip() or not spec.strip():
            raise typer.BadParameter(f"{item!r}: use SEAT=MODEL, e.g. 3=house:7", param_hint="--seat-model")
        seats[seat.strip()] = spec.strip()
    return seats


def show_version(value: bool) -> None:
    """``--version``: the installed package's version, then exit."""
    if value:
        from importlib.metadata import version

        typer.echo(f"mafia-graph {version('mafia-graph')}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=show_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """LLM players play Mafia on LangGraph."""


app.command()(replay)


HumanOption = Annotated[
    list[str] | None,
    typer.Option(
        help="A seat you play at this terminal (number or name); repeat it or give 3,5 for several."
    ),
]
ModelOption = Annotated[str, typer.Option(help="Model for every seat: house, house:SEED, openai:MODEL...")]
SeatModelOption = Annotated[list[str] | None, typer.Option(help="Per-seat model, e.g. 3=openai:gpt-4o-mini.")]
PolicyOption = Annotated[str, typer.Option(help=f"Context policy: {', '.join(POLICIES)}.")]
# A resume goes on with the run's own settings: its options show no default of their own.
KEPT = " The run's own unless given."
KeptModelOption = Annotated[
    str,
    typer.Option(
        "--model", help="Model for every seat: house, house:SEED, openai:MODEL..." + KEPT, show_default=False
    ),
]
KeptRetriesOption = Annotated[
    int,
    typer.Option(
        "--max-retries", help="Re-asks after a bad answer before the fallback." + KEPT, show_default=False
    ),
]
KeptPolicyOption = Annotated[
    str, typer.Option("--policy", help=f"Context policy: {', '.join(POLICIES)}." + KEPT, show_default=False)
]
ChangeModelOption = Annotated[
    bool,
    typer.Option(
        "--change-model", help="Let a resume change models, people or retries from the run's own (logged)."
    ),
]
ChangePolicyOption = Annotated[
    bool, typer.Option("--change-policy", help="Let a resume change the run's context policy (logged).")
]
RevealOption = Annotated[bool, typer.Option(help="Show private night actions as they happen.")]
QuietOption = Annotated[bool, typer.Option(help="Show only the setup and the result.")]
OutOption = Annotated[str, typer.Option(help="Folder for the runs' logs (OUT/<run id>/) and checkpoints.")]


def out_path(text: str) -> Path:
    """The ``--out`` folder (an empty name is refused: it would mean the current folder)."""
    if not text.strip():
        raise SettingError("--out: give a folder for the logs and checkpoints, not an empty name")
    return Path(text)


DsnOption = Annotated[
    str | None,
    typer.Option(
        "--checkpoint-dsn",
        envvar=DSN_ENV,
        show_envvar=True,
        help="PostgreSQL connection string: checkpoint there instead of OUT/checkpoints.sqlite "
        "(the logs stay under OUT).",
    ),
]
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML game file; options given here override it.")
]


def read_game_file(path: Path | None) -> GameFile:
    """The checked game file, or an empty one without ``--config``."""
    from mafia.run.game_file import GameFile, GameFileError, load_game_file

    if path is None:
        return GameFile(path=Path())
    try:
        return load_game_file(path)
    except GameFileError as exc:
        raise SettingError(str(exc)) from None


def from_file(ctx: typer.Context, name: str, value: Any, file_values: dict[str, Any]) -> Any:
    """An option's value: the command line's when given there, else the file's, else the default."""
    return value if name in _given(ctx) or name not in file_values else file_values[name]


def parse_humans(items: list[str] | None) -> list[str]:
    """``["3", "5,Ann"]`` as the seats people play, by number or name (checked against the table
    where it is known)."""
    seats = [part.strip() for item in items or [] for part in item.split(",")]
    if any(not seat for seat in seats):
        raise SettingError("--human: give a seat number or a player's name, e.g. --human 3 or --human 3,5")
    return seats


def choose_models(
    ctx: typer.Context,
    file: GameFile,
    model: str,
    seat_model: list[str] | None,
    humans: list[str] | None = None,
) -> tuple[Model, dict[str, Model], dict[str, str]]:
    """The default model and per-seat models: the file's, with ``--model`` replacing its default and
    each ``--seat-model`` or ``--human`` replacing that seat's entry. Also the command line's own seat
    specs."""
    from mafia.turn.people import HUMAN

    flag_seats = parse_seat_models(seat_model or [])
    for seat in humans or []:
        if seat in flag_seats:
            raise SettingError(f"--human {seat}: that seat also has --seat-model; give one of them")
        flag_seats[seat] = HUMAN
    default: Model = from_file(ctx, "model", model, {"model": file.model} if file.model else {})
    return default, {**file.seats, **flag_seats}, flag_seats


def check_policy(name: str) -> ContextPolicy:
    """The registered context policy ``name`` (exits with the names there are)."""
    try:
        return policy_from_input(name)
    except ValueError as exc:
        raise SettingError(f"--{exc}") from None


def check_models(models: list[Model], max_retries: int) -> None:
    """Every model is built once up front (a bad spec or setting exits with a message)."""
    from mafia.models.factory import ModelSpecError, resolve_model
    from mafia.turn.people import is_human

    if max_retries < 0:
        raise typer.BadParameter("must be 0 or more", param_hint="--max-retries")
    try:
        for spec in models:
            if not is_human(spec):
                resolve_model(spec)  # built once here, reused by the game
    except ModelSpecError as exc:
        raise SettingError(str(exc)) from None


def play_through(
    console: Console, run: Callable[[], dict[str, Any]], hint: Callable[[], str | None]
) -> dict[str, Any]:
    """Run a game; a failure that is not an answer (a provider outage, a revoked key) ends the
    command with its cause and, when the game is checkpointed, how to go on (``hint``: known once
    the run has its id). Ctrl-C gives up the model calls in flight, so the step ends at once and
    the logs are closed as after a failure."""
    from mafia.commands.waiting import thinking_notices
    from mafia.play.runner import LogConflict, RunBusy, RunExists
    from mafia.run import tracing
    from mafia.run.record import RunMismatch
    from mafia.turn.people import InputClosed

    errors = Console(stderr=True, highlight=False)
    try:
        with ctrl_c_stops_calls(), thinking_notices(lambda line: console.print(f"[dim]… {line}[/]")):
            return run()
    except RunMismatch as exc:
        raise SettingError(mismatch_line(exc)) from None
    except (RunBusy, RunExists, LogConflict) as exc:
        raise SettingError(str(exc)) from None
    except KeyboardInterrupt as exc:
        errors.print(
            "[bold red]stopped[/]: the input ended."
            if isinstance(exc, InputClosed)
            else "[bold red]stopped.[/]"
        )
        resume_hint = hint()
        if resume_hint:
            errors.print(f"Go on with: {resume_hint}", soft_wrap=True)
        raise typer.Exit(code=130) from None
    except OutputLost:
        raise
    except Exception as exc:
        report_stop(errors, exc, hint())
    finally:
        tracing.close()  # traces still queued are sent, within a bounded wait
    raise AssertionError("unreachable: every stop exits")


def report_stop(errors: Console, exc: BaseException, resume_hint: str | None) -> None:
    """A game that stopped on a fault that is not an answer: its cause and how to go on, on stderr."""
    errors.print(f"[bold red]error:[/] the game stopped: {type(exc).__name__}: {exc}", soft_wrap=True)
    if resume_hint:
        errors.print(f"It is checkpointed. Go on with: {resume_hint}", soft_wrap=True)
    raise typer.Exit(code=1) from None


# The options that set each recorded setting of a run, for a resume's one-line refusal.
_FLAGS = {
    "model": "--model",
    "policy": "--policy",
    "max_retries": "--max-retries",
    "summariser": "--summariser",
}


def mismatch_line(exc: RunMismatch) -> str:
    """A resume's refusal of a setting the run was not started with, naming the override."""
    flag = _FLAGS.get(exc.setting, exc.setting)
    if exc.setting.startswith("seat_models."):
        flag = f"--seat-model {exc.setting.removeprefix('seat_models.')}"
    override = "--change-policy" if exc.kind == "policy" else "--change-model"
    return (
        f"{flag}: the run was started with {exc.before}; got {exc.after}; "
        f"pass {override} to change it (the change is logged)"
    )


def program() -> str:
    """The command as this process was started, so a printed hint runs as printed: the path
    given (``.venv/bin/mafia`` after ``make play``), else ``mafia`` when it is on PATH, else the
    installed script's path."""
    given = sys.argv[0] if sys.argv else ""
    if Path(given).name == "mafia" and os.sep in given:
        return shlex.quote(given)
    if shutil.which("mafia"):
        return "mafia"
    script = Path(sys.prefix) / "bin" / "mafia"
    try:
        return shlex.quote(os.path.relpath(script))
    except ValueError:
        return shlex.quote(str(script))


def resume_command(thread_id: str, out: Path, dsn: str | None = None) -> str:
    """The command line that resumes ``thread_id``: the run goes on with the models, people, policy
    and settings it was started with, so only where it is stored is given (and the checkpoint
    database the command line gave; one taken from the environment is left there, and out of the
    terminal)."""
    parts = [program(), "resume", shlex.quote(thread_id), "--out", shlex.quote(str(out))]
    if dsn:
        parts += ["--checkpoint-dsn", shlex.quote(dsn)]
    return " ".join(parts)


@app.command()
def play(
    ctx: typer.Context,
    seed: Annotated[int, typer.Option(help="Seed for the deal, personas and the house model.")] = 0,
    players: Annotated[int, typer.Option(help="Seats at the table (5-16).")] = 7,
    roles: RolesOption = None,
    names: Annotated[str | None, typer.Option(help="Comma-separated player names, one per seat.")] = None,
    round_cap: Annotated[int, typer.Option(help="Rounds before the game is a draw.")] = 20,
    model: ModelOption = "house",
    seat_model: SeatModelOption = None,
    human: HumanOption = None,
    max_retries: RetriesOption = 2,
    policy: PolicyOption = DEFAULT_POLICY,
    summariser: SummariserOption = None,
    reveal: RevealOption = False,
    quiet: QuietOption = False,
    out: OutOption = "runs",
    checkpoint: Annotated[
        bool, typer.Option(help="Checkpoint every step (SQLite under --out by default).")
    ] = True,
    checkpoint_dsn: DsnOption = None,
    config: ConfigOption = None,
) -> None:
    """Play one game, shown live; logs go to OUT/<run id>/events.jsonl and prompts.jsonl.

    The run id is the game id (game-<players>p-seed<seed>), suffixed -2, -3... when earlier runs
    under OUT took it: no run ever writes into another run's folder."""
    from mafia.commands.display import GameView
    from mafia.play.runner import run_game
    from mafia.turn.people import TerminalSeat, has_people

    console = terminal()
    file = read_game_file(config)
    setup = game_setup(ctx, file, seed, players, roles, names, round_cap)
    try:
        game_config = config_from_input(setup)
    except ConfigError as exc:
        in_file = exc.field.split(".")[0] in file.setup and exc.field.split(".")[0] not in _given(ctx)
        raise SettingError(f"{file.path}: {exc}" if in_file else f"invalid game setting {exc}") from None
    humans = parse_humans(human)
    check_seats(humans, game_config, "--human")
    default, seats, _ = choose_models(ctx, file, model, seat_model, humans)
    check_seats(file.seats, game_config, f"{file.path}: seats")
    check_seats(seats, game_config, "--seat-model")
    max_retries = from_file(ctx, "max_retries", max_retries, file.run)
    check_models([default, *seats.values()], max_retries)
    file_policy = file.policy if "policy" not in _given(ctx) else None
    context_policy = file_policy or check_policy(policy)
    writer = None
    if summariser is not None or file.summariser is not None:
        flag = "--summariser" if summariser is not None else f"{file.path}: summariser"
        writer = check_summariser(
            flag, summariser or file.summariser or "", game_config.players, [context_policy]
        )
    out_dir = out_path(from_file(ctx, "out", out, file.run))
    checkpoint = from_file(ctx, "checkpoint", checkpoint, file.run)
    check_out_dir(out_dir)
    dsn = checkpoint_dsn if checkpoint else None
    if dsn:
        check_store(dsn)
    elif checkpoint:
        check_checkpoint_file(out_dir / CHECKPOINT_FILE)
    view = GameView(
        console,
        reveal=from_file(ctx, "reveal", reveal, file.run),
        quiet=from_file(ctx, "quiet", quiet, file.run),
    )
    run_id = ""
    hint: str | None = None

    def started(new_id: str) -> None:
        nonlocal run_id, hint
        run_id = new_id
        console.print(f"[dim]Game {run_id}: logs in {out_dir / run_id}/[/]", soft_wrap=True)
        if checkpoint:
            hint = resume_command(run_id, out_dir, _flag(ctx, dsn))
            console.print(f"[dim]If it stops, go on with: {hint}[/]", soft_wrap=True)

    kwargs: dict[str, Any] = {
        "model": default,
        "seat_models": seats,
        "max_retries": max_retries,
        "policy": context_policy,
        "out_dir": out_dir,
        "on_start": started,
        "on_event": view,
        "human": TerminalSeat(console) if has_people(default, seats) else None,
        "prices": file.prices,
        "summariser": writer,
    }
    if checkpoint:
        with checkpoint_store(out_dir, dsn) as saver:
            final = play_through(console, lambda: run_game(setup, checkpointer=saver, **kwargs), lambda: hint)
    else:
        final = play_through(console, lambda: run_game(setup, **kwargs), lambda: None)
    finish(console, out_dir / run_id, final)


def finish(console: Console, folder: Path, final: dict[str, Any]) -> None:
    """After a game: what it cost and where its logs are (exit code 1 if it did not end)."""
    console.print(cost_line(run_cost(folder)), soft_wrap=True)
    console.print(f"[dim]Logs: {folder}/  (run {folder.name})[/]")
    if final.get("winner") is None:
        raise typer.Exit(code=1)


def check_store(dsn: str) -> None:
    """A connection string psycopg can read, checked before anything starts."""
    try:
        check_dsn(dsn)
    except CheckpointStoreError as exc:
        raise SettingError(f"--checkpoint-dsn: {exc}") from None


@contextmanager
def checkpoint_store(out: Path, dsn: str | None) -> Iterator[BaseCheckpointSaver[Any]]:
    """The checkpointer of ``open_checkpointer``; a database that cannot be used exits with its cause."""
    try:
        with open_checkpointer(out, dsn) as saver:
            yield saver
    except CheckpointStoreError as exc:
        raise SettingError(f"--checkpoint-dsn: {exc}") from None


def _flag(ctx: typer.Context, dsn: str | None) -> str | None:
    """``dsn`` if it was given on the command line itself (not from the environment)."""
    source = ctx.get_parameter_source("checkpoint_dsn")
    return dsn if source is not None and source.name == "COMMANDLINE" else None


def _given(ctx: typer.Context) -> set[str]:
    """The options set on the command line itself."""
    sources = {name: ctx.get_parameter_source(name) for name in ctx.params}
    return {
        name for name, source in sources.items() if source and source.name not in ("DEFAULT", "DEFAULT_MAP")
    }


def game_setup(
    ctx: typer.Context,
    file: GameFile,
    seed: int,
    players: int,
    roles: str | None,
    names: str | None,
    round_cap: int,
) -> dict[str, Any]:
    """The game's setup mapping: the command line's options over the file's fields. Without a seat
    count from either, names given set it."""
    setup = dict(file.setup)
    flags: dict[str, Any] = {"seed": seed, "players": players, "round_cap": round_cap}
    if roles is not None:
        flags["roles"] = parse_roles(roles)
    if names is not None:
        flags["names"] = [n.strip() for n in names.split(",")]
    given = _given(ctx)
    setup.update({key: value for key, value in flags.items() if key in given})
    for key in ("seed", "round_cap") + (() if "names" in setup else ("players",)):
        setup.setdefault(key, flags[key])
    return setup


@app.command()
def resume(
    ctx: typer.Context,
    thread: Annotated[str, typer.Argument(help="The run id `mafia play` printed (`mafia runs` lists them).")],
    out: OutOption = "runs",
    model: KeptModelOption = "house",
    seat_model: SeatModelOption = None,
    human: HumanOption = None,
    max_retries: KeptRetriesOption = 2,
    policy: KeptPolicyOption = DEFAULT_POLICY,
    change_model: ChangeModelOption = False,
    change_policy: ChangePolicyOption = False,
    quiet: QuietOption = False,
    reveal: RevealOption = False,
    summariser: SummariserOption = None,
    checkpoint_dsn: DsnOption = None,
    config: ConfigOption = None,
) -> None:
    """Go on with a checkpointed game from its last completed step (the game so far is shown
    first), with the models, people, policy, retries and summariser it was started with. A model,
    seat, policy, retries or summariser given here (or by a game file) that differs from the run's
    own is refused, unless --change-model or --change-policy allows it; the change is then logged
    in the game's events."""
    from mafia.commands.display import GameView
    from mafia.play.runner import is_saved, recorded_run, resume_game
    from mafia.run.record import seat_number
    from mafia.turn.people import TerminalSeat

    console = terminal()
    file = read_game_file(config)
    given = _given(ctx)
    out_dir = out_path(from_file(ctx, "out", out, file.run))
    dsn = checkpoint_dsn
    database = out_dir / CHECKPOINT_FILE
    if dsn:
        check_store(dsn)
    elif not database.exists():
        raise SettingError(f"no checkpoints at {database} (use --out with the folder the game used)")
    check_out_dir(out_dir)
    if not dsn:
        check_checkpoint_file(database)
    view = GameView(
        console,
        reveal=from_file(ctx, "reveal", reveal, file.run),
        quiet=from_file(ctx, "quiet", quiet, file.run),
    )
    hint = resume_command(thread, out_dir, _flag(ctx, dsn))
    with checkpoint_store(out_dir, dsn) as saver:
        if not is_saved(saver, thread):
            where = "the checkpoint database" if dsn else str(database)
            raise SettingError(f"no checkpointed game with thread id {thread!r} in {where}")
        recorded, names = recorded_run(saver, thread)
        default, _, flag_seats = choose_models(ctx, file, model, seat_model, parse_humans(human))
        given_seats: dict[str, Model] = {**file.seats, **flag_seats}
        seats = {seat_number(k, names): m for k, m in given_seats.items()}
        retries = from_file(ctx, "max_retries", max_retries, file.run)
        check_models([default, *seats.values()], retries)
        chosen: dict[str, Any] = {}
        if "model" in given or file.model is not None:
            chosen["model"] = default
        if seats:
            chosen["seat_models"] = {**(recorded or {}).get("seat_models", {}), **seats}
        if "policy" in given or file.policy is not None:
            chosen["policy"] = file.policy if "policy" not in given and file.policy else check_policy(policy)
        if "max_retries" in given or "max_retries" in file.run:
            chosen["max_retries"] = retries
        writer = summariser if summariser is not None else file.summariser
        if writer is not None:
            flag = "--summariser" if summariser is not None else f"{file.path}: summariser"
            kept = chosen.get("policy") or policy_from_input(
                (recorded or {}).get("policy") or UNRECORDED_POLICY
            )
            chosen["summariser"] = check_summariser(flag, writer, len(names), [kept])
        change = [kind for kind, on in (("model", change_model), ("policy", change_policy)) if on]

        def run() -> dict[str, Any]:
            return resume_game(
                thread,
                checkpointer=saver,
                change=change,
                out_dir=out_dir,
                on_event=view,
                on_resumed=view.resumed,
                human=TerminalSeat(console),
                **chosen,
            )

        final = play_through(console, run, lambda: hint)
    finish(console, out_dir / thread, final)


@app.command()
def runs(ctx: typer.Context, out: OutOption = "runs", checkpoint_dsn: DsnOption = None) -> None:
    """List the games checkpointed under OUT (or in the database of --checkpoint-dsn): where each
    stands, what it cost so far and the command that resumes it."""
    from mafia.play.runner import game_status, is_running, saved_threads

    console = terminal()
    out_dir = out_path(out)
    dsn = checkpoint_dsn
    database = out_dir / CHECKPOINT_FILE
    if dsn:
        check_store(dsn)
    else:
        if not database.exists():
            raise SettingError(f"no checkpoints at {database} (use --out with the folder the games used)")
        try:
            saved_threads(database)
        except sqlite3.DatabaseError as exc:
            raise SettingError(f"{database} is not a checkpoint file ({exc})") from None
    with checkpoint_store(out_dir, dsn) as saver:
        threads = list_threads(saver, out_dir)
        if not threads:
            console.print(f"No games in {'the checkpoint database' if dsn else database}.")
            return
        for thread in threads:
            status = game_status(saver, thread)
            if status["winner"] is not None:
                state, command = f"finished: {status['winner']} won", ""
            else:
                where = "night zero" if status["round"] == 0 else f"{status['phase']} {status['round']}"
                state = "running now" if is_running(out_dir / thread) else f"stopped at {where}"
                command = resume_command(thread, out_dir, _flag(ctx, dsn))
            console.print(f"{thread}  {state}  ({status['events']} events)")
            console.print(f"    {cost_line(run_cost(out_dir / thread))}", soft_wrap=True)
            if command:
                console.print(f"    {command}", soft_wrap=True)


@app.command()
def serve(
    database_uri: Annotated[
        str | None,
        typer.Option(
            envvar="DATABASE_URI",
            help="The Postgres database of the runs (postgresql://...).",
            show_default=False,
        ),
    ] = None,
    redis_uri: Annotated[
        str | None,
        typer.Option(
            envvar="REDIS_URI", help="The Redis of the runs' streams (redis://...).", show_default=False
        ),
    ] = None,
    workers: Annotated[int, typer.Option(help="Games this process plays at once.")] = 4,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 2024,
    data: Annotated[
        Path,
        typer.Option(
            help="Folder of the PostgreSQL and Redis the server starts when given neither URI "
            "(reused at the next start)."
        ),
    ] = Path("runs/server"),
    log_level: Annotated[
        str,
        typer.Option(help="What the server logs: debug, info (runs start, end), warning, error."),
    ] = "warning",
) -> None:
    """Serve the game graph on the LangGraph API server with Postgres and Redis (the server extra):
    arenas and tournaments queue their games here (--server URL --queue). Given neither URI, it
    starts its own PostgreSQL and Redis (their files under --data) and stops them when it stops.
    Start it again on the same database and Redis (another port or machine) to add a process
    taking games from the same queue; a process stopped or killed leaves its games to the others."""
    from mafia.commands.local_services import local_services
    from mafia.commands.serve import check_reachable, check_serve
    from mafia.commands.serve import serve as run_server

    given = check_serve(database_uri, redis_uri, workers, log_level)
    if given is not None:
        check_reachable(*given)
        run_server(*given, workers, host, port, log_level)
        return
    with local_services(data) as local:
        typer.echo(
            f"PostgreSQL and Redis of this server in {data}/, stopped with it; another process joins "
            f"with: mafia serve --database-uri {local.database_uri} --redis-uri {local.redis_uri} "
            "--port OTHER",
            err=True,
        )
        run_server(local.database_uri, local.redis_uri, workers, host, port, log_level)


terminal_wrapped(app)  # every command is registered above
