"""The arena's bar shows games, calls, tokens sent, fallbacks and the time left."""

from __future__ import annotations

import pytest

from mafia.arena.progress import ArenaProgress


def test_the_bar_counts_calls_tokens_and_fallbacks(capsys: pytest.CaptureFixture[str]) -> None:
    attempts = [{"prompt_tokens": 100, "schema_tokens": 20}, {"prompt_tokens": 110, "schema_tokens": 20}]
    with ArenaProgress("arena t", total=4, done=1, enabled=True) as bar:
        bar.started()
        bar.call({"attempts": attempts, "fallback": True})
        bar.call({"attempts": attempts[:1], "fallback": False})
        bar.finished()
    assert (bar.calls, bar.tokens, bar.fallbacks) == (3, 370, 1)
    shown = capsys.readouterr().err
    assert "2/4" in shown and "3 calls" in shown and "370 tokens" in shown and "1 fallbacks" in shown
    assert "ETA" in shown
