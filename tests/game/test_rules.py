"""Table-driven tests of the pure rules: deal, choices, votes, consensus, night, win, order."""

from __future__ import annotations

from collections import Counter

import pytest

from mafia.game.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    SKIP,
    GameConfig,
    KillDecision,
    KillProgress,
    NightChoice,
    Role,
    RoleCounts,
    Seat,
    Table,
    after_round1,
    after_round2,
    agreed_target,
    assign_roles,
    ballot_options,
    consensus_threshold,
    first_speaker,
    investigation_targets,
    lone_kill,
    mafia_victim,
    night_kill_targets,
    nomination_targets,
    protection_targets,
    resolve_revote,
    resolve_round2,
    resolve_vote,
    saves,
    speaking_order,
    tally,
    team_of,
    validate_config,
    winner,
)

M, DET, DOC, T = Role.MAFIA, Role.DETECTIVE, Role.DOCTOR, Role.TOWN
SEATS5 = ["P1", "P2", "P3", "P4", "P5"]


def ballots(*targets: str) -> dict[str, str]:
    """Ballots cast by voters V1, V2, ... in that order."""
    return {f"V{i}": t for i, t in enumerate(targets, start=1)}


# ---- setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1), ids=lambda n: f"n={n}")
def test_default_role_counts_are_valid_for_every_size(players: int) -> None:
    counts = RoleCounts.default(players)
    validate_config(GameConfig(players=players))
    assert counts.total == players
    assert (counts.of(DET), counts.of(DOC)) == (1, 1)
    assert counts.of(T) >= 0
    assert 1 <= counts.mafia < players - counts.mafia
    dealt = Counter(s.role for s in assign_roles(GameConfig(players=players, seed=players)))
    assert dealt == Counter({M: counts.mafia, DET: 1, DOC: 1, T: counts.of(T)})


def test_seven_players_default_mix() -> None:
    assert RoleCounts.default(7) == RoleCounts(mafia=2, detective=1, doctor=1, town=3)
    assert GameConfig().role_counts() == RoleCounts(mafia=2, detective=1, doctor=1, town=3)


def test_default_names_and_seats() -> None:
    seats = assign_roles(GameConfig(players=5, seed=3))
    assert [s.seat for s in seats] == [1, 2, 3, 4, 5]
    assert [s.name for s in seats] == [f"Player {k}" for k in range(1, 6)]


def test_given_names_keep_their_seats() -> None:
    names = ("Ada", "Bo", "Cy", "Di", "Ed", "Flo")
    seats = assign_roles(GameConfig(players=6, names=names, seed=9))
    assert tuple(s.name for s in seats) == names


def test_seeded_deal_is_deterministic() -> None:
    config = GameConfig(players=9, seed=1234)
    assert assign_roles(config) == assign_roles(GameConfig(players=9, seed=1234))


def test_seeded_deal_differs_across_seeds() -> None:
    deals = {tuple(s.role for s in assign_roles(GameConfig(seed=seed))) for seed in range(20)}
    # 420 distinct deals exist for the default table; 20 seeds landing on one would be a bug.
    assert len(deals) > 5


def test_custom_role_counts_are_dealt() -> None:
    counts = RoleCounts(mafia=3, detective=1, doctor=0, town=6)
    seats = assign_roles(GameConfig(players=10, roles=counts, seed=5))
    assert Counter(s.role for s in seats) == Counter({M: 3, DET: 1, T: 6})


@pytest.mark.parametrize(
    ("role", "team"),
    [(M, "mafia"), (DET, "town"), (DOC, "town"), (T, "town")],
    ids=lambda v: str(v),
)
def test_team_of(role: Role, team: str) -> None:
    assert team_of(role) == team


