"""What a game cost: calls, re-asks and fallbacks by kind, tokens sent, cached (as the provider
reported them and as modelled), billed-equivalent, seconds and money from the game file's prices,
shown after ``play`` and by ``runs`` and ``replay``; equal to the sums of the recorded attempts."""

from __future__ import annotations

import itertools
import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from typer.testing import CliRunner

import arena_logs
from fakes import Ask, Script, Searcher
from fakes.openai_server import openai_server, task_of
from mafia.arena.calls import calls, critical_path_calls
from mafia.arena.game import GameTally
from mafia.arena.progress import ArenaProgress
from mafia.cli import app
from mafia.context.policy import POLICIES
from mafia.play.runner import run_game
from mafia.records.call_kinds import kinds_of
from mafia.records.call_records import new_attempt
from mafia.records.cost import cost_line, cost_of, run_cost

runner = CliRunner()
PRICES = {"input": 2.5, "cached_input": 1.25, "output": 10.0}


def first_protection(body: dict[str, Any]) -> bool:
    """A Doctor's first ask of a night (answered with no JSON, so re-asked)."""
    return task_of(body) == "PROTECT" and "was rejected" not in json.dumps(body["messages"])


def test_the_summary_is_the_sum_of_the_attempts_and_the_price_table(tmp_path: Path) -> None:
    with openai_server(spoil=first_protection) as server:
        game = tmp_path / "game.toml"
        game.write_text(
            "seed = 4\nplayers = 5\nround_cap = 3\nmax_retries = 1\n"
            f'[model]\nmodel = "openai:local-cost"\nbase_url = "{server.base_url}"\n'
            "[prices]\n" + "".join(f"{k} = {v}\n" for k, v in PRICES.items())
        )
        played = runner.invoke(
            app, ["play", "--config", str(game), "--quiet", "--out", str(tmp_path / "runs")]
        )
    assert played.exit_code == 0, played.output
    folder = tmp_path / "runs" / "game-5p-seed4"
    records = [json.loads(line) for line in (folder / "prompts.jsonl").read_text().splitlines()]
    attempts = [a for r in records for a in r["attempts"]]
    cost = run_cost(folder)
    assert cost.calls == len(attempts)
    protections = sum(r["action"] == "protect" for r in records)
    assert protections > 0 and cost.reasks == sum(len(r["attempts"]) - 1 for r in records) == protections
    assert cost.fallbacks == dict(Counter(r["fallback_kind"] for r in records if r["fallback"]))
    assert (
        cost.rejections
        == dict(Counter(a["kind"] for a in attempts if a["kind"]))
        == {"invalid_json": protections}
    )
    assert cost.tokens_sent == sum(a["prompt_tokens"] + a["schema_tokens"] for a in attempts)
    assert cost.output_tokens == sum(a["output_tokens"] for a in attempts)
    assert cost.cached_modelled == sum(a["cached_tokens"] for a in attempts)
    assert cost.billed_equivalent == pytest.approx(sum(a["billed_tokens"] for a in attempts))
    usage = [a["provider_usage"] for a in attempts]
    prompt, cached, completion = (
        sum(u[k] for u in usage) for k in ("prompt_tokens", "cached_tokens", "completion_tokens")
    )
    assert (cost.reported_prompt, cost.reported_cached, cost.reported_completion) == (
        prompt,
        cached,
        completion,
    )
    money = (
        (prompt - cached) * PRICES["input"] + cached * PRICES["cached_input"] + completion * PRICES["output"]
    ) / 1e6
    assert cost.money == pytest.approx(money)
    assert cost.seconds is not None and cost.seconds > 0
    line = cost_line(cost)
    assert f"{cost.calls} calls" in line and f"${money:.4f}" in line
    assert f"{protections} re-asks (invalid_json {protections})" in line
    assert f"provider ({cost.calls} of {cost.calls} calls)" in line
    assert line.split(", ")[:3] == cost_line(run_cost(folder)).split(", ")[:3]
    assert f"{cost.calls} calls" in played.output and f"${money:.4f}" in played.output
    listed = runner.invoke(app, ["runs", "--out", str(tmp_path / "runs")])
    assert (
        listed.exit_code == 0 and f"{cost.calls} calls" in listed.output and f"${money:.4f}" in listed.output
    )
    replayed = runner.invoke(app, ["replay", str(folder)])
    assert (
        replayed.exit_code == 0
        and f"{cost.calls} calls" in replayed.output
        and f"${money:.4f}" in replayed.output
    )


def test_a_game_without_prices_shows_no_money(tmp_path: Path) -> None:
    played = runner.invoke(app, ["play", "--seed", "1", "--quiet", "--out", str(tmp_path)])
    assert played.exit_code == 0, played.output
    cost = run_cost(tmp_path / "game-7p-seed1")
    assert cost.money is None and cost.reported_prompt is None
    assert "$" not in cost_line(cost) and f"{cost.calls} calls" in played.output
    assert cost.dialects == {"stable": cost.calls} and "stable schema dialect" in played.output


