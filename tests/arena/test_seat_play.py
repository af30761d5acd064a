"""Judged play read from constructed logs whose every figure is known (``seat_play``): each
metric's tally per seat, the day-by-day calibration, and the sides each metric reads."""

from __future__ import annotations

import pytest

from logbuilder import LogBuilder
from mafia.arena.judged import judged_figures
from mafia.arena.seat_play import METRICS, role_tallies, seat_tallies
from mafia.game.actions import ActionKind
from mafia.game.rules import Role

ROLES = ["Mafia", "Town", "Detective", "Doctor", "Town", "Mafia", "Town"]
P = [f"Player {k}" for k in range(1, 8)]


def scripted() -> LogBuilder:
    """Players 1 and 6 are the Mafia, 3 the Detective, 4 the Doctor. Day 1: Player 1 claims
    Detective (a fake claim) and nominates 5, who is exiled; Player 7 falsely claims Detective,
    Player 3 truly. Night 1: the Mafia agree on 4 in Round 1; the Detective finds 6. Day 2: 6
    exiled. Night 2: 1 alone kills 2. Day 3: 1 exiled (last words claiming Town), the Town wins."""
    log = LogBuilder(ROLES, thoughts=False)
    log.night_zero()
    log.thought(P[0], ActionKind.NIGHT_ZERO, suspicions={P[1]: 9})  # a Mafia's: never scored
    log.start_day()
    log.thought(P[1], ActionKind.SPEAK, suspicions={P[0]: 0, P[5]: 0})  # replaced by a later one
    log.speak(P[1], "Player 1 is lying.", "Player 1")
    log.speak(P[0], "I am the Detective; 5 is Mafia.", "Player 5", claim=Role.DETECTIVE)
    log.speak(P[2], "I am the Detective.", claim=Role.DETECTIVE)
    log.speak(P[6], "No, I am the Detective.", claim=Role.DETECTIVE)
    levels = {P[0]: 10, P[5]: 8, P[2]: 0, P[3]: 2, P[4]: 2, P[6]: 8}
    log.thought(P[1], ActionKind.VOTE, suspicions=levels)
    ballots = {P[0]: P[4], P[1]: P[0], P[2]: P[0], P[3]: P[4], P[4]: P[0], P[5]: P[4], P[6]: P[4]}
    assert log.vote(ballots).eliminated == P[4]
    log.last_words("I was Town.", claim=Role.TOWN)
    log.night(P[3], protect=P[2], investigate=P[5])
    log.start_day()
    log.thought(P[1], ActionKind.SPEAK, suspicions={P[0]: 6, P[2]: 0, P[5]: 9, P[6]: 3, P[4]: 10})
    log.speak(P[2], "6 is Mafia: I checked.", "Player 6")
    log.speak(P[0], "3 is the liar.", "Player 3")
    assert log.vote({P[0]: P[2], P[1]: P[5], P[2]: P[5], P[5]: P[2], P[6]: P[5]}).eliminated == P[5]
    log.night(P[1])
    log.start_day()
    log.speak(P[2], "1 is the last.", "Player 1")
    assert log.vote({P[0]: P[2], P[2]: P[0], P[6]: P[0]}).eliminated == P[0]
    log.last_words("I was Town, you fools.", claim=Role.TOWN)  # a Mafia's last words: no fake claim
    log.game_over("town", "every Mafia is gone")
    return log


def prompts() -> list[dict[str, object]]:
    """Player 2's two decisions: one re-asked once, one re-asked and then fallen back; Player 3's
    one decision answered at once; a recall search is no re-ask."""
    return [
        {"round": 1, "player": P[1], "action": "speak", "attempts": [{"kind": "parse"}, {}]},
        {
            "round": 1,
            "player": P[1],
            "action": "vote",
            "attempts": [{"kind": "illegal"}, {"kind": "illegal"}],
            "fallback": True,
            "fallback_kind": "illegal",
        },
        {"round": 1, "player": P[2], "action": "vote", "attempts": [{"kind": "recall"}, {}]},
        {"round": 1, "player": "summariser", "action": "summary", "attempts": [{}]},
    ]


