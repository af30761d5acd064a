"""Checks of a command's inputs that the rules do not cover, made before a game starts: role counts
must parse, per-seat models must name seats at the table, a summariser must be one the run can use,
and the output folder and checkpoint file must be usable. Each failure is one line and exit code 2
(``SettingError`` or typer's BadParameter)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from mafia.context.policy import POLICIES, ContextPolicy
from mafia.game.rules import ROLE_FIELDS
from mafia.run.inputs import SUMMARISER_FORMS, summariser_from_input
from mafia.run.settings import SettingError

CHECKPOINT_TABLES = frozenset({"checkpoints", "writes"})
RetriesOption = Annotated[int, typer.Option(help="Re-asks after a bad answer before the fallback.")]
RolesOption = Annotated[
    str | None,
    typer.Option(
        help=f"Role counts of {', '.join(ROLE_FIELDS)} (Town fills the seats left), "
        "e.g. 'mafia=3,bodyguard=1'."
    ),
]
SummariserOption = Annotated[
    str | None,
    typer.Option(
        help=f"Who writes the summaries of policies with summaries: {SUMMARISER_FORMS}.", show_default=False
    ),
]


def check_summariser(flag: str, value: str, players: int, policies: Sequence[ContextPolicy]) -> str | None:
    """The summariser ``value`` names (``run_input.summariser_from_input``; exits with the forms),
    refused when none of the run's ``policies`` writes summaries (it would never be asked)."""
    try:
        writer = summariser_from_input(flag, value, players)
    except ValueError as exc:
        raise SettingError(str(exc)) from None
    if not any(p.summary for p in policies):
        with_summaries = ", ".join(name for name, p in POLICIES.items() if p.summary)
        names = ", ".join(p.name for p in policies)
        raise SettingError(
            f"{flag}: the policy {names} writes no summaries; give a policy that does "
            f"({with_summaries}) or leave the summariser out"
        )
    return writer


def check_out_dir(out: Path) -> None:
    """``out`` is a folder this process can write in, or can be made as one."""
    if out.exists() and not out.is_dir():
        raise SettingError(f"--out: {out} is a file; give a folder for the logs and checkpoints")
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise SettingError(f"--out: {existing} is a file, so {out} cannot be made; give a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise SettingError(f"--out: {existing} is not writable; give a folder you can write in")
    try:  # a file system that refuses files whatever the permissions say (/proc, /sys)
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise SettingError(
            f"--out: nothing can be written in {existing} ({exc.strerror}); give a folder you can write in"
        ) from None


def check_checkpoint_file(path: Path) -> None:
    """An existing checkpoint file is a readable, sound SQLite database holding checkpoints only
    (it is never created or changed here)."""
    if not path.exists():
        return
    if not path.is_file():
        raise SettingError(f"--out: {path} is not a file; move it away or choose another --out")
    fix = "move it away or choose another --out"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True)
    except sqlite3.Error as exc:
        raise SettingError(f"--out: cannot open the checkpoint file {path} ({exc}); {fix}") from None
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise SettingError(f"--out: {path} is not a SQLite checkpoint file ({exc}); {fix}") from None
    finally:
        conn.close()
    if verdict != "ok":
        raise SettingError(f"--out: the checkpoint file {path} is corrupt ({verdict}); {fix}")
    if tables and not tables >= CHECKPOINT_TABLES:
        held = ", ".join(sorted(tables))
        raise SettingError(f"--out: {path} is a SQLite database of something else (tables: {held}); {fix}")


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
        if name in counts:
            raise typer.BadParameter(f"{name} is given twice; give each role once", param_hint="--roles")
        counts[name] = int(value)
    if not counts:
        raise typer.BadParameter(
            f"give ROLE=COUNT pairs, e.g. mafia=2,doctor=1 (ROLE one of {', '.join(ROLE_FIELDS)})",
            param_hint="--roles",
        )
    return counts
