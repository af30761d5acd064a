"""``mafia replay RUN``: a finished or stopped game read back from its run folder, in the terminal
(the live view's display) or as an HTML page; or the exact prompts one seat received."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mafia.commands.stdout import terminal
from mafia.records.cost import cost_line, run_cost
from mafia.run.settings import SettingError

# The run folder's reader and the renderers load when a replay runs, not for `mafia replay --help`.
if TYPE_CHECKING:
    from mafia.game.events import EventBase
    from mafia.replay.run_folder import RunFolder


class View(StrEnum):
    """Whose eyes a replay shows the game through."""

    PUBLIC = "public"  # what the whole table saw: what a Town player knew
    ALL = "all"  # every event, private night actions and thoughts included


def chosen_events(folder: RunFolder, view: View, day: int | None) -> list[EventBase]:
    """The events a replay shows: the view's, of round ``day`` only if given."""
    from mafia.context.views import public_view

    events = public_view(folder.events) if view is View.PUBLIC else folder.events
    return [e for e in events if day is None or e.round == day]


def check_day(folder: RunFolder, day: int | None) -> None:
    """``day`` is a round the log reached."""
    from mafia.replay.run_folder import ReplayError

    if day is not None and not 0 <= day <= folder.rounds:
        raise ReplayError(
            f"--day {day}: this game has rounds 0-{folder.rounds} (0 is the setup and night zero)"
        )


def replay(
    run: Annotated[Path, typer.Argument(help="A run folder as `mafia play` writes it: runs/<run id>.")],
    view: Annotated[
        View | None,
        typer.Option(
            help="public: what the table saw; all: also every private night action and thought. "
            "Default: public in the terminal, all in an --html page (behind its switch)."
        ),
    ] = None,
    as_seat: Annotated[
        str | None,
        typer.Option(
            "--as", metavar="SEAT", help="Show exactly the prompts this seat (number or name) received."
        ),
    ] = None,
    day: Annotated[
        int | None, typer.Option(help="Only round N: Day N and Night N (0: the setup and night zero).")
    ] = None,
    html: Annotated[
        Path | None, typer.Option(metavar="FILE", help="Write one self-contained HTML page instead.")
    ] = None,
) -> None:
    """Replay a game from its logs: as the table saw it, with every private action, or the prompts
    one seat received; in the terminal or as an HTML page."""
    from mafia.replay.prompts import print_calls, seat_calls, seat_of
    from mafia.replay.run_folder import ReplayError, load_run

    if as_seat is not None and (view is not None or html is not None):
        raise SettingError("--as shows one seat's prompts: use it without --view and --html")
    try:
        folder = load_run(run)
        check_day(folder, day)
        for name in folder.cut:
            typer.echo(
                f"note: the last line of {name} is unfinished (the run stopped while writing it); "
                "it is left out",
                err=True,
            )
        if as_seat is not None:
            player = seat_of(as_seat, folder.started.players)
            print_calls(terminal(), seat_calls(folder.prompts(), player, day))
        elif html is not None:
            write_page(folder, view or View.ALL, day, html)
            typer.echo(f"Wrote {html}")
        else:
            show(folder, view or View.PUBLIC, day)
    except ReplayError as exc:
        raise SettingError(str(exc)) from None


def show(folder: RunFolder, view: View, day: int | None) -> None:
    """The replay in the terminal, drawn by the live view."""
    from mafia.commands.display import GameView
    from mafia.game.events import GameOver

    console = terminal()
    reveal = view is View.ALL
    game_view = GameView(console, reveal=reveal, thoughts=reveal)
    for event in chosen_events(folder, view, day):
        game_view(event)
    if not any(isinstance(e, GameOver) for e in folder.events) and (day is None or day == folder.rounds):
        where = "night zero" if folder.rounds == 0 else f"round {folder.rounds}"
        console.print(f"The game has not finished: its log ends in {where}.")
    if day is None:
        console.print(cost_line(run_cost(folder.path)), soft_wrap=True)


def write_page(folder: RunFolder, view: View, day: int | None, out: Path) -> None:
    """Write the HTML page to ``out``, whole or not at all. An existing file is replaced only if it
    is a page this command wrote: anything else there is the user's and is kept."""
    from mafia.game.events import roles_from_log
    from mafia.replay.page import GENERATOR, render_page
    from mafia.replay.run_folder import ReplayError

    if out.is_dir():
        raise ReplayError(f"--html {out}: is a folder; give a file name such as replay.html")
    if out.exists() and GENERATOR not in file_head(out):
        raise ReplayError(
            f"--html {out}: exists and is not a replay page; move it away or choose another file"
        )
    title = folder.run_id if day is None else f"{folder.run_id}, round {day}"
    page = render_page(
        folder.started,
        chosen_events(folder, view, day),
        title=title,
        run=folder.run,
        private=view is View.ALL,
        roles=roles_from_log(folder.events),
    )
    partial = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(page, encoding="utf-8")
        partial.replace(out)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ReplayError(f"--html {out}: cannot be written ({exc.strerror or exc})") from None


def file_head(path: Path) -> str:
    """The first 2 KiB of a file as text ("" if it cannot be read): where a page's generator is."""
    try:
        with path.open("rb") as handle:
            return handle.read(2048).decode("utf-8", "replace")
    except OSError:
        return ""
