"""The command line's own behaviour: its version and short help, hints that run as printed, errors
on stderr, a start-up that does not load the engine, and a game file's policy."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes import free_port
from mafia.cli import app
from mafia.context.policy import DEFAULT_POLICY

runner = CliRunner()
MAFIA = Path(sys.executable).parent / "mafia"
ENV = {**os.environ, "LANGSMITH_TRACING": "false"}


def test_version_and_short_help() -> None:
    from importlib.metadata import version

    shown = runner.invoke(app, ["--version"])
    assert shown.exit_code == 0 and shown.output.strip() == f"mafia-graph {version('mafia-graph')}"
    short = runner.invoke(app, ["-h"])
    assert short.exit_code == 0 and "play" in short.output and "resume" in short.output
    assert runner.invoke(app, ["play", "-h"]).exit_code == 0


# What `mafia --help` would load if the command modules imported the engine at their top: the
# graph and model layers and the arena's plotting, rating and search libraries (each measured with
# `python -X importtime`; together they were most of a 2-3 s start-up). Not pydantic: typer itself
# loads it to read a sub-command's options.
ENGINE = (
    "langgraph",
    "langchain_core",
    "langchain_openai",
    "openai",
    "langsmith",
    "httpx",
    "numpy",
    "matplotlib",
    "openskill",
    "bm25s",
)
# Each command line with an option its help must still list (a refused argument: its field).
STARTS = {
    "--help": "tournament",
    "-h": "resume",
    "--version": "mafia-graph",
    "play --help": "--seat-model",
    "resume -h": "--change-model",
    "runs --help": "--checkpoint-dsn",
    "replay --help": "--html",
    "arena --help": "--concurrency",
    "arena report --help": "ARENA_DIR",
    "tournament --help": "--games",
    "tournament report --help": "FOLDER",
    "play --players many": "--players",
}


@pytest.mark.slow
def test_help_version_and_a_refused_argument_start_without_the_engine() -> None:
    """Every command's help, the version and a bad argument, in one fresh interpreter: each says
    what it should, and none of them loaded the engine."""
    probe = (
        "import json, sys\n"
        "from typer.testing import CliRunner\n"
        "from mafia.cli import app\n"
        f"starts = {list(STARTS)!r}\n"
        "shown = {s: CliRunner().invoke(app, s.split()) for s in starts}\n"
        "print(json.dumps({\n"
        "    'shown': {s: [r.exit_code, r.stdout, r.stderr] for s, r in shown.items()},\n"
        f"    'loaded': sorted({{m.split('.')[0] for m in sys.modules}} & set({ENGINE!r})),\n"
        "}))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for start, (code, stdout, stderr) in report["shown"].items():
        if start.endswith("many"):
            assert code == 2 and len(stderr.splitlines()) == 1 and STARTS[start] in stderr, (start, stderr)
        else:
            assert code == 0 and STARTS[start] in stdout, (start, stdout, stderr)
    assert report["loaded"] == []


@pytest.mark.slow
def test_a_provider_stop_is_on_stderr_and_its_hint_runs_as_printed(tmp_path: Path) -> None:
    env = {**ENV, "OPENAI_API_KEY": "unused", "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"}
    args = ["play", "--seed", "3", "--quiet", "--seat-model", "4=openai:x", "--out", "runs"]
    stopped = subprocess.run(
        [os.path.relpath(MAFIA, tmp_path), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert stopped.returncode == 1, stopped
    assert "error:" not in stopped.stdout and "the game stopped" in stopped.stderr
    found = re.search(r"Go on with: (.+)", stopped.stderr)
    assert found is not None, stopped.stderr
    again = subprocess.run(
        found[1], shell=True, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
    )
    # The hint runs (no "command not found") and resumes with the run's own models: seat 4 is
    # still the unreachable server, so the game stops again where it stopped.
    assert again.returncode == 1, again
    assert "the game stopped" in again.stderr and "ConnectionError" in again.stderr


@pytest.mark.slow
def test_a_full_disk_at_stdout_is_one_line(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [str(MAFIA), "play", "--seed", "1", "--no-checkpoint", "--out", str(tmp_path)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
            timeout=300,
        )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and re.match(r"error: cannot write to the terminal: .*No space left", lines[0]), (
        lines
    )


def test_human_seats_are_matched_as_replay_matches_them(tmp_path: Path) -> None:
    names = "Ann,Bob,Cy,Dee,Eli,Fay,Gus"
    result = runner.invoke(
        app, ["play", "--names", names, "--human", "bob", "--no-checkpoint", "--out", str(tmp_path)], input=""
    )
    assert "names no seat" not in result.output
    assert result.exit_code == 130, result.output  # it waited for Bob's player, then the input ended
    assert "Bob" in result.output


def test_a_game_file_sets_the_policy(tmp_path: Path) -> None:
    (tmp_path / "game.toml").write_text('seed = 4\nplayers = 5\npolicy = "full-history"\n')
    result = runner.invoke(
        app, ["play", "--config", str(tmp_path / "game.toml"), "--quiet", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    recorded = json.loads((tmp_path / "game-5p-seed4" / "run.json").read_text())
    assert recorded["policy"]["name"] == "full-history"
    (tmp_path / "bad.toml").write_text("policy = { verbatim_rounds = 0 }\n")
    bad = runner.invoke(app, ["play", "--config", str(tmp_path / "bad.toml"), "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "policy.verbatim_rounds" in bad.stderr, bad.output


def test_the_summariser_is_taken_from_the_command_line_or_the_game_file(tmp_path: Path) -> None:
    (tmp_path / "game.toml").write_text(
        'seed = 4\nplayers = 5\npolicy = "rolling-summary"\nsummariser = "seat:2"\n'
    )
    base = ["play", "--config", str(tmp_path / "game.toml"), "--quiet", "--out", str(tmp_path)]
    for extra, expected in (
        ([], "seat:2"),
        (["--summariser", "house:7"], "house:7"),
        (["--summariser", "default"], None),
    ):
        result = runner.invoke(app, [*base, *extra])
        assert result.exit_code == 0, result.output
        run_dirs = sorted(tmp_path.glob("game-5p-seed4*"), key=lambda p: p.stat().st_mtime)
        assert json.loads((run_dirs[-1] / "run.json").read_text())["summariser"] == expected


def test_a_resume_keeps_the_summariser_and_refuses_another(tmp_path: Path) -> None:
    start = ["play", "--seed", "4", "--players", "5", "--policy", "rolling-summary", "--quiet"]
    played = runner.invoke(app, [*start, "--summariser", "seat:2", "--out", str(tmp_path)])
    assert played.exit_code == 0, played.output
    again = runner.invoke(app, ["resume", "game-5p-seed4", "--out", str(tmp_path), "--quiet"])
    assert again.exit_code == 0, again.output
    other = ["resume", "game-5p-seed4", "--summariser", "house:7", "--out", str(tmp_path)]
    refused = runner.invoke(app, other)
    assert refused.exit_code == 2 and len(refused.stderr.splitlines()) == 1, refused.output
    assert "--summariser: the run was started with 'seat:2'; got 'house:7'" in refused.stderr


def test_resume_help_shows_the_runs_own_settings_as_its_defaults() -> None:
    shown = runner.invoke(app, ["resume", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    for option in ("--model", "--max-retries", "--policy"):
        line = next(x for x in shown.output.splitlines() if f" {option} " in x)
        assert "[default:" not in line and "The run's own unless given." in line, line
    assert "[default: house]" not in shown.output and f"[default: {DEFAULT_POLICY}]" not in shown.output


def test_open_checkpointer_takes_a_string(tmp_path: Path) -> None:
    from mafia.play.checkpoints import open_checkpointer

    with open_checkpointer(str(tmp_path / "runs")) as saver:
        assert saver.get_tuple({"configurable": {"thread_id": "none"}}) is None


@pytest.mark.parametrize("spec", ["mafia=1,mafia=2", "", " , "])
def test_roles_given_twice_or_empty_are_refused(spec: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "--roles", spec, "--out", str(tmp_path)])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    assert "--roles" in result.stderr


@pytest.mark.parametrize("out", ["", "/proc/x", "/proc/self/x/y"])
def test_an_unusable_out_folder_is_refused(out: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "--out", out])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    assert result.stderr.startswith("error: --out") and "Traceback" not in result.output


# ---- a resumed game marks where new play begins ----------------------------------------------


def _stopped_at_a_person(out: Path) -> tuple[str, int]:
    """A game checkpointed under ``out`` as ``mafia play`` leaves one, stopped by Ctrl-C at the
    person's first turn; its run id and the events it holds."""
    from mafia.play.checkpoints import CHECKPOINT_FILE
    from mafia.play.runner import graph_for, run_game, sqlite_checkpointer

    def ctrl_c(turn: dict[str, object]) -> object:
        raise KeyboardInterrupt

    out.mkdir(parents=True, exist_ok=True)
    with sqlite_checkpointer(out / CHECKPOINT_FILE) as saver:
        with pytest.raises(KeyboardInterrupt):
            run_game(
                {"seed": 5, "players": 6},
                checkpointer=saver,
                out_dir=out,
                human=ctrl_c,
                seat_models={"3": "human"},
            )
        (run_id,) = [p.name for p in out.iterdir() if p.is_dir()]
        events = graph_for(saver).get_state({"configurable": {"thread_id": run_id}}).values["events"]
    return run_id, len(events)


