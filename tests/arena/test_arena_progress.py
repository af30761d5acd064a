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


def test_off_a_terminal_each_game_is_one_whole_line(capsys: pytest.CaptureFixture[str]) -> None:
    title = "arena " + "x" * 90  # longer than any console's default width
    with ArenaProgress(title, total=3, done=0, enabled=True) as bar:
        for _ in range(2):
            bar.started()
            bar.call({"attempts": [{"prompt_tokens": 1000, "schema_tokens": 234}], "fallback": False})
            bar.finished()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith(title + ": ") for line in lines)
    assert lines[1].startswith(f"{title}: 2/3 games  0 playing  2 calls  2,468 tokens  0 fallbacks  ")
    assert " ETA " in lines[1] and not lines[1].endswith("ETA -")
