"""LangSmith traces of games, as the real ``langsmith`` client uploads them to a local fake endpoint.

Games are played by ``mafia play`` in a child process with the environment a user sets to turn
tracing on (the client reads it once per process), so the end-of-run flush is part of what is
tested: whatever the endpoint holds when the command has exited is what it sent.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run

from fakes.langsmith_endpoint import LangSmithEndpoint, langsmith_endpoint
from mafia.context.policy import DEFAULT_POLICY, POLICIES
from mafia.game.state import TurnRequest
from mafia.play.runner import run_game
from mafia.run.tracing import traced_inputs, turn_name

API_KEY = "lsv2_pt_0123456789abcdef-test-only"
TURN = re.compile(r"^(Day|Night) (\d+) · ([a-z_0-9]+) · (.+)$")
TURN_METADATA = ("game_id", "seed", "seat", "player", "role", "phase", "round", "action", "policy", "model")


def play(endpoint: LangSmithEndpoint, out: Path, *args: str, detail: str = "turns") -> Path:
    """``mafia play`` with tracing on to ``endpoint``; the run's log folder."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("LANGCHAIN_", "LANGSMITH_"))},
        "LANGSMITH_TRACING": "true",
        "LANGSMITH_ENDPOINT": endpoint.url,
        "LANGSMITH_API_KEY": API_KEY,
        "LANGSMITH_PROJECT": "mafia-tests",
        "MAFIA_TRACE_DETAIL": detail,
    }
    command = [sys.executable, "-c", "from mafia.cli import app; app()", "play", "--quiet", "--no-checkpoint"]
    subprocess.run(
        [*command, "--out", str(out), *args], env=env, check=True, capture_output=True, timeout=300
    )
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return folder


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def leaked(bodies: list[bytes], secret: str) -> list[int]:
    """The indexes of the upload bodies that hold ``secret``."""
    return [i for i, body in enumerate(bodies) if secret.encode() in body]


def test_the_key_check_finds_a_planted_key() -> None:
    assert leaked([b'{"a": 1}', b'{"note": "' + API_KEY.encode() + b'"}'], API_KEY) == [1]


@pytest.mark.parametrize("compression", [True, False], ids=["zstd", "plain-multipart"])
@pytest.mark.slow
def test_a_game_is_one_readable_tree(tmp_path: Path, compression: bool) -> None:
    with langsmith_endpoint(compression=compression) as endpoint:
        folder = play(endpoint, tmp_path, "--players", "7", "--seed", "3")
    runs = endpoint.runs()
    records = lines(folder / "prompts.jsonl")
    roles = {e["player"]: e["role"] for e in lines(folder / "events.jsonl") if e["type"] == "role_assigned"}

    (root,) = [r for r in runs.values() if not r.get("parent_run_id")]
    assert root["name"] == f"{folder.name} · {DEFAULT_POLICY}" and folder.name == "game-7p-seed3"
    assert root["outputs"]["winner"] in ("mafia", "town", "draw")
    meta = root["extra"]["metadata"]
    assert (meta["game_id"], meta["seed"], meta["model"]) == ("game-7p-seed3", 3, "house")
    assert meta["policy"]

    phases = {rid: r for rid, r in runs.items() if r.get("parent_run_id") == root["id"]}
    assert [r["name"] for r in phases.values()][:3] == ["Night 0", "Day 1", "Night 1"]
    turns = [r for r in runs.values() if r.get("parent_run_id") in phases]
    assert len(turns) == len(records) == len(runs) - len(phases) - 1
    by_name = {t["name"]: t for t in turns}
    for record in records:
        phase = "night" if record["action"] in NIGHT else "day"
        name = f"{phase.title()} {record['round']} · {record['action']} · {record['player']}"
        turn = by_name[name]
        assert phases[turn["parent_run_id"]]["name"] == f"{phase.title()} {record['round']}"
        meta = turn["extra"]["metadata"]
        assert all(meta.get(key) not in (None, "") for key in TURN_METADATA), name
        expected = (
            record["seat"],
            roles[record["player"]],
            phase,
            record["round"],
            record["action"],
            "house",
        )
        assert (
            meta["seat"],
            meta["role"],
            meta["phase"],
            meta["round"],
            meta["action"],
            meta["model"],
        ) == expected
        assert {f"phase:{phase}", f"role:{roles[record['player']].lower()}"} <= set(turn["tags"])
        # The turn holds its prompt, its answer and its result.
        system, user = turn["inputs"]["messages"]
        assert (system["content"], user["content"]) == (record["system"], record["user"])
        assert turn["outputs"]["choice"] == record["choice"]
        assert [a["raw"] for a in turn["outputs"]["attempts"]] == [a["raw"] for a in record["attempts"]]

    assert leaked(endpoint.bodies, API_KEY) == []
    uploads = [h for h in endpoint.headers if h.get("content-type", "").startswith("multipart")]
    assert uploads and all(h.get("x-api-key") == API_KEY for h in uploads)  # the key went where it belongs


NIGHT = ("night_zero", "mafia_round1", "mafia_round2", "night_kill", "protect", "investigate")


@pytest.mark.slow
def test_a_sixteen_seat_game_uploads_little(tmp_path: Path) -> None:
    with langsmith_endpoint() as endpoint:
        folder = play(endpoint, tmp_path, "--players", "16", "--seed", "3")
    # Measured 1.93 MB of run JSON (README, bench/tracing.py); the event log in any run's traced
    # data would multiply it, and graph detail's 20 MB would not pass either.
    assert endpoint.upload_bytes() <= 2_500_000
    assert len(lines(folder / "prompts.jsonl")) + 1 < len(endpoint.runs())


