"""Every bad argument and game-file field stops `mafia` before a game starts: exit code 2, one
line on stderr naming the field and what is allowed, no traceback, nothing written."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mafia.cli import app

runner = CliRunner()
SEVEN = "Ann,Bo,Cy,Dee,Eli,Fay,Gus"


def _sqlite(path: Path, tables: list[str], rows: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    for table in tables:
        conn.execute(f"CREATE TABLE {table} (k TEXT)")
        conn.executemany(f"INSERT INTO {table} VALUES (?)", [("x" * 500,)] * rows)
    conn.commit()
    conn.close()


def _corrupt_sqlite(path: Path) -> None:
    """A checkpoint file whose pages past the first were overwritten."""
    _sqlite(path, ["checkpoints", "writes"], rows=200)
    data = bytearray(path.read_bytes())
    data[4096 : 4096 * 3] = b"\xa5" * (4096 * 2)
    path.write_bytes(bytes(data))


def _file(text: str) -> dict[str, str]:
    return {"game.toml": text}


# (id, arguments after the command, files to write first, pattern the one line must hold)
CASES: list[tuple[str, list[str], dict[str, str] | None, str]] = [
    ("seed-not-a-number", ["play", "--seed", "abc"], None, r"'--seed'.*valid integer"),
    ("seed-over-64-bits", ["play", "--seed", str(2**64)], None, r"seed: must fit in 64 bits"),
    ("seed-under-64-bits", ["play", "--seed", str(-(2**63) - 1)], None, r"seed: must fit in 64 bits"),
    ("too-few-players", ["play", "--players", "4"], None, r"players: must be between 5 and 16"),
    ("too-many-players", ["play", "--players", "17"], None, r"players: must be between 5 and 16"),
    ("unknown-option", ["play", "--sed", "1"], None, r"No such option: --sed"),
    ("too-many-mafia", ["play", "--roles", "mafia=4"], None, r"roles\.mafia: Mafia must be strictly fewer"),
    ("unknown-role", ["play", "--roles", "werewolf=1"], None, r"--roles.*ROLE one of mafia"),
    ("role-without-count", ["play", "--roles", "mafia"], None, r"--roles.*ROLE=COUNT"),
    ("seat-model-without-spec", ["play", "--seat-model", "3"], None, r"--seat-model.*SEAT=MODEL"),
    (
        "seat-model-no-such-seat",
        ["play", "--seat-model", "9=house"],
        None,
        r"--seat-model '9': names no seat",
    ),
    ("seat-model-no-such-name", ["play", "--seat-model", "Zed=house"], None, r"'Zed': names no seat; use"),
    (
        "seat-given-twice",
        ["play", "--seat-model", "3=house", "--seat-model", "Player 3=house:1"],
        None,
        r"seat 3 is given twice \('3' and 'Player 3'\)",
    ),
    ("human-no-such-seat", ["play", "--human", "9"], None, r"--human '9': names no seat"),
    ("human-empty-seat", ["play", "--human", "3,,4"], None, r"--human: give a seat number"),
    ("human-seat-twice", ["play", "--human", "3,Player 3"], None, r"--human: seat 3 is given twice"),
    (
        "human-seat-with-a-model",
        ["play", "--human", "3", "--seat-model", "3=house"],
        None,
        r"--human 3: that seat also has --seat-model",
    ),
    ("unknown-model", ["play", "--model", "nonsense"], None, r"model 'nonsense': use 'house'"),
    ("openai-without-key", ["play", "--model", "openai:gpt-4o-mini"], None, r"set OPENAI_API_KEY"),
    ("house-seed-not-a-number", ["play", "--model", "house:abc"], None, r"house seed must be an integer"),
    (
        "house-seed-over-64-bits",
        ["play", "--model", f"house:{2**64}"],
        None,
        r"house seed must fit in 64 bits",
    ),
    (
        "names-repeated",
        ["play", "--names", "Ann,Ann,Bo,Cy,Di,Ed,Flo"],
        None,
        r"names: .*differ apart from case",
    ),
    ("names-equal-but-case", ["play", "--names", "Ann,ANN,Bo,Cy,Di,Ed,Flo"], None, r"'Ann' and 'ANN' do not"),
    ("name-with-line-break", ["play", "--names", "A\nB,Bo,Cy,Di,Ed,Flo,Gus"], None, r"names: .*line breaks"),
    ("name-with-bell", ["play", "--names", "Ann\x07,Bo,Cy,Di,Ed,Flo,Gus"], None, r"control characters"),
    (
        "name-over-long",
        ["play", "--names", "A" * 41 + ",Bo,Cy,Di,Ed,Flo,Gus"],
        None,
        r"at most 40 characters",
    ),
    ("round-cap-zero", ["play", "--round-cap", "0"], None, r"round_cap: must be 1 or more"),
    ("negative-retries", ["play", "--max-retries", "-1"], None, r"--max-retries.*0 or more"),
    ("out-is-a-file", ["play", "--out", "{tmp}/taken"], {"taken": "x"}, r"--out: .*taken is a file"),
    ("out-under-a-file", ["play", "--out", "{tmp}/taken/runs"], {"taken": "x"}, r"cannot be made"),
    (
        "checkpoint-not-sqlite",
        ["play", "--out", "{tmp}/out"],
        {"out/checkpoints.sqlite": "not a db" * 200},
        r"--out: .*not a SQLite checkpoint file",
    ),
    ("checkpoint-corrupt", ["play", "--out", "{tmp}/bad"], None, r"--out: .*(corrupt|not a SQLite)"),
    (
        "checkpoint-of-another-app",
        ["play", "--out", "{tmp}/other"],
        None,
        r"something else \(tables: songs\)",
    ),
    (
        "resume-checkpoint-not-sqlite",
        ["resume", "t1", "--out", "{tmp}/out"],
        {"out/checkpoints.sqlite": "not a db" * 200},
        r"not a SQLite checkpoint file",
    ),
    ("config-missing", ["play", "--config", "{tmp}/none.toml"], None, r"--config: no file at"),
    ("config-is-a-folder", ["play", "--config", "{tmp}"], None, r"--config: .* is a folder"),
    (
        "config-not-toml",
        ["play", "--config", "{tmp}/game.toml"],
        _file("seed = = 1"),
        r"not a valid TOML file",
    ),
    (
        "config-unknown-key",
        ["play", "--config", "{tmp}/game.toml"],
        _file("sed = 1"),
        r"game\.toml: sed: unknown key; allowed: seed, players",
    ),
    (
        "config-seed-a-string",
        ["play", "--config", "{tmp}/game.toml"],
        _file('seed = "7"'),
        r"seed: must be an integer, got '7'",
    ),
    (
        "config-seed-a-boolean",
        ["play", "--config", "{tmp}/game.toml"],
        _file("seed = true"),
        r"seed: must be an integer, got True",
    ),
    (
        "config-too-few-players",
        ["play", "--config", "{tmp}/game.toml"],
        _file("players = 4"),
        r"game\.toml: players: must be between 5 and 16",
    ),
    (
        "config-name-not-a-string",
        ["play", "--config", "{tmp}/game.toml"],
        _file("names = [1, 2]"),
        r"names\[0\]: must be a string",
    ),
    (
        "config-role-count-a-string",
        ["play", "--config", "{tmp}/game.toml"],
        _file('roles = {mafia = "2"}'),
        r"roles\.mafia: must be an integer",
    ),
    (
        "config-unknown-role",
        ["play", "--config", "{tmp}/game.toml"],
        _file("roles = {werewolf = 1}"),
        r"game\.toml: roles: unknown role 'werewolf'",
    ),
    (
        "config-reveal-a-string",
        ["play", "--config", "{tmp}/game.toml"],
        _file('reveal = "yes"'),
        r"reveal: must be true or false",
    ),
    (
        "config-negative-retries",
        ["play", "--config", "{tmp}/game.toml"],
        _file("max_retries = -1"),
        r"max_retries: must be 0 or more",
    ),
    (
        "config-empty-out",
        ["play", "--config", "{tmp}/game.toml"],
        _file('out = ""'),
        r"out: must name a folder",
    ),
    (
        "config-model-a-number",
        ["play", "--config", "{tmp}/game.toml"],
        _file("model = 3"),
        r"model: must be a string or a table",
    ),
    (
        "config-model-without-spec",
        ["play", "--config", "{tmp}/game.toml"],
        _file("[model]\ntimeout = 5"),
        r"model\.model: missing; give the model spec",
    ),
    (
        "config-model-unknown-key",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "house"\ncolour = 1'),
        r"model\.colour: unknown key; allowed: model, base_url",
    ),
    (
        "config-negative-timeout",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "house"\ntimeout = -1'),
        r"model\.timeout: Input should be greater than 0, got -1",
    ),
    (
        "config-timeout-a-string",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "house"\ntimeout = "60"'),
        r"model\.timeout: Input should be a valid number, got '60'",
    ),
    (
        "config-hot-temperature",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "house"\ntemperature = 3'),
        r"model\.temperature: Input should be less than or equal to 2",
    ),
    (
        "config-unknown-method",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "house"\nmethod = "xml"'),
        r"model\.method: Input should be 'json_schema', 'function_calling' or 'json_mode'",
    ),
    (
        "config-base-url-without-scheme",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "openai:x"\nbase_url = "localhost:8080"'),
        r"model\.base_url: must be an http",
    ),
    (
        "config-key-variable-not-a-name",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "openai:x"\napi_key_env = "MY KEY"'),
        r"model\.api_key_env: must be an environment",
    ),
    (
        "config-key-variable-unset",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "openai:x"\napi_key_env = "MAFIA_TEST_UNSET_KEY"'),
        r"api_key_env names MAFIA_TEST_UNSET_KEY, which is not set",
    ),
    (
        "config-unknown-action-limit",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "house"\naction_max_tokens = {sing = 100}'),
        r"unknown action 'sing'; allowed: speak",
    ),
    (
        "config-zero-concurrency",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "house"\nmax_concurrent = 0'),
        r"model\.max_concurrent: Input should be greater",
    ),
    (
        "config-seat-no-such-seat",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[seats]\n9 = "house"'),
        r"game\.toml: seats '9': names no seat",
    ),
    (
        "config-seat-temperature-a-string",
        ["play", "--config", "{tmp}/game.toml"],
        _file('[model]\nmodel = "house"\n[seats.3]\ntemperature = "hot"'),
        r"seats\.3\.temperature: Input should be",
    ),
    (
        "config-seats-an-array",
        ["play", "--config", "{tmp}/game.toml"],
        _file("seats = [1]"),
        r"seats: must be a table",
    ),
    (
        "resume-config-unknown-key",
        ["resume", "t1", "--config", "{tmp}/game.toml"],
        _file("sed = 1"),
        r"sed: unknown key",
    ),
    (
        "arena-unknown-policy",
        ["arena", "--policy", "nope"],
        None,
        r"--policy: no context policy 'nope'; use one of full-history, seed-window",
    ),
    ("arena-no-games", ["arena", "--games", "0"], None, r"--games: must be 1 or more, got 0"),
    (
        "summariser-file",
        ["play", "--config", "{tmp}/game.toml"],
        _file('summariser = "x"'),
        r"summariser: 'x' is no",
    ),
    ("summariser-seat", ["play", "--summariser", "seat:9"], None, r"--summariser: 'seat:9' names no seat"),
    ("summariser-spec", ["play", "--summariser", "gpt"], None, r"--summariser: 'gpt' is no model spec"),
    ("summariser-person", ["play", "--summariser", "human"], None, r"--summariser: a person cannot write"),
    ("arena-summariser", ["arena", "--summariser", "seat:0"], None, r"--summariser: 'seat:0' names no seat"),
    (
        "summariser-no-summaries",
        ["play", "--summariser", "house", "--policy", "layered"],
        None,
        r"--summariser: the policy layered writes no summaries; give a policy that does \(rolling-summary",
    ),
    (
        "summariser-file-no-summaries",
        ["play", "--config", "{tmp}/game.toml"],
        _file('summariser = "house"'),
        r"game.toml: summariser: the policy lean writes no summaries",
    ),
    (
        "arena-summariser-no-summaries",
        ["arena", "--summariser", "house", "--policy", "lean", "--policy", "full-history"],
        None,
        r"--summariser: the policy lean, full-history writes no summaries",
    ),
    ("arena-no-concurrency", ["arena", "--concurrency", "0"], None, r"--concurrency: must be 1 or more"),
    ("arena-bad-house-seed", ["arena", "--model", "house:x"], None, r"house seed must be an integer"),
    (
        "arena-model-twice",
        ["arena", "--model", "house", "--model", "house"],
        None,
        r"--model: 'house' is given twice",
    ),
    ("arena-too-few-players", ["arena", "--players", "4"], None, r"players: must be between 5 and 16"),
    ("arena-unknown-role", ["arena", "--roles", "werewolf=1"], None, r"--roles.*ROLE one of mafia"),
    (
        "arena-server-not-a-url",
        ["arena", "--server", "localhost:2024"],
        None,
        r"--server 'localhost:2024': give",
    ),
    ("arena-bad-id", ["arena", "--id", "../x"], None, r"--id '\.\./x': use 1-64 letters"),
    (
        "arena-model-file-missing",
        ["arena", "--model", "{tmp}/m.toml"],
        None,
        r"--model: no file at",
    ),
    (
        "arena-model-file-without-model",
        ["arena", "--model", "{tmp}/game.toml"],
        _file("seed = 1"),
        r"game\.toml: the file names no model",
    ),
    (
        "arena-model-file-no-such-seat",
        ["arena", "--model", "{tmp}/game.toml"],
        _file('[seats]\n9 = "house"'),
        r"model 'game': seats '9': names no seat; use a seat number 1-7",
    ),
    (
        "arena-asked-otherwise",
        ["arena", "--id", "x", "--games", "3", "--out", "{tmp}/runs"],
        {"runs/arena-x/arena.json": '{"id": "x", "players": 7, "games": 2}'},
        r"arena 'x' was asked with games = 2, now 3; give the same arguments to resume it",
    ),
    (
        "arena-checkpoint-not-sqlite",
        ["arena", "--id", "x", "--out", "{tmp}/runs"],
        {"runs/arena-x/games/checkpoints.sqlite": "not a db" * 200},
        r"--out: .*not a SQLite checkpoint file",
    ),
]


def _prepare(tmp_path: Path, case_id: str, files: dict[str, str] | None) -> None:
    for name, text in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    if case_id == "checkpoint-corrupt":
        _corrupt_sqlite(tmp_path / "bad" / "checkpoints.sqlite")
    if case_id == "checkpoint-of-another-app":
        _sqlite(tmp_path / "other" / "checkpoints.sqlite", ["songs"])


@pytest.mark.parametrize(("args", "files", "pattern"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_code_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    args: list[str],
    files: dict[str, str] | None,
    pattern: str,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MAFIA_TEST_UNSET_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # nothing may be written, not even a default runs/ folder
    _prepare(tmp_path, request.node.callspec.id, files)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = runner.invoke(app, [a.replace("{tmp}", str(tmp_path)) for a in args])
    lines = result.stderr.splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert re.search(pattern, lines[0]), lines[0]
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_the_table_holds_at_least_thirty_distinct_cases() -> None:
    assert len({c[0] for c in CASES}) == len(CASES) >= 30


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["play", "--seed", "x"], r"'--seed'.*valid integer"),
        (["play", "--names", "Ann,ann,Bo,Cy,Di,Ed,Flo"], r"differ apart from case"),
        (["play", "--seat-model", "8=house"], r"names no seat"),
    ],
)
@pytest.mark.slow
def test_the_installed_command_prints_one_line_too(tmp_path: Path, args: list[str], pattern: str) -> None:
    mafia = Path(sys.executable).parent / "mafia"
    env = {**os.environ, "LANGSMITH_TRACING": "false"}
    done = subprocess.run(
        [str(mafia), *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert done.returncode == 2, done
    assert len(done.stderr.splitlines()) == 1 and re.search(pattern, done.stderr), done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert not any(tmp_path.iterdir())


# The same faults given to the graph (Studio, the API, ``graph.invoke``): (setup, context, the CLI's
# arguments for the same fault). The run fails before its first turn with the CLI's own line.
GRAPH_CASES: list[tuple[dict[str, object], dict[str, object], list[str]]] = [
    ({"players": 4}, {}, ["play", "--players", "4"]),
    ({"roles": {"mafia": 4}}, {}, ["play", "--roles", "mafia=4"]),
    ({"seed": 1}, {"model": "nonsense"}, ["play", "--model", "nonsense"]),
]


@pytest.mark.parametrize(("setup", "context", "cli_args"), GRAPH_CASES)
def test_the_graph_refuses_a_bad_run_with_the_command_lines_message(
    setup: dict[str, object], context: dict[str, object], cli_args: list[str], tmp_path: Path
) -> None:
    from mafia.graph import compile_graph
    from mafia.run.settings import SetupError

    line = runner.invoke(app, [*cli_args, "--out", str(tmp_path)]).output.strip().removeprefix("error: ")
    steps: list[object] = []
    with pytest.raises(SetupError) as refused:
        for step in compile_graph().stream({"setup": setup}, context=context, stream_mode="updates"):
            steps.append(step)
    assert str(refused.value) == line
    assert steps == []  # not one step, so no turn, was played


def test_the_graph_refuses_an_unknown_policy_setting_before_the_run() -> None:
    from mafia.graph import compile_graph

    with pytest.raises(ValueError, match=r"policy\.bogus: unknown setting; allowed: verbatim_rounds"):
        compile_graph().invoke({"setup": {}}, context={"policy": {"bogus": 1}})


def test_an_empty_input_plays_the_default_game() -> None:
    from mafia.graph import compile_graph
    from mafia.play.runner import RECURSION_LIMIT

    out = compile_graph().invoke({}, {"recursion_limit": RECURSION_LIMIT})
    assert out["events"][0]["players"] == [f"Player {k}" for k in range(1, 8)]