# ---- legal choices -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("living", "speaker", "expected"),
    [
        pytest.param(SEATS5, "P3", ["P1", "P2", "P4", "P5"], id="anyone-but-self"),
        pytest.param(["P1", "P4", "P5"], "P1", ["P4", "P5"], id="dead-not-nominable"),
    ],
)
def test_nomination_targets(living: list[str], speaker: str, expected: list[str]) -> None:
    assert nomination_targets(living, speaker) == expected


@pytest.mark.parametrize(
    ("nominees", "expected"),
    [
        pytest.param(["P2", "P4"], ["P2", "P4", SKIP], id="nominees-then-skip"),
        pytest.param([], [SKIP], id="no-nominees-only-skip"),
        pytest.param(["P4", "P2", "P4"], ["P4", "P2", SKIP], id="renominated-once"),
    ],
)
def test_ballot_options(nominees: list[str], expected: list[str]) -> None:
    assert ballot_options(nominees) == expected


@pytest.mark.parametrize(
    ("living", "mafia", "expected"),
    [
        pytest.param(SEATS5, ["P2", "P4"], ["P1", "P3", "P5", SKIP], id="no-mafia-targets"),
        pytest.param(["P1", "P2"], ["P2", "P5"], ["P1", SKIP], id="dead-partner-ignored"),
        pytest.param(["P2", "P4"], ["P2", "P4"], [SKIP], id="only-skip-left"),
    ],
)
def test_night_kill_targets(living: list[str], mafia: list[str], expected: list[str]) -> None:
    assert night_kill_targets(living, mafia) == expected


@pytest.mark.parametrize(
    ("living", "expected"),
    [
        pytest.param(SEATS5, SEATS5, id="self-allowed"),
        pytest.param(["P3"], ["P3"], id="alone-protects-self"),
    ],
)
def test_protection_targets(living: list[str], expected: list[str]) -> None:
    assert protection_targets(living) == expected


@pytest.mark.parametrize(
    ("living", "detective", "expected"),
    [
        pytest.param(SEATS5, "P3", ["P1", "P2", "P4", "P5"], id="not-self"),
        pytest.param(["P1", "P3"], "P3", ["P1"], id="dead-not-investigable"),
    ],
)
def test_investigation_targets(living: list[str], detective: str, expected: list[str]) -> None:
    assert investigation_targets(living, detective) == expected


# ---- day vote ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("votes", "nominees", "kind", "eliminated", "tied"),
    [
        pytest.param(("A", "A", SKIP), ["A"], "eliminated", "A", (), id="single-nominee-ahead"),
        pytest.param(("A", "A", "A", "B", SKIP), ["A", "B"], "eliminated", "A", (), id="strict-top"),
        pytest.param(("A", "A", "B", "B", SKIP), ["A", "B"], "tie", None, ("A", "B"), id="tie-2"),
        pytest.param(
            ("A", "B", "C", "C", "B", "A", SKIP),
            ["A", "B", "C"],
            "tie",
            None,
            ("A", "B", "C"),
            id="tie-3",
        ),
        pytest.param(("A", "B", "A", "B", "C"), ["A", "B", "C"], "tie", None, ("A", "B"), id="tie-2-of-3"),
        pytest.param(("B", "A", "B", "A"), ["B", "A"], "tie", None, ("B", "A"), id="tie-in-nominee-order"),
        pytest.param((SKIP, SKIP, SKIP, "A", "A"), ["A"], "no_elimination", None, (), id="skip-ahead"),
        pytest.param((SKIP, SKIP, "A", "A", "B"), ["A", "B"], "no_elimination", None, (), id="skip-tied-top"),
        pytest.param(
            (SKIP, SKIP, "A", "A", "B", "B"),
            ["A", "B"],
            "no_elimination",
            None,
            (),
            id="skip-tied-with-tie",
        ),
        pytest.param((SKIP, SKIP), ["A", "B"], "no_elimination", None, (), id="all-skip"),
        pytest.param((), ["A", "B"], "no_elimination", None, (), id="no-ballots"),
        pytest.param(("A", "B"), [], "no_vote", None, (), id="no-nominations"),
        pytest.param(("A", "C", "C", "C"), ["A", "B"], "eliminated", "A", (), id="off-ballot-ignored"),
        pytest.param(("A", "A", "B"), ["A", "B", "A"], "eliminated", "A", (), id="duplicate-nominee"),
    ],
)
def test_resolve_vote(
    votes: tuple[str, ...],
    nominees: list[str],
    kind: str,
    eliminated: str | None,
    tied: tuple[str, ...],
) -> None:
    result = resolve_vote(ballots(*votes), nominees)
    assert (result.kind, result.eliminated, result.tied) == (kind, eliminated, tied)


