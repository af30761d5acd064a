"""Command line: ``mafia play`` runs a game live in the terminal and writes its logs under ``runs/``."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from mafia.display import GameView
from mafia.models.factory import ModelSpecError, resolve_model
from mafia.nodes.setup import config_from_input, game_id_for
from mafia.rules import ROLE_FIELDS, ConfigError
from mafia.runner import run_game, sqlite_checkpointer

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


@app.command()
def play(
    seed: Annotated[int, typer.Option(help="Seed for the deal, personas and the house model.")] = 0,
    players: Annotated[int, typer.Option(help="Seats at the table (5-16).")] = 7,
    roles: Annotated[str | None, typer.Option(help="Role counts, e.g. 'mafia=3,doctor=1'.")] = None,
    names: Annotated[str | None, typer.Option(help="Comma-separated player names, one per seat.")] = None,
    round_cap: Annotated[int, typer.Option(help="Rounds before the game is a draw.")] = 20,
    model: Annotated[
        str, typer.Option(help="Model for every seat: house, house:SEED, openai:MODEL...")
    ] = "house",
    seat_model: Annotated[
        list[str] | None, typer.Option(help="Per-seat model, e.g. 3=openai:gpt-4o-mini.")
    ] = None,
    max_retries: Annotated[int, typer.Option(help="Re-asks after a bad answer before the fallback.")] = 2,
    reveal: Annotated[bool, typer.Option(help="Show private night actions as they happen.")] = False,
    quiet: Annotated[bool, typer.Option(help="Show only the setup and the result.")] = False,
    out: Annotated[Path, typer.Option(help="Folder for runs/<game_id>/ logs and checkpoints.")] = Path(
        "runs"
    ),
    checkpoint: Annotated[bool, typer.Option(help="Checkpoint every step to SQLite under --out.")] = True,
) -> None:
    """Play one game, shown live; logs go to OUT/<game_id>/events.jsonl and prompts.jsonl."""
    console = Console(highlight=False)
    setup: dict[str, Any] = {"seed": seed, "players": players, "round_cap": round_cap}
    if roles is not None:
        setup["roles"] = parse_roles(roles)
    if names is not None:
        setup["names"] = [n.strip() for n in names.split(",")]
    seats = parse_seat_models(seat_model or [])
    if max_retries < 0:
        raise typer.BadParameter("must be 0 or more", param_hint="--max-retries")
    try:
        game_config = config_from_input(setup)
        for spec in {model, *seats.values()}:
            resolve_model(spec)  # built once here, reused by the game
    except ConfigError as exc:
        raise _fail(console, f"invalid game setting {exc}") from None
    except ModelSpecError as exc:
        raise _fail(console, str(exc)) from None
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
        with sqlite_checkpointer(out / "checkpoints.sqlite") as saver:
            final = run_game(setup, checkpointer=saver, thread_id=thread_id, **kwargs)
    else:
        final = run_game(setup, **kwargs)
    console.print(f"[dim]Logs: {out / game_id}/  (thread {thread_id})[/]")
    if final.get("winner") is None:
        raise typer.Exit(code=1)
