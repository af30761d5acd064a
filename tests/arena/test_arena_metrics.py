"""Each arena metric on a small hand-built log whose right answer is worked out by hand."""

from __future__ import annotations

import pytest

from arena_logs import attempt, record
from logbuilder import DAY2_NOMINATIONS, LogBuilder, seven_day2_speeches, seven_to_day2
from mafia.arena.calls import (
    call_rows,
    calls,
    critical_path_calls,
    game_tokens,
    rejections,
    stable_prefix,
    steps,
)
from mafia.arena.metrics import tokens_by_round
from mafia.arena.outcomes import consensus, consensus_rates, revotes, win_rates
from mafia.arena.reads import deduction, fact_presence, grounding_slips
from mafia.arena.stats import quantile, spread, wilson
from mafia.context import build_context
from mafia.game.actions import ActionKind
from mafia.game.rules import SKIP


def test_wilson_intervals_and_quantiles_match_worked_values() -> None:
    low, high = wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert wilson(0, 10) == (0.0, pytest.approx(1.959963984540054**2 / (10 + 1.959963984540054**2)))
    assert wilson(0, 0) == (0.0, 1.0)
    assert quantile([4, 1, 3, 2], 0.5) == 2.5
    assert quantile([1, 2, 3, 4], 0.95) == pytest.approx(3.85)
    assert spread([]) == {"n": 0, "mean": None, "median": None, "p95": None}


def test_win_rates_count_each_side_with_its_interval() -> None:
    rates = win_rates(["town", "mafia", "town", "draw", "town"])
    assert rates["town"]["wins"] == 3 and rates["town"]["rate"] == 0.6
    assert (rates["town"]["low"], rates["town"]["high"]) == wilson(3, 5)
    assert rates["mafia"]["wins"] == 1 and rates["draw"]["wins"] == 1


def _night_and_days() -> list[dict[str, object]]:
    """Night zero, a day of two speeches and four votes, a night (the first Mafia's Round 1 beside
    the Doctor and Detective, then the second Mafia's Round 1, then Round 2 together)."""
    one = [attempt()]
    return [
        record(0, "Player 1", "night_zero", one),
        record(0, "Player 5", "night_zero", one),
        record(1, "Player 1", "speak", [attempt(kind="schema"), attempt(kind="schema"), attempt()]),
        record(1, "Player 2", "speak", one),
        record(1, "Player 1", "vote", one),
        record(1, "Player 2", "vote", [attempt(kind="illegal_choice"), attempt()]),
        record(1, "Player 3", "vote", one),
        record(1, "Player 4", "vote", one),
        record(1, "Player 1", "mafia_round1", one),
        record(1, "Player 4", "protect", [attempt(kind="invalid_json"), attempt()]),
        record(1, "Player 3", "investigate", one),
        record(1, "Player 5", "mafia_round1", one),
        record(1, "Player 1", "mafia_round2", one),
        record(
            1,
            "Player 5",
            "mafia_round2",
            [attempt(kind="illegal_choice")] * 3,
            fallback_kind="illegal_choice",
        ),
    ]


def test_calls_per_game_and_on_the_critical_path() -> None:
    prompts = _night_and_days()
    assert calls(prompts) == 2 + 4 + 5 + 4 + 1 + 4
    assert [len(s) for s in steps(prompts)] == [1, 1, 1, 1, 4, 3, 1, 2]
    # Per step, its slowest turn: 1, 1, 3, 1, then the vote (2), nightfall (2), Round 1 (1), Round 2 (3).
    assert critical_path_calls(prompts) == 1 + 1 + 3 + 1 + 2 + 2 + 1 + 3


def test_retries_and_fallbacks_by_kind() -> None:
    assert rejections(_night_and_days()) == {
        "retries": {"schema": 2, "illegal_choice": 3, "invalid_json": 1},
        "fallbacks": {"illegal_choice": 1},
    }


