"""The real-model benchmark's figures, from logs: per-call figures, the server's cache beside the
cache model's, and a plain note instead of a figure where the server reported none."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from repo import BENCH

sys.path.insert(0, str(BENCH))
import real_model

EVENTS = [
    {"type": "game_started", "round": 0},
    {"type": "fallback", "round": 1, "kind": "illegal_choice"},
    {"type": "game_over", "round": 3, "winner": "town"},
]


def _attempt(kind: str | None, usage: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "error": None if kind is None else "bad",
        "kind": kind,
        "schema": "grammar",
        "output_tokens": 90,
        "prompt_tokens": 1000,
        "schema_tokens": 0,
        "cached_tokens": 0,
        "provider_usage": usage,
    }


def _usage(cache_n: int, prompt_n: int) -> dict[str, Any]:
    return {
        "prompt_tokens": cache_n + prompt_n,
        "completion_tokens": 60,
        "cache_n": cache_n,
        "prompt_n": prompt_n,
    }


def _result(prompts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"exit_code": 0, "seconds": 40.0, "load": [2.0, 4.0], **real_model.figures(EVENTS, prompts)}


def test_the_figures_count_calls_reasks_and_the_servers_cache() -> None:
    prompts = [
        {"attempts": [_attempt("illegal_choice", _usage(0, 1000)), _attempt(None, _usage(900, 100))]},
        {"attempts": [_attempt(None, _usage(600, 400))]},
        {"attempts": [_attempt(None, _usage(1000, 0))]},
    ]
    lines = real_model.report("grammar", _result(prompts))
    assert "grammar_calls=4" in lines and "grammar_turns=3" in lines
    assert "grammar_reasks_per_call=0.250" in lines
    assert "grammar_rejected_illegal_choice=1" in lines and "grammar_fallback_illegal_choice=1" in lines
    assert "grammar_output_tokens_per_call=60.0" in lines  # the server's count
    assert "grammar_output_tokens_per_call_o200k=90.0" in lines
    assert "grammar_seconds_per_call=10.00" in lines
    assert "grammar_load_average_mean=3.00" in lines and "grammar_load_average_max=4.00" in lines
    assert "grammar_server_cached_share=0.625" in lines  # 2500 of 4000 prompt tokens
    assert "grammar_model_cached_share=0.000" in lines
    assert lines[-1] == "grammar_local_game_finished=1"


def test_missing_provider_usage_is_reported_as_unavailable_with_the_reason() -> None:
    prompts = [{"attempts": [_attempt(None, None), _attempt(None, _usage(10, 10))]}]
    lines = real_model.report("stable", _result(prompts))
    assert "# stable: server cache figures unavailable: 1 of 2 attempts carry no provider_usage" in lines
    assert "stable_server_cached_share=unavailable" in lines
    assert not any(line.startswith("stable_output_tokens_per_call=") for line in lines)


def test_a_kept_game_is_read_back_from_its_logs_finished_or_not(tmp_path: Path) -> None:
    run = tmp_path / "grammar" / "runs" / "game-7p-seed1"
    run.mkdir(parents=True)
    (tmp_path / "grammar" / "game.toml").write_text("seed = 1\n", encoding="utf-8")
    (run / "events.jsonl").write_text(json.dumps(EVENTS[0]) + "\n", encoding="utf-8")
    prompt = {"attempts": [_attempt(None, _usage(0, 500))]}
    (run / "prompts.jsonl").write_text(json.dumps(prompt) + "\n", encoding="utf-8")
    lines = real_model.report("grammar", real_model.read_kept(tmp_path / "grammar"))
    assert "grammar_calls=1" in lines and "grammar_fallbacks=0" in lines
    assert "# grammar: no load average was sampled (figures read back from kept logs)" in lines
    assert lines[-1] == "grammar_local_game_finished=0"  # stopped before its end
