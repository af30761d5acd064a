"""A run is what it was started as: its policy, every seat's model with its settings, its people
and its settings survive a stop, whether it goes on by the command line, from Python or through the
SDK; a differing setting is refused naming both values, and an explicit override is logged as an event.

Each stop, by each way of going on (tests here unless a module is named):

| stop | command line | Python | SDK (``langgraph dev``) |
|---|---|---|---|
| provider | test_cli_resume_keeps_policy_models_and_settings_after_a_provider_stop | test_python_resume_without_models_keeps_the_recorded_run | test_sdk_resume_keeps_the_run_after_a_provider_stop_a_cancel_and_a_server_sigkill (``stopped``) |
| Ctrl-C | test_cli_keeps_a_person_at_the_table_after_the_input_ends (the end of input stops as Ctrl-C does; test_interrupt.py sends a real SIGINT) | test_python_resume_after_ctrl_c_keeps_the_person_and_the_policy | test_sdk_resume_keeps_the_run_after_a_provider_stop_a_cancel_and_a_server_sigkill (a cancelled run, ``killed``) |
| SIGKILL | test_cli_keeps_the_run_after_a_sigkill_at_a_persons_turn | test_crash_resume.py::test_killed_games_resume_to_identical_logs (resumed with no model: the recorded one) | test_sdk_resume_keeps_the_run_after_a_provider_stop_a_cancel_and_a_server_sigkill (``killed``) |
| Studio interrupt | test_cli_keeps_a_person_at_the_table_after_the_input_ends | test_the_graph_keeps_people_and_policy_when_resumed_without_context | test_human_studio.py::test_studio_keeps_the_person_when_resumed_without_context |

A differing setting refused: test_cli_resume_keeps_policy_models_and_settings_after_a_provider_stop,
test_python_resume_without_models_keeps_the_recorded_run, test_the_graph_refuses_a_differing_context_on_resume.
An override logged: test_a_cli_override_is_logged_as_an_event, test_python_override_is_logged.
"""  # noqa: E501 (a table's rows cannot be wrapped)

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import openai
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from langgraph_sdk import get_sync_client
from typer.testing import CliRunner

from fakes import free_port
from fakes.fault_server import FaultServer
from langgraph_server import answer_people, dev_server, person_answer, thread_values
from mafia.cli import app
from mafia.context.policy import POLICIES
from mafia.graph import compile_graph
from mafia.models.settings import ModelSettings
from mafia.play.runner import RECURSION_LIMIT, recorded_run, resume_game, run_game
from mafia.run.record import RunMismatch, context_from_record, describe_context, differences
from mafia.run.runtime import GameContext
from fakes.openai_server import OpenAIServer, openai_server
from stores import Store

runner = CliRunner()
MAFIA = Path(sys.executable).parent / "mafia"
LOGS = ("events.jsonl", "prompts.jsonl")


def _file(path: Path, base_url: str) -> Path:
    path.write_text(
        'seed = 11\nplayers = 6\nround_cap = 3\nmax_retries = 1\npolicy = "full-history"\n'
        f'[model]\nmodel = "openai:house"\nbase_url = "{base_url}"\nrequest_retries = 0\n'
        '[seats.3]\nmodel = "house:5"\n'
    )
    return path


def _logs(folder: Path) -> list[bytes]:
    return [(folder / name).read_bytes() for name in LOGS]