@pytest.mark.slow
def test_graph_detail_names_turns_and_keeps_the_log_out_of_inputs(tmp_path: Path) -> None:
    with langsmith_endpoint() as endpoint:
        folder = play(endpoint, tmp_path, "--players", "5", "--seed", "2", detail="graph")
    runs = endpoint.runs()
    records = lines(folder / "prompts.jsonl")
    (root,) = [r for r in runs.values() if not r.get("parent_run_id")]
    assert root["name"] == f"{folder.name} · {DEFAULT_POLICY}"
    turns = [r for r in runs.values() if TURN.match(r.get("name", ""))]
    assert Counter(t["name"] for t in turns) == Counter(
        f"{'Night' if r['action'] in NIGHT else 'Day'} {r['round']} · {r['action']} · {r['player']}"
        for r in records
    )
    for turn in turns:
        assert all(turn["extra"]["metadata"].get(key) not in (None, "") for key in TURN_METADATA)
    # No run's inputs carry the event log or a rendered prompt, except the model's own run.
    for run in runs.values():
        inputs = json.dumps(run.get("inputs", {}), ensure_ascii=False)
        assert "role_assigned" not in inputs, run["name"]
        if run.get("run_type") != "llm":
            assert "[GAME RULES]" not in inputs, run["name"]
    assert any(
        "[GAME RULES]" in json.dumps(r.get("inputs", {})) for r in runs.values() if r.get("run_type") == "llm"
    )
    assert leaked(endpoint.bodies, API_KEY) == []


def test_slimmed_inputs_keep_what_explains_a_step() -> None:
    request = {"id": "1:vote:P", "player": "P", "options": ["A", "skip"]}
    slim = traced_inputs({"events": [{"type": "x"}] * 40, "prompts": [{}], "request": request})
    assert slim == {
        "events": "(40 events: the game's log, not traced)",
        "prompts": "(1 prompts: the game's log, not traced)",
        "request": request,
    }


def test_turn_names() -> None:
    def named(action: str, round_: int) -> str:
        request: TurnRequest = {
            "id": "x",
            "round": round_,
            "player": "Ann",
            "action": action,
            "options": [],
            "fallback": None,
            "game_over": False,
            "order": 2,
        }
        return turn_name(request)

    assert named("vote", 2) == "Day 2 · vote · Ann"
    assert named("protect", 1) == "Night 1 · protect · Ann"
    assert named("night_zero", 0) == "Night 0 · night_zero · Ann"


@pytest.mark.slow
def test_summaries_and_recall_searches_are_runs_of_their_own(tmp_path: Path) -> None:
    # A rolling-summary game: each summary the summariser wrote at a dawn is a run of that day.
    with langsmith_endpoint() as endpoint:
        folder = play(
            endpoint, tmp_path / "summary", "--players", "7", "--seed", "1", "--policy", "rolling-summary"
        )
    runs = endpoint.runs()
    summaries = [r for r in lines(folder / "prompts.jsonl") if r["action"] == "summary"]
    assert summaries
    named = {r["name"]: r for r in runs.values() if r["name"].endswith(" · summary")}
    assert sorted(named) == sorted(f"Day {r['round']} · summary" for r in summaries)
    for record in summaries:
        run = named[f"Day {record['round']} · summary"]
        assert runs[run["parent_run_id"]]["name"] == f"Day {record['round']}"
        assert [a["raw"] for a in run["outputs"]["attempts"]] == [a["raw"] for a in record["attempts"]]
        assert run["inputs"]["messages"][1]["content"] == record["user"]

    # A layered game: each recall search is a child run of its turn, with its query and hits.
    with langsmith_endpoint() as endpoint:
        folder = play(endpoint, tmp_path / "layered", "--players", "8", "--seed", "3", "--policy", "layered")
    runs = endpoint.runs()
    by_name = {r["name"]: r for r in runs.values()}
    searched = [r for r in lines(folder / "prompts.jsonl") if r.get("recalls")]
    assert searched
    for record in searched:
        phase = "Night" if record["action"] in NIGHT else "Day"
        turn = f"{phase} {record['round']} · {record['action']} · {record['player']}"
        searches = [a["recall"] for a in record["attempts"] if a["kind"] == "recall"]
        for number, search in enumerate(searches, start=1):
            run = by_name[f"{turn} · recall {number}"]
            assert runs[run["parent_run_id"]]["name"] == turn
            assert run["inputs"] == {"query": search["query"]}
            assert run["outputs"]["hits"] == search["hits"]
    recall_runs = [r for r in runs.values() if " · recall " in r["name"]]
    assert len(recall_runs) == sum(r["recalls"] for r in searched)


class _Roots(BaseTracer):
    """An in-memory tracer: the root runs it is given, whole."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        self.roots.append(run)


def test_the_root_runs_name_tells_the_policy() -> None:
    """Two games of one setup under two policies: their root runs are named for the run and the
    policy, not told apart by a number alone."""
    tracer = _Roots()
    for policy in ("lean", "seed-window"):
        run_game(
            {"seed": 1, "players": 5, "round_cap": 1},
            policy=POLICIES[policy],
            run_config={"callbacks": [tracer]},
        )
    assert [r.name for r in tracer.roots] == ["game-5p-seed1 · lean", "game-5p-seed1 · seed-window"]
