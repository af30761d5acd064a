"""Whole runs: determinism of the logs, bad answers never killing a game, checkpoints and resume."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from audit import audit
from fakes import Ask, ScriptedModel
from mafia.events import Fallback, parse_event
from mafia.graph import build_graph
from mafia.models.house import HouseModel
from mafia.runner import RECURSION_LIMIT, GameNotFound, resume_game, run_game, sqlite_checkpointer
from mafia.runtime import GameContext


@pytest.mark.parametrize(("players", "seed"), [(7, 4), (12, 9)])
def test_same_seed_gives_byte_identical_logs(tmp_path: Path, players: int, seed: int) -> None:
    for run in ("a", "b"):
        run_game({"seed": seed, "players": players}, model=HouseModel(seed=seed), out_dir=tmp_path / run)
    game = f"game-{players}p-seed{seed}"
    for name in ("events.jsonl", "prompts.jsonl"):
        first = (tmp_path / "a" / game / name).read_bytes()
        second = (tmp_path / "b" / game / name).read_bytes()
        assert first, name
        assert first == second, name


def test_logs_do_not_depend_on_the_process_hash_seed(tmp_path: Path) -> None:
    """Separate processes (as separate runs of ``mafia play`` are) with different string hashing."""
    script = (
        "import sys\n"
        "from mafia.models.house import HouseModel\n"
        "from mafia.runner import run_game\n"
        "for players, seed in ((12, 4), (16, 5)):\n"
        "    run_game({'seed': seed, 'players': players}, model=HouseModel(seed=seed), out_dir=sys.argv[1])\n"
    )
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "LANGSMITH_TRACING": "false"}
        subprocess.run([sys.executable, "-c", script, str(tmp_path / hash_seed)], env=env, check=True)
    for game in ("game-12p-seed4", "game-16p-seed5"):
        for name in ("events.jsonl", "prompts.jsonl"):
            first = (tmp_path / "1" / game / name).read_bytes()
            assert first and first == (tmp_path / "2" / game / name).read_bytes(), f"{game}/{name}"


def test_logs_are_written_as_the_game_goes(tmp_path: Path) -> None:
    seen: list[int] = []
    events_file = tmp_path / "game-7p-seed1" / "events.jsonl"

    def on_event(event: Any) -> None:
        if event.type == "day_started":
            seen.append(len(events_file.read_text().splitlines()))

    state = run_game({"seed": 1}, model=HouseModel(seed=1), out_dir=tmp_path, on_event=on_event)
    assert seen and seen[0] > 0, "events were on disk before the game ended"
    lines = events_file.read_text().splitlines()
    assert [json.loads(line) for line in lines] == state["events"]
    prompts = [
        json.loads(line) for line in (tmp_path / "game-7p-seed1" / "prompts.jsonl").read_text().splitlines()
    ]
    assert prompts and all(p["total_tokens"] > 0 and p["tokens"] for p in prompts)
    assert all(p["attempts"] and "raw" in p["attempts"][0] for p in prompts)


@pytest.mark.parametrize("seed", range(6))
def test_bad_answers_are_retried_then_fall_back_legally(seed: int) -> None:
    model = HouseModel(seed=seed, chaos=0.5)
    records: list[dict[str, Any]] = []
    state = run_game({"seed": seed, "players": 8}, model=model, on_prompt=records.append)
    events = [parse_event(e) for e in state["events"]]
    assert audit(events) == []
    assert any(len(r["attempts"]) > 1 for r in records), "some answer was re-asked"
    retried = [r for r in records if r["attempts"][0]["error"]]
    assert retried and all(r["attempts"][0]["error"] for r in retried)
    fallbacks = [e for e in events if isinstance(e, Fallback)]
    for fallback in fallbacks:
        assert fallback.attempts == 3 and fallback.error


def test_fallback_choices_per_action() -> None:
    def always_illegal(ask: Ask) -> dict[str, Any]:
        return {"choice": "Nobody"}

    model = ScriptedModel(script=always_illegal)
    state = run_game({"seed": 3, "round_cap": 2}, model=model, max_retries=1)
    events = [parse_event(e) for e in state["events"]]
    assert audit(events) == []
    applied = {(f.action, f.applied) for f in events if isinstance(f, Fallback)}
    actions = {a for a, _ in applied}
    assert {"speak", "mafia_round1", "protect", "investigate"} <= actions
    for action, choice in applied:
        if action in ("mafia_round1", "mafia_round2", "vote", "revote"):
            assert choice == "skip"
    protect = [f for f in events if isinstance(f, Fallback) and f.action == "protect"]
    assert all(f.applied == f.player for f in protect), "the Doctor falls back to self-protection"
    assert all(f.attempts == 2 for f in events if isinstance(f, Fallback))


class Outage(Exception):
    """A provider failure (not a bad answer): it stops the run, to be resumed."""


class FlakyHouseModel(HouseModel):
    """The house model that fails once its call budget is spent."""

    budget: int = 10**9

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        if self.budget <= 0:
            raise Outage("provider unavailable")
        object.__setattr__(self, "budget", self.budget - 1)
        return super()._generate(*args, **kwargs)


def test_a_crashed_game_resumes_from_sqlite_to_the_same_end(tmp_path: Path) -> None:
    setup = {"config": {"seed": 6, "players": 9}}
    reference = run_game(setup["config"], model=HouseModel(seed=6))
    db = tmp_path / "checkpoints.sqlite"
    config: Any = {"configurable": {"thread_id": "t1"}, "recursion_limit": RECURSION_LIMIT}
    with sqlite_checkpointer(db) as saver:
        graph = build_graph().compile(checkpointer=saver)
        with pytest.raises(Outage):
            graph.invoke(setup, config, context=GameContext(model=FlakyHouseModel(seed=6, budget=40)))
        partial = graph.get_state(config).values["events"]
        assert 0 < len(partial) < len(reference["events"])
    with sqlite_checkpointer(db) as saver:  # a fresh process would open the file the same way
        graph = build_graph().compile(checkpointer=saver)
        final = graph.invoke(None, config, context=GameContext(model=HouseModel(seed=6)))
        assert final["events"] == reference["events"]
        assert graph.get_state(config).values["events"] == reference["events"]


@pytest.mark.parametrize("budget", [23, 40])
def test_a_crashed_run_resumes_with_complete_logs(tmp_path: Path, budget: int) -> None:
    setup = {"seed": 6, "players": 9}
    reference = run_game(setup, model=HouseModel(seed=6), out_dir=tmp_path / "reference")
    db = tmp_path / "checkpoints.sqlite"
    with sqlite_checkpointer(db) as saver, pytest.raises(Outage):
        run_game(
            setup,
            model=FlakyHouseModel(seed=6, budget=budget),
            out_dir=tmp_path,
            checkpointer=saver,
            thread_id="t",
        )
    folder, expected = tmp_path / "game-9p-seed6", tmp_path / "reference" / "game-9p-seed6"
    assert 0 < len((folder / "events.jsonl").read_text().splitlines()) < len(reference["events"])
    logs = [(folder / name).read_bytes() for name in ("events.jsonl", "prompts.jsonl")]
    with sqlite_checkpointer(db) as saver, pytest.raises(ValueError, match="max_retries"):
        resume_game("t", checkpointer=saver, max_retries=-1, out_dir=tmp_path)
    assert [(folder / name).read_bytes() for name in ("events.jsonl", "prompts.jsonl")] == logs
    seen: list[Any] = []
    with sqlite_checkpointer(db) as saver:
        final = resume_game(
            "t", checkpointer=saver, model=HouseModel(seed=6), out_dir=tmp_path, on_event=seen.append
        )
    assert final["events"] == reference["events"]
    assert [e.type for e in seen] == [e["type"] for e in reference["events"]]
    assert (folder / "events.jsonl").read_bytes() == (expected / "events.jsonl").read_bytes()
    prompts = (folder / "prompts.jsonl").read_text().splitlines()
    assert sorted(prompts) == sorted((expected / "prompts.jsonl").read_text().splitlines())
    with sqlite_checkpointer(db) as saver:  # a finished game is returned as it is
        again = resume_game("t", checkpointer=saver, out_dir=tmp_path)
        assert again["events"] == reference["events"]
        with pytest.raises(GameNotFound, match="'nope'"):
            resume_game("nope", checkpointer=saver)
    assert (folder / "prompts.jsonl").read_text().splitlines() == prompts