def test_cli_resume_keeps_policy_models_and_settings_after_a_provider_stop(tmp_path: Path) -> None:
    with FaultServer() as plain:
        ref = runner.invoke(
            app,
            [
                "play",
                "--config",
                str(_file(tmp_path / "a.toml", plain.base_url)),
                "--quiet",
                "--out",
                str(tmp_path / "ref"),
            ],
        )
        assert ref.exit_code == 0, ref.output
    with FaultServer(burst=range(15, 16)) as flaky:
        game = _file(tmp_path / "b.toml", flaky.base_url)
        stopped = runner.invoke(
            app, ["play", "--config", str(game), "--quiet", "--out", str(tmp_path / "run")]
        )
        assert stopped.exit_code == 1, stopped.output
        run = tmp_path / "run" / "game-6p-seed11"
        recorded = json.loads((run / "run.json").read_text())
        assert recorded["policy"]["name"] == "full-history" and recorded["max_retries"] == 1
        assert recorded["model"] == {
            "model": "openai:house",
            "base_url": flaky.base_url,
            "request_retries": 0,
        }
        assert recorded["seat_models"] == {"3": "house:5"} and recorded["humans"] == []
        out = ["--out", str(tmp_path / "run")]
        policy = runner.invoke(app, ["resume", run.name, *out, "--policy", "seed-window"])
        assert policy.exit_code == 2, policy.output
        assert (
            "full-history" in policy.stderr
            and "seed-window" in policy.stderr
            and "--change-policy" in policy.stderr
        )
        model = runner.invoke(app, ["resume", run.name, *out, "--model", "house"])
        assert model.exit_code == 2 and "'house'" in model.stderr and "openai:house" in model.stderr, (
            model.output
        )
        assert "--change-model" in model.stderr
        resumed = runner.invoke(app, ["resume", run.name, *out, "--quiet"])
        assert resumed.exit_code == 0, resumed.output
    assert _logs(run) == _logs(tmp_path / "ref" / "game-6p-seed11")


def test_a_cli_override_is_logged_as_an_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    out = ["--out", str(tmp_path)]
    stopped = runner.invoke(app, ["play", "--seed", "3", "--seat-model", "4=openai:gone", "--quiet", *out])
    assert stopped.exit_code == 1, stopped.output
    again = runner.invoke(app, ["resume", "game-7p-seed3", *out, "--quiet"])
    assert again.exit_code == 1 and "the game stopped" in again.stderr  # still seat 4's own model
    refused = runner.invoke(app, ["resume", "game-7p-seed3", *out, "--seat-model", "4=house:3"])
    assert refused.exit_code == 2 and "'openai:gone'" in refused.stderr and "'house:3'" in refused.stderr
    changed = runner.invoke(
        app, ["resume", "game-7p-seed3", *out, "--seat-model", "4=house:3", "--change-model", "--quiet"]
    )
    assert changed.exit_code == 0, changed.output
    events = [
        json.loads(line) for line in (tmp_path / "game-7p-seed3" / "events.jsonl").read_text().splitlines()
    ]
    changes = [e for e in events if e["type"] == "run_changed"]
    assert [(c["setting"], c["before"], c["after"]) for c in changes] == [
        ("seat_models.4", "openai:gone", "house:3")
    ]
    assert json.loads((tmp_path / "game-7p-seed3" / "run.json").read_text())["seat_models"] == {
        "4": "house:3"
    }


def test_cli_keeps_a_person_at_the_table_after_the_input_ends(tmp_path: Path) -> None:
    out = ["--out", str(tmp_path)]
    first = runner.invoke(
        app, ["play", "--seed", "2", "--human", "3", "--policy", "one-round-window", *out], input=""
    )
    assert first.exit_code == 130, first.output
    recorded = json.loads((tmp_path / "game-7p-seed2" / "run.json").read_text())
    assert recorded["humans"] == ["3"] and recorded["seat_models"] == {"3": "human"}
    assert recorded["policy"]["name"] == "one-round-window"
    again = runner.invoke(app, ["resume", "game-7p-seed2", *out], input="")
    assert again.exit_code == 130, again.output  # Player 3 is still asked, not the house model
    assert "Player 3" in again.output


