"""Command line: ``mafia play`` runs a game live in the terminal and writes its logs under ``runs/``;
``mafia resume`` goes on with a checkpointed game that stopped; ``mafia runs`` lists the games. Play
and resume read an optional TOML game file (``--config``); options given on the command line override it."""

from __future__ import annotations

import logging
import shlex
import signal
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from mafia import tracing
from mafia.checks import check_checkpoint_file, check_out_dir, check_seats
from mafia.cli_frame import MafiaApp, OneLineErrors, SettingError
from mafia.display import GameView
from mafia.game_file import GameFile, GameFileError, load_game_file
from mafia.models.factory import ModelSpecError, cancel_calls, resolve_model
from mafia.models.settings import ModelSettings
from mafia.nodes.setup import config_from_input
from mafia.rules import ROLE_FIELDS, ConfigError
from mafia.runner import (
    LogConflict,
    RunBusy,
    RunExists,
    game_status,
    is_running,
    is_saved,
    read_run_file,
    resume_game,
    run_game,
    saved_threads,
    sqlite_checkpointer,
)

app = MafiaApp(
    cls=OneLineErrors, add_completion=False, no_args_is_help=True, help="LLM players play Mafia on LangGraph."
)
Model = str | ModelSettings


def parse_roles(text: str) -> dict[str, int]:
    """``"mafia=3,doctor=1"`` as a role-count mapping (BadParameter names what is allowed)."""
    counts: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        name = name.strip().lower()
        if not sep or name not in ROLE_FIELDS or not value.strip().lstrip("-").isdigit():
            raise typer.BadParameter(
                f"{part!r}: use ROLE=COUNT with ROLE one of {', '.join(ROLE_FIELDS)}",
                param_hint="--roles",
            )
        counts[name] = int(value)
    return counts


def parse_seat_models(items: list[str]) -> dict[str, str]:
    """``["3=openai:gpt-4o-mini"]`` as {seat or name: model spec}."""
    seats: dict[str, str] = {}
    for item in items:
        seat, sep, spec = item.partition("=")
        if not sep or not seat.strip() or not spec.strip():
            raise typer.BadParameter(f"{item!r}: use SEAT=MODEL, e.g. 3=house:7", param_hint="--seat-model")
        seats[seat.strip()] = spec.strip()
    return seats


@app.callback()
def main() -> None:
    """LLM players play Mafia on LangGraph."""


ModelOption = Annotated[str, typer.Option(help="Model for every seat: house, house:SEED, openai:MODEL...")]
SeatModelOption = Annotated[list[str] | None, typer.Option(help="Per-seat model, e.g. 3=openai:gpt-4o-mini.")]
RetriesOption = Annotated[int, typer.Option(help="Re-asks after a bad answer before the fallback.")]
RevealOption = Annotated[bool, typer.Option(help="Show private night actions as they happen.")]
QuietOption = Annotated[bool, typer.Option(help="Show only the setup and the result.")]
OutOption = Annotated[Path, typer.Option(help="Folder for the runs' logs (OUT/<run id>/) and checkpoints.")]
CHECKPOINT_FILE = "checkpoints.sqlite"
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML game file; options given here override it.")
]


def read_game_file(path: Path | None) -> GameFile:
    """The checked game file, or an empty one without ``--config``."""
    if path is None:
        return GameFile(path=Path())
    try:
        return load_game_file(path)
    except GameFileError as exc:
        raise SettingError(str(exc)) from None


def from_file(ctx: typer.Context, name: str, value: Any, file_values: dict[str, Any]) -> Any:
    """An option's value: the command line's when given there, else the file's, else the default."""
    return value if name in _given(ctx) or name not in file_values else file_values[name]


def choose_models(
    ctx: typer.Context, file: GameFile, model: str, seat_model: list[str] | None
) -> tuple[Model, dict[str, Model], dict[str, str]]:
    """The default model and per-seat models: the file's, with ``--model`` replacing its default and
    each ``--seat-model`` replacing that seat's entry. Also the command line's own seat specs."""
    flag_seats = parse_seat_models(seat_model or [])
    default: Model = from_file(ctx, "model", model, {"model": file.model} if file.model else {})
    return default, {**file.seats, **flag_seats}, flag_seats