def test_resume_game_calls_on_resumed_once_the_game_so_far_has_passed(tmp_path: Path) -> None:
    from mafia.game.events import dump_event
    from mafia.play.checkpoints import CHECKPOINT_FILE
    from mafia.play.runner import resume_game, sqlite_checkpointer

    run_id, before = _stopped_at_a_person(tmp_path)
    seen: list[str] = []
    with sqlite_checkpointer(tmp_path / CHECKPOINT_FILE) as saver:
        final = resume_game(
            run_id,
            checkpointer=saver,
            seat_models={"3": "house"},
            change=["model"],
            on_event=lambda e: seen.append(str(dump_event(e)["type"])),
            on_resumed=lambda: seen.append("RESUMED"),
        )
    assert final["winner"] is not None
    assert seen.count("RESUMED") == 1 and seen.index("RESUMED") == before
    assert seen[before + 1 :] and seen[before + 1] == "run_changed"  # new play: the change, then turns


def test_mafia_resume_shows_a_mark_where_new_play_begins(tmp_path: Path) -> None:
    from mafia.commands.display import RESUMED_MARK

    run_id, _ = _stopped_at_a_person(tmp_path)
    resumed = runner.invoke(
        app,
        ["resume", run_id, "--out", str(tmp_path), "--seat-model", "3=house", "--change-model"],
        env={"COLUMNS": "120"},
    )
    assert resumed.exit_code == 0, resumed.output
    lines = resumed.output.splitlines()
    (mark,) = [i for i, line in enumerate(lines) if RESUMED_MARK in line]
    started = next(i for i, line in enumerate(lines) if "Mafia — " in line)
    won = next(i for i, line in enumerate(lines) if line.startswith("Winner:"))
    assert started < mark < won
    assert any("Day 1" in line for line in lines[started:mark])  # the game so far, above the mark