@pytest.mark.parametrize(
    ("dialects", "said"),
    [
        (["stable", "stable"], "2 calls, stable schema dialect, "),
        (["grammar", "grammar", None], "3 calls, grammar schema dialect, "),
        (["stable", "grammar", "grammar"], "3 calls, schema dialects grammar 2, stable 1, "),
        ([None], "1 calls, 0 re-asks"),
    ],
)
def test_the_cost_line_says_which_schema_dialect_the_calls_were_asked_in(
    dialects: list[str | None], said: str
) -> None:
    """Each call's dialect is on its attempt (``schema``); a person's answer has none."""
    tokens = {"prompt_tokens": 10, "schema_tokens": 0, "output_tokens": 1}
    records = [{"attempts": [new_attempt("{}", tokens, schema=d)]} for d in dialects]
    assert said in cost_line(cost_of(records))


def misguard(ask: Ask) -> dict[str, Any] | None:
    """A Doctor's first answer of a night names no one at the table (rejected, then re-asked);
    every other answer is legal."""
    return {"choice": "Nobody Here"} if ask.action == "protect" and not ask.retry else None


@pytest.mark.parametrize("script", [misguard, None], ids=["with-rejections", "without"])
def test_a_layered_games_cost_counts_recalls_apart_from_the_true_re_asks(
    tmp_path: Path, script: Script | None
) -> None:
    model = Searcher(searches=1, query="Player 2", script=script)
    run_game({"seed": 5, "players": 7}, model=model, policy=POLICIES["layered"], out_dir=tmp_path)
    folder = tmp_path / "game-7p-seed5"
    records = [json.loads(line) for line in (folder / "prompts.jsonl").read_text().splitlines()]
    re_asked = [a["kind"] for r in records for a in r["attempts"][:-1] if a["kind"] not in (None, "recall")]
    recalls = sum(a["kind"] == "recall" for r in records for a in r["attempts"])
    cost = run_cost(folder)
    assert recalls > 0 and cost.recalls == recalls
    assert cost.calls == sum(len(r["attempts"]) for r in records)
    assert cost.reasks == len(re_asked) and cost.rejections == dict(Counter(re_asked))
    assert (cost.reasks > 0) == (script is not None)
    line = cost_line(cost)
    assert f"{cost.calls} calls (recall {recalls})" in line
    kinds = f" (illegal_choice {len(re_asked)})" if re_asked else ","
    assert f"{len(re_asked)} re-asks{kinds}" in line
    # The answer after a search is offered the turn's own schema, not a re-ask's (unless an answer
    # of the turn was rejected): the same tools, so it shares the search's whole prefix.
    for record in records:
        for before, after in itertools.pairwise(record["attempts"]):
            if before["kind"] == "recall":
                assert after["schema_tokens"] == before["schema_tokens"]
                assert after["prefix_keys"][: len(before["prefix_keys"])] == before["prefix_keys"]
    after_search = [
        tools
        for (messages, _), tools in zip(model.seen, model.tools_seen, strict=True)
        if isinstance(messages[-1], ToolMessage) and not any("was rejected" in m.text for m in messages)
    ]
    assert after_search and all("enum" not in json.dumps(tools[0]) for tools in after_search)


def test_every_call_total_counts_each_attempt_once() -> None:
    """A recall search is a call but no answer, a re-ask is one call, a summary is one: each call
    total (the cost line's, the arena's, the critical path's, a game's tally, the progress bar's)
    is the number of attempts, and answers, searches and summaries split it."""
    search, answer = arena_logs.attempt(kind="recall"), arena_logs.attempt()
    bad = arena_logs.attempt(kind="illegal_choice")
    turn = arena_logs.record
    records = [
        turn(1, "Player 1", "speak", [search, bad, answer]),
        turn(1, "Player 2", "vote", [search, search, answer]),
        turn(1, "Player 3", "vote", [bad, bad], fallback_kind="illegal_choice"),
        turn(2, "summariser", "summary", [answer]),
        turn(2, "Player 1", "vote", [search, answer]),
    ]
    total = sum(len(r["attempts"]) for r in records)
    kinds = kinds_of(records)
    assert (kinds.answers, kinds.recalls, kinds.summaries) == (6, 4, 1)
    assert kinds.calls == cost_of(records).calls == calls(records) == total == 11
    assert kinds.reasks == 2  # the fallen-back turn's last answer is no re-ask
    assert critical_path_calls(records) == 3 + 3 + 1 + 2  # a vote's ballots side by side: its longest
    tally = GameTally(threading.Event())
    bar = ArenaProgress("t", 1, 0, enabled=False)
    for one in records:
        tally.count(one)
        bar.call(one)
    assert tally.calls == bar.calls == total
