"""Arenas played in this process: paired games whose logs are those of single runs, results and
summary, resumes after a provider outage, a stop and Ctrl-C, and the named context policies."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, ClassVar

import httpx2  # the HTTP client openai is built on
import openai
import pytest
from typer.testing import CliRunner

from arena_helpers import LOGS, interrupted, logs_of, run_stopped
from mafia.arena import run_arena
from mafia.arena.spec import ArenaError, Contestant
from mafia.cli import app
from mafia.context.policy import DEFAULT_POLICY, POLICIES, ContextPolicy, UnknownPolicy, policy_by_name
from mafia.models.house import HouseModel
from mafia.play.runner import run_game


def test_policies_are_registered_by_name() -> None:
    assert POLICIES["full-history"].full_transcript
    assert POLICIES["seed-window"] == ContextPolicy(name="seed-window")
    assert POLICIES["one-round-window"].verbatim_rounds == 1
    assert policy_by_name("full-history") is POLICIES["full-history"]
    names = "full-history, seed-window, one-round-window"
    with pytest.raises(UnknownPolicy, match=f"no context policy 'nope'; use one of {names}"):
        policy_by_name("nope")


def test_arena_games_are_paired_and_logged_as_single_runs(tmp_path: Path) -> None:
    summary = run_arena(
        games=2,
        players=5,
        seed_start=3,
        policies=["full-history", "seed-window"],
        models=["house", "house:1"],
        concurrency=4,
        out=tmp_path / "arena",
        arena_id="pairs",
    )
    arena = tmp_path / "arena" / "arena-pairs"
    asked = json.loads((arena / "arena.json").read_text())
    assert asked["seeds"] == [3, 4] and asked["policies"] == ["full-history", "seed-window"]
    assert list(asked["models"]) == ["house", "house-1"] and asked["concurrency"] == 4
    assert summary == json.loads((arena / "summary.json").read_text())
    assert summary["finished"] == summary["games"] == 8 and summary["run"]["unfinished"] == {}
    deals: dict[int, list[Any]] = {}
    for policy in ("full-history", "seed-window"):
        for spec, label in (("house", "house"), ("house:1", "house-1")):
            for seed in (3, 4):
                folder = arena / "games" / policy / label / f"seed-{seed}"
                single = tmp_path / "single" / policy / label
                state = run_game(
                    {"seed": seed, "players": 5}, model=spec, policy=policy_by_name(policy), out_dir=single
                )
                for name in LOGS:  # a game's logs are exactly a single run's
                    assert (folder / name).read_bytes() == (
                        single / f"game-5p-seed{seed}" / name
                    ).read_bytes()
                run_file = json.loads((folder / "run.json").read_text())
                assert run_file["model"] == spec and run_file["policy"]["name"] == policy
                result = json.loads((folder / "result.json").read_text())
                prompts = [json.loads(line) for line in (folder / "prompts.jsonl").read_text().splitlines()]
                assert result["winner"] == state["winner"] and result["seed"] == seed
                assert result["calls"] == sum(len(p["attempts"]) for p in prompts) > 0
                assert result["turns"] == len(prompts)
                assert result["rounds"] == max(e["round"] for e in state["events"])
                deals.setdefault(seed, []).append(state["events"][0])
    for seed, firsts in deals.items():  # every policy and model plays the same deal of a seed
        assert firsts[0]["type"] == "game_started" and all(f == firsts[0] for f in firsts), seed
    pair = summary["by_pair"][0]
    assert pair["policy"] == "full-history" and pair["model"] == "house" and pair["finished"] == 2
    assert sum(summary["winners"].values()) == 8
    assert summary["calls"] == sum(p["calls"] for p in summary["by_pair"])

    again = run_arena(  # a finished arena run again plays nothing
        games=2,
        players=5,
        seed_start=3,
        policies=["full-history", "seed-window"],
        models=["house", "house:1"],
        out=tmp_path / "arena",
        arena_id="pairs",
    )
    assert again["run"]["played"] == 0 and again["run"]["skipped"] == 8
    assert again["by_pair"] == summary["by_pair"]

    # The summary carries the metrics, and the report is one command away.
    metrics = summary["metrics"]
    assert metrics["finished"] == 8 and set(metrics["groups"]) == {"full-history", "seed-window"}
    assert {v["policy"] for v in metrics["judge"]["verdicts"]} == {"seed-window"}
    result = CliRunner().invoke(app, ["arena", "report", str(arena)])
    assert result.exit_code == 0, result.output
    assert "Judge:" in result.output and (arena / "report" / "report.md").exists()
    missing = CliRunner().invoke(app, ["arena", "report", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and len(missing.output.strip().splitlines()) == 1, missing.output


class OutageHouse(HouseModel):
    """The house model behind a provider that goes down after ``calls_left`` calls (shared by
    every instance, as one provider is), until it is healed."""

    budget: ClassVar[dict[str, int]] = {"calls_left": 10**9}

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        with _lock:
            self.budget["calls_left"] -= 1
            down = self.budget["calls_left"] < 0
        if down:
            raise openai.APIConnectionError(request=httpx2.Request("POST", "http://127.0.0.1:9/v1"))
        return super()._generate(*args, **kwargs)


_lock = threading.Lock()


def test_games_stopped_by_an_outage_resume_to_the_same_logs(tmp_path: Path) -> None:
    args: dict[str, Any] = {
        "games": 3,
        "players": 6,
        "models": [Contestant("outage", OutageHouse(seed=0))],
        "concurrency": 3,
        "out": tmp_path,
        "arena_id": "outage",
    }
    OutageHouse.budget["calls_left"] = 40
    first = run_arena(**args)
    unfinished = first["run"]["unfinished"]
    assert unfinished and all("APIConnectionError" in why for why in unfinished.values()), unfinished
    assert first["finished"] == 3 - len(unfinished)
    arena = tmp_path / "arena-outage"
    stopped = {Path(arena / "games" / game) for game in unfinished}
    assert all((folder / "events.jsonl").stat().st_size > 0 for folder in stopped)

    OutageHouse.budget["calls_left"] = 10**9
    second = run_arena(**args)
    assert second["finished"] == 3 and not second["run"]["unfinished"]
    assert second["run"]["played"] == len(unfinished)
    for folder in stopped:
        assert json.loads((folder / "result.json").read_text())["resumed"] is True
    clean = run_arena(**{**args, "models": [Contestant("outage", HouseModel(seed=0))], "out": tmp_path / "c"})
    assert clean["finished"] == 3
    assert logs_of(arena) == logs_of(tmp_path / "c" / "arena-outage")


def test_a_stop_request_ends_every_game_at_a_step_and_the_arena_resumes(tmp_path: Path) -> None:
    args: dict[str, Any] = {"games": 4, "players": 8, "concurrency": 2, "out": tmp_path, "arena_id": "stop"}
    arena = tmp_path / "arena-stop"
    first = run_stopped(arena, 2000, **args)
    unfinished = first["run"]["unfinished"]
    assert len(unfinished) >= 3, unfinished  # the games in play and those not started
    assert any("before the game started" in why for why in unfinished.values())
    second = run_arena(**args)
    assert second["finished"] == 4 and second["run"]["played"] == len(unfinished)
    run_arena(**{**args, "out": tmp_path / "clean"})
    assert logs_of(arena) == logs_of(tmp_path / "clean" / "arena-stop")


@pytest.mark.slow
def test_ctrl_c_stops_the_command_and_the_same_command_resumes(tmp_path: Path) -> None:
    args = [
        "arena",
        "--games",
        "2",
        "--players",
        "10",
        "--concurrency",
        "2",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    stopped = interrupted(args, tmp_path, 3000)
    out, err = stopped.stdout, stopped.stderr
    assert stopped.returncode == 130, (out, err)
    assert "stopped. Run the same command again to resume the arena." in err and "Traceback" not in err
    (arena,) = tmp_path.glob("arena-*")
    assert not list(arena.glob("games/*/*/seed-*/result.json"))  # every game was stopped mid-way

    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert f"{DEFAULT_POLICY} / house: 2/2 games" in done.stdout
    run_arena(games=2, players=10, out=tmp_path / "clean", arena_id=arena.name.removeprefix("arena-"))
    assert logs_of(arena) == logs_of(tmp_path / "clean" / arena.name)


def test_an_arena_resumes_only_under_the_same_ask(tmp_path: Path) -> None:
    run_arena(games=1, players=5, out=tmp_path, arena_id="x")
    with pytest.raises(ArenaError, match=r"arena 'x' was asked with games = 1, now 2"):
        run_arena(games=2, players=5, out=tmp_path, arena_id="x")
    with pytest.raises(ArenaError, match=r"with policies = \[\"lean\"\], now \[\"full-history\"\]"):
        run_arena(games=1, players=5, policies=["full-history"], out=tmp_path, arena_id="x")
    same = run_arena(games=1, players=5, out=tmp_path, arena_id="x", concurrency=2)
    assert same["run"]["skipped"] == 1  # concurrency may change between runs


def test_play_takes_a_named_policy_and_resume_hints_name_it(tmp_path: Path) -> None:
    done = CliRunner().invoke(
        app,
        [
            "play",
            "--seed",
            "2",
            "--players",
            "5",
            "--policy",
            "full-history",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
    )
    assert done.exit_code == 0, done.output
    assert f"mafia resume game-5p-seed2 --out {tmp_path}" in done.stdout  # the run records its policy
    run_file = json.loads((tmp_path / "game-5p-seed2" / "run.json").read_text())
    assert run_file["policy"]["name"] == "full-history"
    single = run_game({"seed": 2, "players": 5}, policy=POLICIES["full-history"], out_dir=tmp_path / "py")
    assert single["winner"]
    for name in LOGS:
        assert (tmp_path / "game-5p-seed2" / name).read_bytes() == (
            tmp_path / "py" / "game-5p-seed2" / name
        ).read_bytes()


def test_the_arena_summariser_is_asked_recorded_and_kept_out_of_other_arenas_ids(tmp_path: Path) -> None:
    ask: dict[str, Any] = {"games": 1, "players": 5, "policies": ["rolling-summary"], "out": tmp_path}
    run_arena(**ask)
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "--games",
            "1",
            "--players",
            "5",
            "--policy",
            "rolling-summary",
            "--summariser",
            "seat:2",
            "--out",
            str(tmp_path),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    arenas = {p.name: json.loads((p / "arena.json").read_text()) for p in tmp_path.glob("arena-*")}
    assert len(arenas) == 2 and sum("summariser" not in a for a in arenas.values()) == 1
    (chosen,) = [name for name, a in arenas.items() if a.get("summariser") == "seat:2"]
    run = tmp_path / chosen / "games" / "rolling-summary" / "house" / "seed-0" / "run.json"
    assert json.loads(run.read_text())["summariser"] == "seat:2"
