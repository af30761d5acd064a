"""The command line's frame: a bad input is one line on stderr and exit code 2, never a usage box
or a traceback; Ctrl-C ends the process at once, even with model requests in flight."""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import typer
from typer.core import TyperGroup, TyperOption
from typer.exceptions import TyperException

from mafia.commands.stdout import OutputLost
from mafia.run.settings import SettingError

INTERRUPTED = 130  # the shell's code for a process ended by SIGINT


class OneLineErrors(TyperGroup):
    """Every usage error (typer's own, such as a seed that is not a number, and ours) is printed as
    one line naming the option and what is allowed."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            repeated_option(command, rest)
        return name, command, rest

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except (TyperException, SettingError) as exc:  # typer's usage errors and ours
            if type(exc).__name__ == "NoArgsIsHelpError":  # `mafia` alone: the help text
                if exc.format_message():  # rich help is already printed and leaves it empty
                    typer.echo(exc.format_message(), err=True)
            else:
                message = " ".join(exc.format_message().split())  # one line, whatever it quotes
                typer.echo(f"error: {message}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Aborted.", err=True)
            sys.exit(1)
        except OutputLost as exc:
            # Standard output is a full disk or a closed pipe: say so once, on stderr, and end
            # without the interpreter's own failed flush of what is still buffered.
            cause = exc.__cause__
            reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(cause)
            typer.echo(f"error: cannot write to the terminal: {reason}", err=True)
            hard_exit(2)
        sys.exit(code if isinstance(code, int) else 0)


def repeated_option(command: Any, args: Sequence[str]) -> None:
    """Refuse (SettingError) a single-valued option given twice: the command line would
    otherwise take the last one without a word (``--policy A --policy B`` plays B)."""
    single = {
        name: param
        for param in command.params
        if isinstance(param, TyperOption) and not param.multiple and not param.count
        for name in param.opts
    }
    seen: dict[str, tuple[str, str]] = {}
    tokens = iter(args)
    for token in tokens:
        if token == "--":
            return
        name, equals, value = token.partition("=")
        param = single.get(name)
        if param is None:
            continue
        if not param.is_flag and not equals:
            value = next(tokens, "")
        key = param.name or name
        if key in seen:
            first_name, first = seen[key]
            raise SettingError(
                f"{first_name} was given twice ({first!r} and {value!r}); give it once"
                if not param.is_flag
                else f"{first_name} was given twice; give it once"
            )
        seen[key] = (name, value)


def one_line_paragraphs(text: str) -> str:
    """A docstring's paragraphs each on one line, for the terminal to wrap to its width; a list
    (lines starting with "- ") or a block typer keeps as written ("\\b") stays as it is."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    kept = [
        p.startswith("\b") or any(line.lstrip().startswith("- ") for line in p.splitlines())
        for p in paragraphs
    ]
    return "\n\n".join(p if keep else " ".join(p.split()) for p, keep in zip(paragraphs, kept, strict=True))


def terminal_wrapped(app: typer.Typer) -> None:
    """Give every command of ``app`` and of its groups its help with each paragraph on one line,
    and the short help the commands table shows (the first paragraph), so the terminal wraps them
    to its width: typer's rich mode keeps a docstring's own line breaks in both places."""
    for command in app.registered_commands:
        text = command.help or (command.callback.__doc__ if command.callback else None)
        if text:
            command.help = one_line_paragraphs(text)
            if command.short_help is None:
                command.short_help = command.help.split("\n\n")[0]
    for group in app.registered_groups:
        if group.typer_instance is not None:
            terminal_wrapped(group.typer_instance)


class MafiaApp(typer.Typer):
    """The console script. After Ctrl-C the command has printed how to go on and its logs are
    flushed; worker threads may still be blocked on HTTP requests that never return, and the
    interpreter would join them at exit forever, so the process ends here without waiting."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except SystemExit as exc:
            if exc.code == INTERRUPTED:
                hard_exit(INTERRUPTED)
            raise


def hard_exit(code: int) -> None:
    """Flush what the process wrote and end it without joining threads. Checkpoints need nothing
    more: every SQLite commit is already durable, and an unfinished one rolls back on next open."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken pipe: nothing to save
            stream.flush()
    os._exit(code)


@contextlib.contextmanager
def ctrl_c_stops_calls() -> Iterator[None]:
    """Within the block, Ctrl-C gives up the model calls in flight (``interrupt``); only on the
    main thread, and not where Ctrl-C was set to be ignored (a child told so keeps ignoring it)."""
    interruptible = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    previous = signal.signal(signal.SIGINT, interrupt) if interruptible else None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def interrupt(signum: int, frame: object) -> None:
    """Ctrl-C during a game: wake the turns waiting on model calls, then stop as Python would.
    The step's executor is torn down under its tasks' done-callbacks, which concurrent.futures
    would report as tracebacks of cancelled futures: noise of a stop the user asked for."""
    from mafia.models.factory import cancel_calls  # loaded by any game; imported here for start-up

    cancel_calls()
    logging.getLogger("concurrent.futures").setLevel(logging.CRITICAL + 1)
    raise KeyboardInterrupt