EXPECTED: dict[str, dict[str, list[float]]] = {
    P[0]: {
        "misfires": [0, 3],
        "influence": [4, 10],
        "survival": [3, 3],
        "fake_claims_believed": [1, 1],
        "round1_agreement": [1, 1],
    },
    P[1]: {
        "brier": [0.76 + 0.26, 10],
        "auc": [7.5 + 4, 8 + 4],
        "brier.d1": [0.76, 6],
        "auc.d1": [7.5, 8],
        "brier.d2": [0.26, 4],
        "auc.d2": [4, 4],
        "misfires": [0, 2],
        "ballots_on_mafia": [2, 2],
        "mafia_exiles": [1, 1],
        "influence": [2, 6],
        "survival": [2, 3],
        "reasks": [2, 2],
        "fallbacks": [1, 2],
    },
    P[2]: {
        "misfires": [0, 3],
        "ballots_on_mafia": [3, 3],
        "mafia_exiles": [2, 2],
        "influence": [2 + 1, 4 + 2],
        "survival": [3, 3],
        "claims_true": [1, 1],
        "follow_through": [1, 1],
        "reasks": [0, 1],
        "fallbacks": [0, 1],
    },
    P[3]: {"misfires": [1, 1], "ballots_on_mafia": [0, 1], "mafia_exiles": [0, 1], "survival": [1, 3]},
    P[4]: {
        "misfires": [0, 1],
        "ballots_on_mafia": [1, 1],
        "survival": [1, 3],
        "claims_true": [1, 1],
    },
    P[5]: {"misfires": [0, 2], "survival": [2, 3], "round1_agreement": [1, 1]},
    P[6]: {
        "misfires": [1, 3],
        "ballots_on_mafia": [2, 3],
        "mafia_exiles": [2, 3],
        "survival": [3, 3],
        "claims_true": [0, 1],
    },
}


def test_every_seat_tally_of_the_scripted_game() -> None:
    got = seat_tallies(scripted().events, prompts())
    assert list(got) == P
    for player in P:
        assert {k: pytest.approx(v) for k, v in got[player].items()} == EXPECTED[player], player


def test_every_metric_is_tallied_by_the_script() -> None:
    """The script exercises every metric, so a metric that silently tallies nothing fails here."""
    tallied = {key for seat in EXPECTED.values() for key in seat}
    assert {m.key for m in METRICS} <= tallied


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.key)
def test_a_metric_reads_only_the_seats_of_its_side(metric) -> None:  # type: ignore[no-untyped-def]
    log = scripted()
    got = seat_tallies(log.events, prompts())
    for player, tally in got.items():
        side = "mafia" if log.role_of[player] is Role.MAFIA else "town"
        if metric.side not in ("all", side):
            assert metric.key not in tally, player


def test_a_games_tallies_add_up_per_role_and_over_every_seat() -> None:
    got = role_tallies(scripted().events, prompts())
    assert got["all"]["misfires"] == [2, 15] and got["Mafia"]["misfires"] == [0, 5]
    assert got["Town"]["misfires"] == [1, 6] and got["Detective"]["misfires"] == [0, 3]
    assert got["Detective"]["follow_through"] == [1, 1] and "follow_through" not in got["Town"]


def test_an_arenas_figures_are_ratios_of_its_games_with_their_draws() -> None:
    games = [{"all": {"misfires": [1.0, 2.0]}}, {"all": {"misfires": [0.0, 2.0]}}]
    got = judged_figures(games, [[2, 0], [0, 2]])["misfires"]
    assert got["all"] == {
        "value": 0.25,
        "low": pytest.approx(0.0125),
        "high": pytest.approx(0.4875),
        "n": 4.0,
    }
    assert got["Town"] is None