def test_resolve_vote_reports_counts_in_option_order() -> None:
    result = resolve_vote(ballots("B", "A", "A", SKIP, "A"), ["A", "B"])
    assert result.counts == (("A", 3), ("B", 1), (SKIP, 1))
    assert tally(ballots("B", "Z"), ["A", "B", SKIP]) == (("A", 0), ("B", 1), (SKIP, 0))


@pytest.mark.parametrize(
    ("votes", "tied", "kind", "eliminated"),
    [
        pytest.param(("A", "A", "B"), ["A", "B"], "eliminated", "A", id="revote-decides"),
        pytest.param(("A", "B", SKIP), ["A", "B"], "no_elimination", None, id="revote-tie-2"),
        pytest.param(("A", "B", "C"), ["A", "B", "C"], "no_elimination", None, id="revote-tie-3"),
        pytest.param((SKIP, SKIP, "A"), ["A", "B"], "no_elimination", None, id="revote-skip"),
        pytest.param((SKIP, "A", "B", "B", SKIP), ["A", "B"], "no_elimination", None, id="revote-skip-tied"),
        pytest.param(("A",), [], "no_vote", None, id="nobody-tied"),
    ],
)
def test_resolve_revote(votes: tuple[str, ...], tied: list[str], kind: str, eliminated: str | None) -> None:
    result = resolve_revote(ballots(*votes), tied)
    assert (result.kind, result.eliminated) == (kind, eliminated)


def test_revote_tie_keeps_the_tied_players_for_the_record() -> None:
    result = resolve_revote(ballots("A", "B", "A", "B"), ["A", "B"])
    assert result.kind == "no_elimination"
    assert result.tied == ("A", "B")


# ---- Mafia consensus -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "need"),
    [(1, 1), (2, 2), (3, 2), (4, 3), (5, 4), (6, 4), (7, 5)],
    ids=lambda v: str(v),
)
def test_consensus_threshold(k: int, need: int) -> None:
    assert consensus_threshold(k) == need


@pytest.mark.parametrize(
    ("proposals", "expected"),
    [
        pytest.param(("A",), "A", id="k1-alone"),
        pytest.param(("A", "A"), "A", id="k2-2of2"),
        pytest.param(("A", "B"), None, id="k2-split"),
        pytest.param((SKIP, SKIP), SKIP, id="k2-skip-agreed"),
        pytest.param(("A", SKIP), None, id="k2-skip-split"),
        pytest.param(("A", "B", "A"), "A", id="k3-2of3"),
        pytest.param(("A", "B", "C"), None, id="k3-all-different"),
        pytest.param((SKIP, "A", SKIP), SKIP, id="k3-skip-2of3"),
        pytest.param(("A", "A", "A"), "A", id="k3-unanimous"),
        pytest.param(("A", "B", "A", "A"), "A", id="k4-3of4"),
        pytest.param(("A", "A", "B", "B"), None, id="k4-2-2"),
        pytest.param(("A", "A", "B", "C"), None, id="k4-2of4-short"),
        pytest.param((SKIP, SKIP, "B", SKIP), SKIP, id="k4-skip-3of4"),
        pytest.param((), None, id="nobody"),
    ],
)
def test_agreed_target(proposals: tuple[str, ...], expected: str | None) -> None:
    assert agreed_target({f"M{i}": t for i, t in enumerate(proposals)}) == expected


