"""Writing the tournament page and its games' replay pages: ``FILE`` and ``replays/<game>.html``
beside it (``/`` of a run id written ``--``), each whole or not at all. An existing page is
replaced only if this command or ``mafia replay`` wrote it."""

from __future__ import annotations

import os
from pathlib import Path

from mafia.arena.spec import GAMES_DIR, ArenaError
from mafia.game.state import JSON
from mafia.tournament.page import GENERATOR, render_page
from mafia.tournament.results import Tournament

REPLAYS_DIR = "replays"


def replay_name(game: str) -> str:
    """The file name of a game's replay page: its run id, ``/`` written ``--``."""
    return game.replace("/", "--") + ".html"


def write_page(tournament: Tournament, s: JSON, html: Path, title: str) -> Path:
    """Write every finished game's replay page (private entries behind the page's switch) to
    ``replays/`` beside ``html``, then the tournament page linking them to ``html``."""
    from mafia.replay.command import View, file_head
    from mafia.replay.command import write_page as write_replay
    from mafia.replay.run_folder import ReplayError, load_run

    if html.is_dir():
        raise ArenaError(f"--html {html}: is a folder; give a file name such as tournament.html")
    if html.exists() and GENERATOR not in file_head(html):
        raise ArenaError(
            f"--html {html}: exists and is not a tournament page; move it away or choose another file"
        )
    replays = html.parent / REPLAYS_DIR
    links: dict[str, str] = {}
    try:
        replays.mkdir(parents=True, exist_ok=True)
        for table in tournament.tables:
            name = replay_name(table.game)
            write_replay(load_run(tournament.folder / GAMES_DIR / table.game), View.ALL, None, replays / name)
            links[table.game] = f"{REPLAYS_DIR}/{name}"
    except (ReplayError, OSError) as exc:
        raise ArenaError(f"--html {html}: a replay page cannot be written ({exc})") from None
    partial = html.with_name(f".{html.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(render_page(s, tournament.request, title, links), encoding="utf-8")
        partial.replace(html)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ArenaError(f"--html {html}: cannot be written ({exc.strerror or exc})") from None
    return html