def check_models(models: list[Model], max_retries: int) -> None:
    """Every model is built once up front (a bad spec or setting exits with a message)."""
    if max_retries < 0:
        raise typer.BadParameter("must be 0 or more", param_hint="--max-retries")
    try:
        for spec in models:
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
    interruptible = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not if told to ignore it
    )
    previous = signal.signal(signal.SIGINT, _interrupt) if interruptible else None
    try:
        return run()
    except (RunBusy, RunExists, LogConflict) as exc:
        raise SettingError(str(exc)) from None
    except KeyboardInterrupt:
        console.print("[bold red]stopped.[/]")
        resume_hint = hint()
        if resume_hint:
            console.print(f"Go on with: {resume_hint}", soft_wrap=True)
        raise typer.Exit(code=130) from None
    except Exception as exc:
        console.print(f"[bold red]error:[/] the game stopped: {type(exc).__name__}: {exc}")
        resume_hint = hint()
        if resume_hint:
            console.print(f"It is checkpointed. Go on with: {resume_hint}", soft_wrap=True)
        raise typer.Exit(code=1) from None
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        tracing.close()  # traces still queued are sent, within a bounded wait


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C during a game: wake the turns waiting on model calls, then stop as Python would.
    The step's executor is torn down under its tasks' done-callbacks, which concurrent.futures
    would report as tracebacks of cancelled futures: noise of a stop the user asked for."""
    cancel_calls()
    logging.getLogger("concurrent.futures").setLevel(logging.CRITICAL + 1)
    raise KeyboardInterrupt


def resume_command(
    thread_id: str, out: Path, model: Model, seats: dict[str, str], max_retries: int, config: Path | None
) -> str:
    """The command line that resumes ``thread_id`` with the same models: the game file's, and those
    the command line gave."""
    parts = ["mafia", "resume", thread_id, "--out", shlex.quote(str(out))]
    if config is not None:
        parts += ["--config", shlex.quote(str(config))]
    if isinstance(model, str):
        parts += ["--model", shlex.quote(model)]
    for seat, spec in seats.items():
        parts += ["--seat-model", shlex.quote(f"{seat}={spec}")]
    return " ".join([*parts, "--max-retries", str(max_retries)])


@app.command()
def play(
    ctx: typer.Context,
    seed: Annotated[int, typer.Option(help="Seed for the deal, personas and the house model.")] = 0,
    players: Annotated[int, typer.Option(help="Seats at the table (5-16).")] = 7,
    roles: Annotated[str | None, typer.Option(help="Role counts, e.g. 'mafia=3,doctor=1'.")] = None,
    names: Annotated[str | None, typer.Option(help="Comma-separated player names, one per seat.")] = None,
    round_cap: Annotated[int, typer.Option(help="Rounds before the game is a draw.")] = 20,
    model: ModelOption = "house",
    seat_model: SeatModelOption = None,
    max_retries: RetriesOption = 2,
    reveal: RevealOption = False,
    quiet: QuietOption = False,
    out: OutOption = Path("runs"),
    checkpoint: Annotated[bool, typer.Option(help="Checkpoint every step to SQLite under --out.")] = True,
    config: ConfigOption = None,
) -> None:
    """Play one game, shown live; logs go to OUT/<run id>/events.jsonl and prompts.jsonl.

    The run id is the game id (game-<players>p-seed<seed>), suffixed -2, -3... when earlier runs
    under OUT took it: no run ever writes into another run's folder."""
    console = Console(highlight=False)
    file = read_game_file(config)
    setup = game_setup(ctx, file, seed, players, roles, names, round_cap)
    try:
        game_config = config_from_input(setup)
    except ConfigError as exc:
        in_file = exc.field.split(".")[0] in file.setup and exc.field.split(".")[0] not in _given(ctx)
        raise SettingError(f"{file.path}: {exc}" if in_file else f"invalid game setting {exc}") from None
    default, seats, flag_seats = choose_models(ctx, file, model, seat_model)
    check_seats(file.seats, game_config, f"{file.path}: seats")
    check_seats(seats, game_config, "--seat-model")
    max_retries = from_file(ctx, "max_retries", max_retries, file.run)
    check_models([default, *seats.values()], max_retries)
    out = Path(from_file(ctx, "out", out, file.run))
    checkpoint = from_file(ctx, "checkpoint", checkpoint, file.run)
    check_out_dir(out)
    if checkpoint:
        check_checkpoint_file(out / CHECKPOINT_FILE)
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
        console.print(f"[dim]Game {run_id}: logs in {out / run_id}/[/]", soft_wrap=True)
        if checkpoint:
            hint = resume_command(run_id, out, default, flag_seats, max_retries, config)
            console.print(f"[dim]If it stops, go on with: {hint}[/]", soft_wrap=True)

    kwargs: dict[str, Any] = {
        "model": default,
        "seat_models": seats,
        "max_retries": max_retries,
        "out_dir": out,
        "on_start": started,
        "on_event": view,
    }
    if checkpoint:
        with sqlite_checkpointer(out / CHECKPOINT_FILE) as saver:
            final = play_through(console, lambda: run_game(setup, checkpointer=saver, **kwargs), lambda: hint)
    else:
        final = play_through(console, lambda: run_game(setup, **kwargs), lambda: None)
    console.print(f"[dim]Logs: {out / run_id}/  (run {run_id})[/]")
    if final.get("winner") is None:
        raise typer.Exit(code=1)


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
    out: OutOption = Path("runs"),
    model: ModelOption = "house",
    seat_model: SeatModelOption = None,
    max_retries: RetriesOption = 2,
    quiet: QuietOption = False,
    reveal: RevealOption = False,
    config: ConfigOption = None,
) -> None:
    """Go on with a checkpointed game from its last completed step (the game so far is shown
    first); models are given again, as for play, and a game file gives its models and options
    (its game fields are not used: the checkpoint holds the game)."""
    console = Console(highlight=False)
    file = read_game_file(config)
    default, seats, flag_seats = choose_models(ctx, file, model, seat_model)
    max_retries = from_file(ctx, "max_retries", max_retries, file.run)
    check_models([default, *seats.values()], max_retries)
    out = Path(from_file(ctx, "out", out, file.run))
    database = out / CHECKPOINT_FILE
    if not database.exists():
        raise SettingError(f"no checkpoints at {database} (use --out with the folder the game used)")
    check_out_dir(out)
    check_checkpoint_file(database)
    view = GameView(
        console,
        reveal=from_file(ctx, "reveal", reveal, file.run),
        quiet=from_file(ctx, "quiet", quiet, file.run),
    )
    hint = resume_command(thread, out, default, flag_seats, max_retries, config)
    with sqlite_checkpointer(database) as saver:
        if not is_saved(saver, thread):
            raise SettingError(f"no checkpointed game with thread id {thread!r} in {database}")

        def run() -> dict[str, Any]:
            return resume_game(
                thread,
                checkpointer=saver,
                model=default,
                seat_models=seats,
                max_retries=max_retries,
                out_dir=out,
                on_event=view,
            )

        final = play_through(console, run, lambda: hint)
    console.print(f"[dim]Logs: {out / thread}/  (run {thread})[/]")
    if final.get("winner") is None:
        raise typer.Exit(code=1)


