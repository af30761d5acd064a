"""The judge's verdict is "not applicable" where it has nothing to compare, never a failure."""

from __future__ import annotations

from mafia.arena.metrics import judge
from mafia.arena.report import verdict_lines


def _game(policy: str, seed: int) -> dict[str, object]:
    return {
        "model": "house",
        "policy": policy,
        "seed": seed,
        "tokens": {"billed_tokens": 100.0},
        "facts": {"by_age": {"0": [3, 3]}, "unplaced": 0},
        "winner": "town",
        "play": f"moves of seed {seed}",
    }


def test_an_arena_without_the_baseline_gets_not_applicable() -> None:
    verdict = judge([_game("seed-window", 1), _game("one-round-window", 1)])
    assert [v["passed"] for v in verdict["verdicts"]] == [None, None]
    lines = verdict_lines(verdict)
    assert all("not applicable" in line and "FAIL" not in line for line in lines), lines


def test_a_paired_arena_still_passes_or_fails() -> None:
    verdict = judge([_game("full-history", 1), _game("seed-window", 1)])
    assert verdict["verdicts"][0]["passed"] is False  # not cheaper than the baseline
    assert "FAIL" in verdict_lines(verdict)[0]
    assert (verdict["verdicts"][0]["same_play_seeds"], verdict["verdicts"][0]["same_winner_seeds"]) == (1, 1)