@pytest.mark.slow
def test_cli_keeps_the_run_after_a_sigkill_at_a_persons_turn(tmp_path: Path) -> None:
    """``mafia play`` killed with SIGKILL while it waits on the person at seat 3; ``mafia resume``
    with nothing but the run id asks that person again, with the run's policy and models."""
    out = tmp_path / "runs"
    args = ["play", "--seed", "2", "--human", "3", "--seat-model", "2=house:5", "--policy", "full-history"]
    shown = tmp_path / "shown.txt"
    with shown.open("w") as screen:
        proc = subprocess.Popen(
            [str(MAFIA), *args, "--max-retries", "1", "--out", str(out)],
            stdin=subprocess.PIPE,  # held open and never written: the person is thinking
            stdout=screen,
            stderr=subprocess.STDOUT,
            env={**os.environ, "LANGSMITH_TRACING": "false", "PYTHONUNBUFFERED": "1"},
        )
        try:
            _wait_until(
                lambda: "Your turn, Player 3" in shown.read_text() or proc.poll() is not None,
                "the game asks the person",
            )
            assert proc.poll() is None, shown.read_text()
        finally:
            proc.kill()
            proc.wait()
    resumed = runner.invoke(app, ["resume", "game-7p-seed2", "--out", str(out)], input="")
    assert resumed.exit_code == 130, resumed.output  # the person is asked again; the input ended
    assert "Your turn, Player 3" in resumed.output
    recorded = json.loads((out / "game-7p-seed2" / "run.json").read_text())
    assert recorded["policy"]["name"] == "full-history" and recorded["max_retries"] == 1
    assert recorded["seat_models"] == {"2": "house:5", "3": "human"} and recorded["humans"] == ["3"]


def test_python_resume_after_ctrl_c_keeps_the_person_and_the_policy() -> None:
    """Ctrl-C (KeyboardInterrupt) at the person's first turn; ``resume_game`` given only the
    thread and who answers for the person plays on with the run's people, models and policy."""
    saver = InMemorySaver()
    seat_models, policy = {"3": "human", "2": "house:5"}, POLICIES["one-round-window"]

    def ctrl_c(turn: dict[str, Any]) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_game(
            GAME,
            checkpointer=saver,
            thread_id="t",
            human=ctrl_c,
            max_retries=1,
            seat_models=seat_models,
            policy=policy,
        )
    asked: list[str] = []

    def person(turn: dict[str, Any]) -> Any:
        asked.append(turn["player"])
        return person_answer(turn)

    final = resume_game("t", checkpointer=saver, human=person)
    assert final["winner"] is not None and asked and set(asked) == {"Player 3"}
    run, _ = recorded_run(saver, "t")
    assert run is not None
    assert run["policy"]["name"] == "one-round-window" and run["max_retries"] == 1
    assert run["seat_models"] == {"2": "house:5", "3": "human"}


GAME = {"seed": 5, "players": 6, "round_cap": 3}


def test_python_resume_without_models_keeps_the_recorded_run(tmp_path: Path, store: Store) -> None:
    def play(base_url: str, out: Path, saver: Any) -> dict[str, Any]:
        settings = ModelSettings(model="openai:house", base_url=base_url, request_retries=0)
        return run_game(
            GAME,
            model=settings,
            seat_models={"2": "house:3"},
            policy=POLICIES["full-history"],
            max_retries=1,
            checkpointer=saver,
            out_dir=out,
            thread_id="t",
        )

    with FaultServer() as plain:
        play(plain.base_url, tmp_path / "ref", InMemorySaver())
    with FaultServer(burst=range(12, 13)) as flaky, store.open(tmp_path) as saver:
        with pytest.raises(openai.APIError):
            play(flaky.base_url, tmp_path / "run", saver)
        with pytest.raises(
            RunMismatch, match=r"policy: the run was started with full-history; got seed-window"
        ):
            resume_game("t", checkpointer=saver, policy=POLICIES["seed-window"], out_dir=tmp_path / "run")
        with pytest.raises(RunMismatch, match=r"max_retries: the run was started with 1; got 3"):
            resume_game("t", checkpointer=saver, max_retries=3, out_dir=tmp_path / "run")
        final = resume_game("t", checkpointer=saver, out_dir=tmp_path / "run")
    assert final["winner"] is not None
    assert _logs(tmp_path / "run" / "t") == _logs(tmp_path / "ref" / "t")


def test_python_override_is_logged(tmp_path: Path) -> None:
    saver = InMemorySaver()
    with FaultServer(burst=range(10, 11)) as flaky:
        settings = ModelSettings(model="openai:house", base_url=flaky.base_url, request_retries=0)
        with pytest.raises(openai.APIError):
            run_game(GAME, model=settings, checkpointer=saver, thread_id="t")
    final = resume_game(
        "t", checkpointer=saver, model="house:1", policy=POLICIES["full-history"], change=("model", "policy")
    )
    changes = [e for e in final["events"] if e["type"] == "run_changed"]
    assert {c["setting"] for c in changes} == {"model", "policy"}
    assert all(c["before"] != c["after"] for c in changes)