@app.command()
def runs(out: OutOption = Path("runs")) -> None:
    """List the games checkpointed under OUT: where each stands and the command that resumes it."""
    console = Console(highlight=False)
    database = out / CHECKPOINT_FILE
    if not database.exists():
        raise SettingError(f"no checkpoints at {database} (use --out with the folder the games used)")
    try:
        threads = saved_threads(database)
    except sqlite3.DatabaseError as exc:
        raise SettingError(f"{database} is not a checkpoint file ({exc})") from None
    if not threads:
        console.print(f"No games in {database}.")
        return
    with sqlite_checkpointer(database) as saver:
        for thread in threads:
            status = game_status(saver, thread)
            if status["winner"] is not None:
                state, command = f"finished: {status['winner']} won", ""
            else:
                where = "night zero" if status["round"] == 0 else f"{status['phase']} {status['round']}"
                state = "running now" if is_running(out / thread) else f"stopped at {where}"
                command = run_resume_command(thread, out)
            console.print(f"{thread}  {state}  ({status['events']} events)")
            if command:
                console.print(f"    {command}", soft_wrap=True)


def run_resume_command(thread: str, out: Path) -> str:
    """The command that resumes ``thread`` with the models its run recorded (else the defaults)."""
    recorded = read_run_file(out / thread)
    model = recorded.get("model", "house")
    seats = dict(recorded.get("seat_models", {}))
    if any(spec.startswith("<") for spec in [model, *seats.values()]):  # given as Python objects
        return f"mafia resume {thread} --out {shlex.quote(str(out))} --model MODEL ..."
    return resume_command(thread, out, model, seats, int(recorded.get("max_retries", 2)), None)