# ---- help text is wrapped by the terminal, not by hand ----------------------------------------


def _help_pages(width: int) -> dict[str, list[str]]:
    """The help of the command line, of every command and of every group's commands, rendered
    at ``width`` columns, by command path."""
    import typer.main

    def paths(command: object, path: list[str]) -> list[list[str]]:
        found = [path]
        for name, sub in getattr(command, "commands", {}).items():
            found += paths(sub, [*path, name])
        return found

    pages = {}
    for path in paths(typer.main.get_command(app), []):
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(width)})
        assert shown.exit_code == 0, (path, shown.output)
        pages[" ".join(["mafia", *path])] = shown.output.splitlines()
    return pages


FRAME = ("╭", "╰", "│", "Usage:")


def hand_breaks(lines: list[str]) -> list[str]:
    """The lines that go on a paragraph on a line of their own, which at a width every paragraph
    fits in only a hand-made line break makes: a table cell's continuation (its name columns
    blank) or a second line of a paragraph outside the tables."""

    def goes_on(before: str, line: str) -> bool:
        cell = re.fullmatch(r"│ (.*) │", line.rstrip())
        if cell is not None:
            return re.match(r" {3,}\S", cell.group(1)) is not None
        framed = any(x.lstrip().startswith(FRAME) for x in (before, line))
        return bool(before.strip() and line.strip()) and not framed

    return [line.strip() for before, line in itertools.pairwise(lines) if goes_on(before, line)]


def test_no_help_paragraph_is_broken_by_hand() -> None:
    """At 1,000 columns every help paragraph fits on one line, so any break is the text's own; at
    60 the terminal wraps the same paragraphs onto more lines."""
    wide, narrow = _help_pages(1000), _help_pages(60)
    assert {"mafia", "mafia play", "mafia resume", "mafia arena report", "mafia tournament"} <= set(wide)
    assert {page: hand_breaks(lines) for page, lines in wide.items() if hand_breaks(lines)} == {}
    assert all(len(narrow[page]) > len(lines) for page, lines in wide.items())


def test_the_hand_break_check_finds_a_planted_break() -> None:
    planted = ["╭─ Commands ─╮", "│ play    Play one game, shown │", "│         live.             │", "╰──╯"]
    assert hand_breaks(planted) == ["│         live.             │"]
    assert hand_breaks(["", " Play one game,", " shown live.", ""]) == ["shown live."]