@pytest.mark.parametrize(
    ("choices", "seat_order", "expected"),
    [
        pytest.param({"P6": "A", "P2": "B"}, ["P2", "P6"], KillDecision("B", "lowest_seat"), id="k2-split"),
        pytest.param(
            {"P7": "C", "P5": "A", "P2": "B"},
            ["P2", "P5", "P7"],
            KillDecision("B", "lowest_seat"),
            id="k3-split",
        ),
        pytest.param(
            {"P1": SKIP, "P3": "A"},
            ["P1", "P3"],
            KillDecision(SKIP, "lowest_seat"),
            id="lowest-seat-skips",
        ),
        pytest.param(
            {"P9": "A", "P4": "A", "P2": "B", "P3": "B"},
            ["P2", "P3", "P4", "P9"],
            KillDecision("B", "lowest_seat"),
            id="k4-2-2",
        ),
        pytest.param(
            {"P7": "C", "P5": "C", "P2": "B"},
            ["P2", "P5", "P7"],
            KillDecision("C", "round2"),
            id="k3-agreed-over-lowest",
        ),
        pytest.param(
            {"P3": "A", "P5": "B"},
            ["P1", "P3", "P5"],
            KillDecision("A", "lowest_seat"),
            id="lowest-without-choice-skipped",
        ),
    ],
)
def test_resolve_round2(choices: dict[str, str], seat_order: list[str], expected: KillDecision) -> None:
    assert resolve_round2(choices, seat_order) == expected


@pytest.mark.parametrize(
    ("proposals", "waiting", "expected"),
    [
        pytest.param({"P2": "A"}, ["P5"], KillProgress("mafia_round1"), id="a-partner-still-proposes"),
        pytest.param(
            {"P2": "A", "P5": "A"},
            [],
            KillProgress("night_resolution", KillDecision("A", "round1"), {"P2": "A", "P5": "A"}),
            id="k2-agreed",
        ),
        pytest.param({"P2": "A", "P5": "B"}, [], KillProgress("mafia_round2"), id="k2-split-to-round2"),
        pytest.param(
            {"P2": SKIP, "P5": "B", "P7": SKIP},
            [],
            KillProgress(
                "night_resolution", KillDecision(SKIP, "round1"), {"P2": SKIP, "P5": "B", "P7": SKIP}
            ),
            id="k3-skip-agreed",
        ),
        pytest.param(
            {"P2": "A", "P5": "A"}, ["P7"], KillProgress("mafia_round1"), id="agreement-waits-for-all"
        ),
    ],
)
def test_after_round1(proposals: dict[str, str], waiting: list[str], expected: KillProgress) -> None:
    assert after_round1(proposals, waiting) == expected


def test_after_round2_and_a_lone_kill_resolve_the_night() -> None:
    split = {"P6": "A", "P2": "B"}
    assert after_round2(split, ["P2", "P6"]) == KillProgress(
        "night_resolution", KillDecision("B", "lowest_seat"), split
    )
    agreed = {"P6": "A", "P2": "A"}
    assert after_round2(agreed, ["P2", "P6"]) == KillProgress(
        "night_resolution", KillDecision("A", "round2"), agreed
    )
    assert lone_kill("P4", SKIP) == KillProgress(
        "night_resolution", KillDecision(SKIP, "direct"), {"P4": SKIP}
    )


# ---- night, win, order ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("intended", "protected", "dies"),
    [
        pytest.param("P3", None, "P3", id="no-doctor"),
        pytest.param("P3", "P4", "P3", id="other-protected"),
        pytest.param("P3", "P3", None, id="protected-survives"),
        pytest.param(SKIP, "P3", None, id="mafia-skipped"),
        pytest.param(SKIP, None, None, id="skip-no-doctor"),
        pytest.param(None, "P3", None, id="no-mafia-choice"),
    ],
)
def test_resolve_night(intended: str | None, protected: str | None, dies: str | None) -> None:
    saved = [NightChoice("Doc", protected, saves)] if protected is not None else []
    assert mafia_victim(intended, saved) == dies