def test_the_graph_keeps_people_and_policy_when_resumed_without_context() -> None:
    game = compile_graph(checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": "table"}, "recursion_limit": RECURSION_LIMIT}
    context = {"seat_models": {"3": "human"}, "policy": "full-history"}
    out = game.invoke({"setup": {"seed": 2, "players": 5}}, cfg, context=context)
    asked = 0
    while "__interrupt__" in out:
        assert asked < 100
        (pending,) = out["__interrupt__"]
        turn = pending.value
        assert turn["player"] == "Player 3"
        asked += 1
        reply = {"text": "Studio here.", "choice": 1} if turn["text"] else {"choice": 1}
        out = game.invoke(Command(resume=reply), cfg)  # no context, as Studio's resume form sends
    assert asked >= 3 and out["winner"] is not None
    values = game.get_state(cfg).values
    assert values["run"]["policy"]["name"] == "full-history"
    speeches = [e for e in values["events"] if e["type"] == "speech" and e["speaker"] == "Player 3"]
    assert speeches and all(s["text"] == "Studio here." for s in speeches)


def test_the_graph_refuses_a_differing_context_on_resume() -> None:
    game = compile_graph(checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": "table"}, "recursion_limit": RECURSION_LIMIT}
    out = game.invoke({"setup": {"seed": 2, "players": 5}}, cfg, context={"seat_models": {"3": "human"}})
    assert "__interrupt__" in out
    with pytest.raises(RunMismatch, match=r"seat_models\.3: the run was started with 'human'; got 'house'"):
        game.invoke(Command(resume="x"), cfg, context={"seat_models": {"3": "house"}})
    # The same people under another context policy: refused too, naming both policies.
    with pytest.raises(RunMismatch, match=r"^policy: the run was started with lean; got layered"):
        game.invoke(Command(resume="x"), cfg, context={"seat_models": {"3": "human"}, "policy": "layered"})


def test_a_run_resumes_with_its_summariser_and_refuses_another() -> None:
    saver = InMemorySaver()
    run_game(
        {"seed": 1, "players": 5},
        policy=POLICIES["rolling-summary"],
        summariser="seat:2",
        checkpointer=saver,
        thread_id="t",
    )
    assert resume_game("t", checkpointer=saver, policy=POLICIES["rolling-summary"])["winner"]
    assert resume_game("t", checkpointer=saver, summariser="seat:2")["winner"]
    with pytest.raises(RunMismatch, match="summariser: the run was started with 'seat:2'; got 'house:3'"):
        resume_game("t", checkpointer=saver, summariser="house:3")


def test_the_summariser_is_recorded_and_a_different_one_refused() -> None:
    names = [f"Player {k}" for k in range(1, 6)]
    for summariser in ("house:3", "seat:2"):
        started = GameContext(policy=POLICIES["rolling-summary"], summariser=summariser)
        record = describe_context(started, names)
        assert record["summariser"] == summariser
        assert describe_context(context_from_record(record), names) == record
    record = describe_context(GameContext(policy=POLICIES["rolling-summary"], summariser="house:3"), names)
    given = describe_context(GameContext(policy=POLICIES["rolling-summary"]), names)
    assert [m.setting for m in differences(record, given)] == ["summariser"]


def _studio_context(base_url: str) -> dict[str, Any]:
    """A Studio run's context: a model behind ``base_url`` with no retries of its own, a person
    at seat 3, a named policy and one re-ask."""
    model = {"model": "openai:house", "base_url": base_url, "request_retries": 0}
    return {"model": model, "seat_models": {"3": "human"}, "policy": "full-history", "max_retries": 1}


def _kept(values: dict[str, Any], base_url: str) -> None:
    """A finished game that was played to its end as it was started: its run record and its person."""
    assert values["winner"] is not None
    run = values["run"]
    assert run["policy"]["name"] == "full-history" and run["max_retries"] == 1
    assert run["model"]["base_url"] == base_url and run["seat_models"] == {"3": "human"}
    speeches = [e for e in values["events"] if e["type"] == "speech" and e["speaker"] == "Player 3"]
    assert speeches and all(s["text"] == "Studio here." for s in speeches)


def _wait_until(done: Any, what: str) -> None:
    for _ in range(600):
        if done():
            return
        time.sleep(0.1)
    raise AssertionError(f"never happened: {what}")


@pytest.mark.slow
def test_sdk_resume_keeps_the_run_after_a_provider_stop_a_cancel_and_a_server_sigkill(tmp_path: Path) -> None:
    """Through the SDK on one ``langgraph dev`` data folder, resumed with no context each time: a
    run its provider stopped (thread ``stopped``), and a run cancelled mid-call (the SDK's Ctrl-C)
    whose server was later killed with SIGKILL mid-run and started again (thread ``killed``).

    ``langgraph dev`` writes its checkpoints to its folder only when it stops (its periodic flush
    keeps threads and runs, not checkpoints), so a SIGKILL loses the steps played since the server
    started: here it was first stopped cleanly at the person's first turn, as a Studio session
    closed and opened again, and the killed game goes on from there."""
    calls = itertools.count(1)
    with (
        FaultServer(burst=range(8, 9)) as flaky,
        openai_server(hang=lambda body: next(calls) in (12, 15)) as slow,
    ):
        with dev_server(tmp_path) as server:
            client = get_sync_client(url=server.url)
            stopped = client.threads.create()["thread_id"]
            context = _studio_context(flaky.base_url)
            client.runs.wait(stopped, "mafia", input=SDK_SETUP, context=context, raise_error=False)
            answer_people(client, stopped)
            assert client.threads.get(stopped)["status"] == "error"  # the provider's 503, no retries
            client.runs.wait(stopped, "mafia")  # goes on from the stop
            answer_people(client, stopped)
            _kept(thread_values(client, stopped), flaky.base_url)

            killed = client.threads.create()["thread_id"]
            client.runs.wait(killed, "mafia", input=SDK_SETUP, context=_studio_context(slow.base_url))
            assert client.threads.get(killed)["status"] == "interrupted"
        with dev_server(tmp_path) as server:  # the folder kept the game at the person's turn
            client = get_sync_client(url=server.url)
            _answer_until_held(client, killed, slow, 1)
            (hung,) = [r for r in client.runs.list(killed) if r["status"] in ("pending", "running")]
            client.runs.cancel(killed, hung["run_id"], wait=True)
            client.runs.create(killed, "mafia")  # goes on from the cancelled step
            _answer_until_held(client, killed, slow, 2)
            server.kill()
        with dev_server(tmp_path) as server:
            client = get_sync_client(url=server.url)
            # The server itself may first run again the run the kill cut short.
            _wait_until(lambda: client.threads.get(killed)["status"] != "busy", "the thread is free")
            assert answer_people(client, killed)  # the person is still asked after the crash
            _kept(thread_values(client, killed), slow.base_url)


SDK_SETUP = {"setup": {"seed": 2, "players": 5}}


def _answer_until_held(client: Any, thread: str, model_server: OpenAIServer, held: int) -> None:
    """Answer the person's turns, each in a run of its own, until the model server holds ``held``
    requests: a run is then in flight, waiting on its model."""

    def settled(run_id: str) -> bool:
        running = client.runs.get(thread, run_id)["status"] in ("pending", "running")
        return model_server.held >= held or not running

    for _ in range(100):
        if model_server.held >= held:
            return
        if client.threads.get(thread)["status"] == "interrupted":
            (pending,) = client.threads.get_state(thread)["interrupts"]
            run = client.runs.create(thread, "mafia", command={"resume": person_answer(pending["value"])})
            _wait_until(lambda run_id=run["run_id"]: settled(run_id), "the run ends or waits on its model")
        else:
            _wait_until(
                lambda: model_server.held >= held or client.threads.get(thread)["status"] != "busy",
                "the run waits on its model or the thread is free",
            )
    status = client.threads.get(thread)["status"]
    raise AssertionError(f"{model_server.held} requests held, not {held}; the thread is {status}")
