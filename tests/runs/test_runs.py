"""Whole runs: determinism of the logs, bad answers never killing a game, checkpoints and resume."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from audit import audit
from fakes import Ask, ScriptedModel
from mafia.game.events import Fallback, parse_event
from mafia.game.state import InputState
from mafia.graph import build_graph
from mafia.models.house import HouseModel
from mafia.play.runner import (
    RECURSION_LIMIT,
    GameNotFound,
    LogConflict,
    RunBusy,
    RunExists,
    RunLock,
    graph_for,
    is_running,
    is_saved,
    resume_game,
    run_game,
    sqlite_checkpointer,
)
from mafia.run.runtime import GameContext
from repo import SUPPORT


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


@pytest.mark.slow
def test_logs_do_not_depend_on_the_process_hash_seed(tmp_path: Path) -> None:
    """Separate processes (as separate runs of ``mafia play`` are) with different string hashing."""
    script = (
        "import sys\n"
        "from mafia.models.house import HouseModel\n"
        "from mafia.play.runner import run_game\n"
        "run_game({'seed': 4, 'players': 12}, model=HouseModel(seed=4), out_dir=sys.argv[1])\n"
    )
    procs = [  # at once: neither depends on the other
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path / hash_seed)],
            env={**os.environ, "PYTHONHASHSEED": hash_seed, "LANGSMITH_TRACING": "false"},
        )
        for hash_seed in ("1", "2")
    ]
    assert [p.wait() for p in procs] == [0, 0]
    for name in ("events.jsonl", "prompts.jsonl"):
        first = (tmp_path / "1" / "game-12p-seed4" / name).read_bytes()
        assert first and first == (tmp_path / "2" / "game-12p-seed4" / name).read_bytes(), name


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
    assert retried
    # A rejected first answer is re-asked; the turn ends on an accepted answer or a fallback.
    assert all(len(r["attempts"]) > 1 for r in retried)
    assert all(r["fallback"] == bool(r["attempts"][-1]["error"]) for r in retried)
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
    setup: InputState = {"setup": {"seed": 6, "players": 9}}
    reference = run_game(setup["setup"], model=HouseModel(seed=6))
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
    folder, expected = tmp_path / "t", tmp_path / "reference" / "game-9p-seed6"
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
    assert (folder / "prompts.jsonl").read_bytes() == (expected / "prompts.jsonl").read_bytes()
    with sqlite_checkpointer(db) as saver:  # a finished game is returned as it is
        again = resume_game("t", checkpointer=saver, out_dir=tmp_path)
        assert again["events"] == reference["events"]
        with pytest.raises(GameNotFound, match="'nope'"):
            resume_game("nope", checkpointer=saver)
    assert (folder / "prompts.jsonl").read_text().splitlines() == prompts


def logs_of(folder: Path) -> dict[str, bytes]:
    """Every file of a run folder, by name, as bytes."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_a_second_run_of_the_same_seed_keeps_the_first(tmp_path: Path) -> None:
    ids: list[str] = []
    with sqlite_checkpointer(tmp_path / "checkpoints.sqlite") as saver:
        for _ in range(2):
            model = HouseModel(seed=2)
            run_game({"seed": 2}, model=model, out_dir=tmp_path, checkpointer=saver, on_start=ids.append)
            if len(ids) == 1:
                first = logs_of(tmp_path / ids[0])
        assert ids == ["game-7p-seed2", "game-7p-seed2-2"]
        assert logs_of(tmp_path / ids[0]) == first
        assert is_saved(saver, ids[0]) and is_saved(saver, ids[1])
        second = logs_of(tmp_path / ids[1])
        assert second["events.jsonl"] == first["events.jsonl"]
        assert second["prompts.jsonl"] == first["prompts.jsonl"]
        with pytest.raises(RunExists, match="already checkpointed"):
            run_game({"seed": 2}, out_dir=tmp_path / "other", checkpointer=saver, thread_id=ids[0])
    with pytest.raises(RunExists, match="already exists"):
        run_game({"seed": 2}, out_dir=tmp_path, thread_id=ids[1])
    assert logs_of(tmp_path / ids[0]) == first and logs_of(tmp_path / ids[1]) == second


def test_a_failed_run_leaves_earlier_logs_intact(tmp_path: Path) -> None:
    run_game({"seed": 3}, model=HouseModel(seed=3), out_dir=tmp_path)
    before = logs_of(tmp_path / "game-7p-seed3")
    with pytest.raises(Outage):
        run_game({"seed": 3}, model=FlakyHouseModel(seed=3, budget=0), out_dir=tmp_path)
    with pytest.raises(ValueError, match="max_retries"):
        run_game({"seed": 3}, out_dir=tmp_path, max_retries=-1)
    assert logs_of(tmp_path / "game-7p-seed3") == before
    failed = logs_of(tmp_path / "game-7p-seed3-2")
    assert failed["prompts.jsonl"] == b"" and failed["events.jsonl"].count(b"\n") > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-7p-seed3", "game-7p-seed3-2"]