@pytest.mark.parametrize(
    ("living", "expected"),
    [
        pytest.param([T, DOC, DET], "town", id="no-mafia"),
        pytest.param([], "town", id="nobody"),
        pytest.param([M, T], "mafia", id="parity-1v1"),
        pytest.param([M, M, T, DET], "mafia", id="parity-2v2"),
        pytest.param([M, M, T], "mafia", id="mafia-ahead"),
        pytest.param([M, T, DOC], None, id="1v2-goes-on"),
        pytest.param([M, M, T, DET, DOC], None, id="2v3-goes-on"),
    ],
)
def test_winner(living: list[Role], expected: str | None) -> None:
    assert winner(living) == expected


def _table(*roles: Role) -> Table:
    return Table(seats=tuple(Seat(k, f"P{k}", r) for k, r in enumerate(roles, start=1)))


def test_last_mafia_voted_out_ends_the_game_at_once() -> None:
    table = _table(T, M, DET, T, DOC).kill("P1")
    assert table.winner() is None
    after = table.kill("P2")
    assert after.winner() == "town"
    assert after.living == ["P3", "P4", "P5"]


def test_night_kill_to_parity_gives_the_mafia_the_game() -> None:
    table = _table(M, M, T, DET, DOC, T, T).kill("P7").kill("P3")
    assert table.winner() is None
    assert table.kill("P4").winner() == "mafia"


def test_table_roles_and_living() -> None:
    table = _table(M, T, M, DOC, DET).kill("P3")
    assert table.with_role(M) == ["P1"]
    assert table.with_role(M, alive_only=False) == ["P1", "P3"]
    assert table.role("P4") is DOC
    assert table.names == ["P1", "P2", "P3", "P4", "P5"]


@pytest.mark.parametrize(
    ("previous", "living", "expected"),
    [
        pytest.param(None, SEATS5, "P1", id="day1-seat1"),
        pytest.param("P1", SEATS5, "P2", id="next-seat"),
        pytest.param("P1", ["P1", "P3", "P4", "P5"], "P3", id="skip-dead"),
        pytest.param("P5", SEATS5, "P1", id="wrap"),
        pytest.param("P5", ["P2", "P3", "P5"], "P2", id="wrap-skip-dead"),
        pytest.param("P3", ["P1", "P2", "P4", "P5"], "P4", id="previous-opener-died"),
        pytest.param("P4", ["P2", "P3"], "P2", id="dead-run-wraps"),
        pytest.param("P2", ["P2"], "P2", id="alone"),
    ],
)
def test_first_speaker(previous: str | None, living: list[str], expected: str) -> None:
    assert first_speaker(previous, living, SEATS5) == expected


def test_openers_rotate_over_days_with_deaths() -> None:
    living = list(SEATS5)
    openers: list[str] = []
    previous: str | None = None
    deaths = {2: "P3", 3: "P4"}  # died in the night before that day
    for day in range(1, 6):
        if day in deaths:
            living.remove(deaths[day])
        previous = first_speaker(previous, living, SEATS5)
        openers.append(previous)
    assert openers == ["P1", "P2", "P5", "P1", "P2"]


@pytest.mark.parametrize(
    ("first", "living", "expected"),
    [
        pytest.param("P1", SEATS5, SEATS5, id="from-seat1"),
        pytest.param("P3", ["P1", "P2", "P3", "P5"], ["P3", "P5", "P1", "P2"], id="rotated"),
        pytest.param("P5", ["P2", "P5"], ["P5", "P2"], id="wraps"),
    ],
)
def test_speaking_order(first: str, living: list[str], expected: list[str]) -> None:
    assert speaking_order(first, living) == expected
