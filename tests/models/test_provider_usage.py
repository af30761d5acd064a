"""Every attempt records the provider's own usage figures beside the local counts, and a rejected
answer keeps its raw text and its tokens, whichever step of the call rejected it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fakes.fault_server import ILLEGAL_NAME, FaultServer
from fakes.openai_server import openai_server
from mafia.models.settings import ModelSettings
from mafia.play.runner import run_game

GAME = {"seed": 4, "players": 5, "round_cap": 3}
USAGE_KEYS = {
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "cache_n",
    "prompt_n",
    "prompt_ms",
    "predicted_ms",
}


def _records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "prompts.jsonl").read_text().splitlines()]


def _attempts(folder: Path) -> list[dict[str, Any]]:
    return [a for r in _records(folder) for a in r["attempts"]]


def test_each_attempt_records_the_usage_its_provider_reported(tmp_path: Path) -> None:
    with openai_server() as server:
        settings = ModelSettings(model="openai:local-usage", base_url=server.base_url)
        run_game(GAME, model=settings, out_dir=tmp_path, thread_id="t", max_retries=1)
    attempts = _attempts(tmp_path / "t")
    assert len(attempts) == len(server.reported) > 0
    assert all(set(a["provider_usage"]) == USAGE_KEYS for a in attempts)
    expected = [
        {
            "prompt_tokens": usage["prompt_tokens"],
            "completion_tokens": usage["completion_tokens"],
            "cached_tokens": usage["prompt_tokens_details"]["cached_tokens"],
            "cache_n": timings["cache_n"],
            "prompt_n": timings["prompt_n"],
            "prompt_ms": timings["prompt_ms"],
            "predicted_ms": timings["predicted_ms"],
        }
        for usage, timings in server.reported
    ]
    key = lambda u: json.dumps(u, sort_keys=True)  # noqa: E731
    assert sorted(map(key, (a["provider_usage"] for a in attempts))) == sorted(map(key, expected))
    assert any(a["provider_usage"]["cached_tokens"] > 0 for a in attempts)


def test_a_model_that_reports_nothing_records_null(tmp_path: Path) -> None:
    run_game(GAME, out_dir=tmp_path, thread_id="t")
    attempts = _attempts(tmp_path / "t")
    assert attempts and all("provider_usage" in a and a["provider_usage"] is None for a in attempts)


def test_rejected_answers_keep_their_raw_text_and_tokens_on_every_attempt(tmp_path: Path) -> None:
    with FaultServer({"illegal_choice": 1.0}) as server:
        settings = ModelSettings(model="openai:house", base_url=server.base_url, request_retries=0)
        run_game({"seed": 1, "players": 5, "round_cap": 2}, model=settings, out_dir=tmp_path, thread_id="t")
    records = _records(tmp_path / "t")
    illegal = [a for r in records for a in r["attempts"] if a["kind"] == "illegal_choice"]
    reasked = [a for r in records for a in r["attempts"][1:] if a["kind"] == "illegal_choice"]
    assert reasked, "no re-ask was rejected for its choice"
    assert all(ILLEGAL_NAME in a["raw"] and a["output_tokens"] > 0 for a in illegal)
    assert all(a["provider_usage"] is not None for a in illegal)