def test_tokens_per_call_by_round_per_game_and_the_stable_prefix_share() -> None:
    prompts = [
        record(1, "Player 1", "speak", [attempt(prompt=100, output=5), attempt(prompt=300, output=15)]),
        record(1, "Player 2", "speak", [attempt(prompt=200, output=10, cached=128)]),
        record(2, "Player 1", "speak", [attempt(prompt=1000, schema=50, output=40, cached=1024)]),
    ]
    by_round = tokens_by_round(call_rows(prompts))
    assert by_round["1"]["calls"] == 3
    assert by_round["1"]["prompt_tokens"] == {"median": 200, "p95": 290}
    assert by_round["1"]["output_tokens"]["median"] == 10
    # Billed: 150 and 350 uncached; 250 with 128 cached at a quarter is 154.
    assert by_round["1"]["billed_tokens"] == {"median": 154, "p95": pytest.approx(154 + 0.9 * 196)}
    assert by_round["2"]["billed_tokens"] == {"median": 1050 - 1024 + 256, "p95": 1050 - 1024 + 256}
    totals = game_tokens(prompts)
    assert totals["prompt_tokens"] == 1600 and totals["schema_tokens"] == 200
    assert totals["output_tokens"] == 70
    assert totals["billed_tokens"] == 150 + 350 + (250 - 128 + 32) + 282
    assert stable_prefix(prompts) == (1152, 1800)


def test_revote_frequency_and_outcomes() -> None:
    log = LogBuilder(["Mafia", "Town", "Detective", "Doctor", "Town"], thoughts=False)
    log.night_zero().start_day()
    log.discuss({"Player 1": ("x", "Player 2"), "Player 2": ("y", "Player 1")})
    first = {"Player 1": "Player 2", "Player 2": "Player 1", "Player 3": "Player 1", "Player 4": "Player 2"}
    assert log.vote({**first, "Player 5": SKIP}).kind == "tie"
    log.defend("Player 1", "Not me.").defend("Player 2", "Not me either.")
    log.revote({v: "Player 1" for v in log.living})
    log.night(SKIP).start_day()
    log.discuss({"Player 2": ("z", "Player 3")})
    log.vote({v: SKIP for v in log.living})
    assert revotes(log.events) == {"votes": 2, "revotes": 1, "outcomes": {"eliminated": 1}}


def test_mafia_consensus_round1_round2_lowest_seat_and_skips() -> None:
    log = LogBuilder(["Mafia", "Town", "Town", "Doctor", "Mafia", "Town", "Town"], thoughts=False)
    log.night_zero().start_day()
    log.night(proposals={"Player 1": ("Player 2", "a"), "Player 5": ("Player 2", "b")}).start_day()
    split = {"Player 1": ("Player 3", "a"), "Player 5": ("Player 4", "b")}
    log.night(proposals=split, round2={"Player 1": "Player 3", "Player 5": "Player 3"}).start_day()
    split = {"Player 1": ("Player 4", "a"), "Player 5": ("Player 6", "b")}
    log.night(proposals=split, round2={"Player 1": "Player 4", "Player 5": "Player 6"}).start_day()
    log.night(proposals={"Player 1": (SKIP, "a"), "Player 5": (SKIP, "b")})
    counts = consensus(log.events)
    assert counts == {"nights": 4, "decided_by": {"round1": 2, "round2": 1, "lowest_seat": 1}, "skips": 1}
    assert consensus_rates(counts) == {
        "round1_agreement": 0.5,
        "round2_agreement": 0.5,
        "lowest_seat_share": 0.25,
        "skip_share": 0.25,
    }
    lone = LogBuilder(["Mafia", "Town", "Town", "Doctor", "Town"], thoughts=False)
    lone.night_zero().start_day()
    lone.night(SKIP)
    counts = consensus(lone.events)
    assert counts == {"nights": 1, "decided_by": {"direct": 1}, "skips": 1}
    assert consensus_rates(counts)["round1_agreement"] is None


