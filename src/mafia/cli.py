"""Command line: ``mafia play`` runs a game live in the terminal and writes its logs under ``runs/``;
``mafia resume`` goes on with a checkpointed game that stopped."""

from __future__ import annotations

import shlex
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from mafia.display import GameView
from mafia.models.factory import ModelSpecError, resolve_model
from mafia.nodes.setup import config_from_input, game_id_for
from mafia.rules import ROLE_FIELDS, ConfigError
from mafia.runner import is_saved, resume_game, run_game, sqlite_checkpointer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="LLM players play Mafia on LangGraph.")


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


def _fail(console: Console, message: str) -> typer.Exit:
    console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code=2)


@app.callback()
def main() -> None:
    """LLM players play Mafia on LangGraph."""


ModelOption = Annotated[str, typer.Option(help="Model for every seat: house, house:SEED, openai:MODEL...")]
SeatModelOption = Annotated[list[str] | None, typer.Option(help="Per-seat model, e.g. 3=openai:gpt-4o-mini.")]
RetriesOption = Annotated[int, typer.Option(help="Re-asks after a bad answer before the fallback.")]
RevealOption = Annotated[bool, typer.Option(help="Show private night actions as they happen.")]
QuietOption = Annotated[bool, typer.Option(help="Show only the setup and the result.")]
OutOption = Annotated[Path, typer.Option(help="Folder for runs/<game_id>/ logs and checkpoints.")]


def check_models(
    console: Console, model: str, seat_model: list[str] | None, max_retries: int
) -> dict[str, str]:
    """The per-seat specs, with every model built once up front (bad specs exit with a message)."""
    seats = parse_seat_models(seat_model or [])
    if max_retries < 0:
        raise typer.BadParameter("must be 0 or more", param_hint="--max-retries")
    try:
        for spec in {model, *seats.values()}:
            resolve_model(spec)  # built once here, reused by the game
    except ModelSpecError as exc:
        raise _fail(console, str(exc)) from None
    return seats


def play_through(
    console: Console, run: Callable[[], dict[str, Any]], resume_hint: str | None
) -> dict[str, Any]:
    """Run a game; a failure that is not an answer (a provider outage, a revoked key) ends the
    command with its cause and, when the game is checkpointed, how to go on."""
    try:
        return run()
    except KeyboardInterrupt:
        console.print("[bold red]stopped.[/]")
        if resume_hint:
            console.print(f"Go on with: {resume_hint}")
        raise typer.Exit(code=130) from None
    except Exception as exc:
        console.print(f"[bold red]error:[/] the game stopped: {type(exc).__name__}: {exc}")
        if resume_hint:
            console.print(f"It is checkpointed. Go on with: {resume_hint}")
        raise typer.Exit(code=1) from None


def resume_command(thread_id: str, out: Path, model: str, seats: dict[str, str], max_retries: int) -> str:
    """The command line that resumes ``thread_id`` with the same models."""
    parts = ["mafia", "resume", thread_id, "--out", shlex.quote(str(out)), "--model", shlex.quote(model)]
    for seat, spec in seats.items():
        parts += ["--seat-model", shlex.quote(f"{seat}={spec}")]
    return " ".join([*parts, "--max-retries", str(max_retries)])


@app.command()
def play(
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
) -> None:
    """Play one game, shown live; logs go to OUT/<game_id>/events.jsonl and prompts.jsonl."""
    console = Console(highlight=False)
    setup: dict[str, Any] = {"seed": seed, "players": players, "round_cap": round_cap}
    if roles is not None:
        setup["roles"] = parse_roles(roles)
    if names is not None:
        setup["names"] = [n.strip() for n in names.split(",")]
    try:
        game_config = config_from_input(setup)
    except ConfigError as exc:
        raise _fail(console, f"invalid game setting {exc}") from None
    seats = check_models(console, model, seat_model, max_retries)
    game_id = game_id_for(setup, game_config)
    view = GameView(console, reveal=reveal, quiet=quiet)
    kwargs: dict[str, Any] = {
        "model": model,
        "seat_models": seats,
        "max_retries": max_retries,
        "out_dir": out,
        "on_event": view,
    }
    thread_id = f"{game_id}-{uuid.uuid4().hex[:8]}"
    if checkpoint:
        hint = resume_command(thread_id, out, model, seats, max_retries)
        with sqlite_checkpointer(out / "checkpoints.sqlite") as saver:
            final = play_through(
                console, lambda: run_game(setup, checkpointer=saver, thread_id=thread_id, **kwargs), hint
            )
    else:
        final = play_through(console, lambda: run_game(setup, **kwargs), None)
    console.print(f"[dim]Logs: {out / game_id}/  (thread {thread_id})[/]")
    if final.get("winner") is None:
        raise typer.Exit(code=1)


@app.command()
def resume(
    thread: Annotated[str, typer.Argument(help="The thread id `mafia play` printed.")],
    out: OutOption = Path("runs"),
    model: ModelOption = "house",
    seat_model: SeatModelOption = None,
    max_retries: RetriesOption = 2,
    quiet: QuietOption = False,
    reveal: RevealOption = False,
) -> None:
    """Go on with a checkpointed game from its last completed step (the game so far is shown
    first); models are given again, as for play."""
    console = Console(highlight=False)
    seats = check_models(console, model, seat_model, max_retries)
    database = out / "checkpoints.sqlite"
    if not database.exists():
        raise _fail(console, f"no checkpoints at {database} (use --out with the folder the game used)")
    view = GameView(console, reveal=reveal, quiet=quiet)
    hint = resume_command(thread, out, model, seats, max_retries)
    with sqlite_checkpointer(database) as saver:
        if not is_saved(saver, thread):
            raise _fail(console, f"no checkpointed game with thread id {thread!r} in {database}")

        def run() -> dict[str, Any]:
            return resume_game(
                thread,
                checkpointer=saver,
                model=model,
                seat_models=seats,
                max_retries=max_retries,
                out_dir=out,
                on_event=view,
            )

        final = play_through(console, run, hint)
    console.print(f"[dim]Logs: {out / final['game_id']}/  (thread {thread})[/]")
    if final.get("winner") is None:
        raise typer.Exit(code=1)