@pytest.mark.slow
def test_simultaneous_runs_of_one_game_write_separate_folders(tmp_path: Path) -> None:
    run_game({"seed": 4, "players": 6}, model=HouseModel(seed=4), out_dir=tmp_path / "reference")
    expected = logs_of(tmp_path / "reference" / "game-6p-seed4")
    script = str(SUPPORT / "crash_game.py")
    env = {**os.environ, "LANGSMITH_TRACING": "false"}
    out = tmp_path / "out"
    procs = [
        subprocess.Popen([sys.executable, script, "play", str(out), "4", "6", "0.002"], env=env)
        for _ in range(3)
    ]
    assert [p.wait() for p in procs] == [0, 0, 0]
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert folders == ["game-6p-seed4", "game-6p-seed4-2", "game-6p-seed4-3"]
    for folder in folders:
        logs = logs_of(out / folder)
        for name in ("events.jsonl", "prompts.jsonl"):
            assert logs[name] == expected[name], f"{folder}/{name}"


def stopped_game(tmp_path: Path, budget: int = 30) -> tuple[Path, dict[str, bytes]]:
    """A 7-seat game under ``tmp_path`` stopped by a provider outage: its folder and logs."""
    with sqlite_checkpointer(tmp_path / "checkpoints.sqlite") as saver, pytest.raises(Outage):
        run_game(
            {"seed": 5}, model=FlakyHouseModel(seed=5, budget=budget), out_dir=tmp_path, checkpointer=saver
        )
    folder = tmp_path / "game-7p-seed5"
    return folder, logs_of(folder)


def test_two_processes_never_play_one_game_at_once(tmp_path: Path) -> None:
    folder, before = stopped_game(tmp_path)
    lock = RunLock(folder)
    lock.acquire()  # as a resume in another process would hold it
    try:
        assert is_running(folder)
        with sqlite_checkpointer(tmp_path / "checkpoints.sqlite") as saver, pytest.raises(RunBusy):
            resume_game("game-7p-seed5", checkpointer=saver, out_dir=tmp_path)
        assert logs_of(folder) == before
    finally:
        lock.release()
    assert not is_running(folder)
    with sqlite_checkpointer(tmp_path / "checkpoints.sqlite") as saver:
        final = resume_game("game-7p-seed5", checkpointer=saver, model=HouseModel(seed=5), out_dir=tmp_path)
    assert final["winner"] is not None


def test_a_log_that_disagrees_with_its_checkpoint_is_left_alone(tmp_path: Path) -> None:
    folder, before = stopped_game(tmp_path)
    changed = before["events.jsonl"].replace(b'"round":0', b'"round":9', 1)
    (folder / "events.jsonl").write_bytes(changed)
    with sqlite_checkpointer(tmp_path / "checkpoints.sqlite") as saver, pytest.raises(LogConflict):
        resume_game("game-7p-seed5", checkpointer=saver, model=HouseModel(seed=5), out_dir=tmp_path)
    assert (folder / "events.jsonl").read_bytes() == changed
    assert (folder / "prompts.jsonl").read_bytes() == before["prompts.jsonl"]


class LosesOneCheckpoint(SqliteSaver):
    """A saver whose process "dies" while saving one step's checkpoint, after its turns' writes
    were saved: the last checkpoint then has every task of its step finished and nothing next."""

    fail_at: int = 0

    def put(self, *args: Any, **kwargs: Any) -> Any:
        self.fail_at -= 1
        if self.fail_at == 0:
            raise Outage("killed while saving")
        return super().put(*args, **kwargs)


def test_resume_goes_on_when_the_last_step_finished_but_was_not_saved(tmp_path: Path) -> None:
    expected = logs_of_game(tmp_path / "reference", 8)
    db = tmp_path / "checkpoints.sqlite"
    with sqlite_checkpointer(db) as plain:
        saver = LosesOneCheckpoint(plain.conn)
        for fail_at in range(12, 200):  # until a save after a simultaneous step fails
            saver.fail_at = fail_at
            with pytest.raises(Outage):
                run_game(
                    {"seed": 8},
                    model=HouseModel(seed=8),
                    out_dir=tmp_path / "tries" / str(fail_at),
                    checkpointer=saver,
                    thread_id=f"try-{fail_at}",
                )
            snapshot = graph_for(plain).get_state({"configurable": {"thread_id": f"try-{fail_at}"}})
            if not snapshot.next and snapshot.tasks and snapshot.values["winner"] is None:
                break
        else:
            pytest.fail("no step ended with its turns saved and its checkpoint lost")
        thread = f"try-{fail_at}"
        out = tmp_path / "tries" / str(fail_at)
        final = resume_game(thread, checkpointer=plain, model=HouseModel(seed=8), out_dir=out)
    assert final["winner"] is not None
    logs = logs_of(out / thread)
    assert logs["events.jsonl"] == expected["events.jsonl"]
    assert logs["prompts.jsonl"] == expected["prompts.jsonl"]


def logs_of_game(out: Path, seed: int) -> dict[str, bytes]:
    """The logs of the uninterrupted 7-seat game with ``seed``."""
    run_game({"seed": seed}, model=HouseModel(seed=seed), out_dir=out)
    return logs_of(out / f"game-7p-seed{seed}")