def test_fact_presence_by_age_counts_what_a_prompt_leaves_out() -> None:
    log = seven_to_day2()
    prompt = build_context(log.events, "Player 2", ActionKind.SPEAK)
    log.thought("Player 2", ActionKind.SPEAK)  # the turn's own note marks where its log ended
    whole = record(2, "Player 2", "speak", system=prompt.system, user=prompt.user)
    # Age 0: the living list and day 2. Age 1: two deaths, day 1, the night-1 death announced on
    # day 2, day 1's result and its six ballots for a player, and Player 2's day-1 claim of Town.
    assert fact_presence(log.events, [whole]) == {"by_age": {"0": [2, 2], "1": [12, 12]}, "unplaced": 0}
    lines = [line for line in prompt.user.split("\n") if not line.startswith("Votes: ")]
    assert len(lines) == prompt.user.count("\n")
    cut = {**whole, "user": "\n".join(lines)}
    assert fact_presence(log.events, [cut]) == {"by_age": {"0": [2, 2], "1": [6, 12]}, "unplaced": 0}
    lost = record(3, "Player 2", "vote")  # no turn of it in the log
    assert fact_presence(log.events, [whole, lost])["unplaced"] == 1


def test_grounding_slips_in_raw_answers_before_validation() -> None:
    log = seven_day2_speeches(seven_to_day2(), nominations=DAY2_NOMINATIONS)
    log.vote({v: SKIP for v in log.living})  # nominees: Player 1, Player 2, Player 5
    prompts = [
        record(2, "Player 2", "speak", [attempt('{"choice": "Player 7"}')]),  # killed on night 1
        record(
            2,
            "Player 1",
            "vote",
            [
                attempt('{"choice": "Player 9", "suspicions": [{"player": "Player 7", "level": 3}]}'),
                attempt('{"choice": "Player 2"}'),
            ],
        ),
        record(2, "Player 2", "vote", [attempt('[{"choice": "Player 6"}]')]),  # voted out on day 1
        record(2, "Player 3", "vote", [attempt('{"choice": " player 4"}')]),  # alive, not nominated
        record(
            2,
            "Player 4",
            "vote",
            [attempt('{"choice": "skip", "suspicions": [{"player": "Player 12"}, {"player": "Player 1"}]}')],
        ),
        record(2, "Player 5", "vote", [attempt("Player 1, surely")]),
    ]
    assert grounding_slips(log.events, prompts) == {
        "answers": 6,
        "unparsed": 1,
        "choices": 6,
        "choice_slips": {"dead": 2, "absent": 1, "not_nominated": 1},
        "suspicions": 3,
        "suspicion_slips": {"dead": 1, "absent": 1},
    }


def test_deduction_quality_scores_town_suspicions_against_the_roles() -> None:
    log = LogBuilder(["Mafia", "Town", "Detective", "Doctor", "Town"], thoughts=False)
    log.night_zero().start_day()
    log.thought("Player 2", "speak", suspicions={"Player 1": 0, "Player 3": 9})  # replaced below
    log.thought("Player 2", "vote", suspicions={"Player 1": 10, "Player 3": 0, "Player 4": 0, "Player 5": 0})
    log.thought("Player 5", "vote", suspicions={"Player 1": 0, "Player 2": 10, "Player 3": 5})
    log.thought("Player 1", "vote", suspicions={"Player 2": 10})  # the Mafia's own: not scored
    log.night("Player 3").start_day()
    log.thought("Player 2", "speak", suspicions={"Player 1": 7, "Player 4": 7, "Player 5": 2, "Player 3": 9})
    rounds = deduction(log.events)
    # Round 1: Player 2 is exact (Brier 0, Mafia ranked 1st); Player 5 rates three of four, Mafia
    # at 0 (1.0), a Town at 10 (1.0), a Town at 5 (0.25), and ranks the Mafia 3rd.
    assert rounds["1"] == {"due": 8, "pairs": 7, "brier_sum": 2.25, "rank": [1.0, 3.0], "chance": [2.5, 2.5]}
    # Round 2: Player 3 is dead (not rated); the Mafia ties for first with Player 4.
    assert rounds["2"]["pairs"] == 3 and rounds["2"]["due"] == 3
    assert rounds["2"]["brier_sum"] == pytest.approx(0.09 + 0.49 + 0.04)
    assert rounds["2"]["rank"] == [1.5] and rounds["2"]["chance"] == [2.0]
