"""What a game cost: calls, re-asks and fallbacks by kind, tokens sent, cached (as the provider
reported them and as modelled), billed-equivalent, seconds and money from the game file's prices,
shown after ``play`` and by ``runs`` and ``replay``; equal to the sums of the recorded attempts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mafia.cli import app
from mafia.cost import cost_line, run_cost
from openai_server import openai_server

runner = CliRunner()
PRICES = {"input": 2.5, "cached_input": 1.25, "output": 10.0}


def test_the_summary_is_the_sum_of_the_attempts_and_the_price_table(tmp_path: Path) -> None:
    with openai_server() as server:
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
    assert cost.reasks == sum(len(r["attempts"]) - 1 for r in records)
    assert cost.fallbacks == dict(Counter(r["fallback_kind"] for r in records if r["fallback"]))
    assert cost.rejections == dict(Counter(a["kind"] for a in attempts if a["kind"]))
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
