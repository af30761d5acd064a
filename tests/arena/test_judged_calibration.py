"""Judged play's calibration checked on planted behaviour: the house model told every role
(``role_knowing``) scores near-perfect Brier and rank AUC, and ``random-legal``, whose stated
beliefs are random, scores what chance gives, in real games read back from their logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes.role_knowing import RoleKnowingHouse, dealt_roles
from mafia.arena.seat_play import METRICS
from mafia.tournament import run_tournament
from mafia.tournament.judged import judged_play
from mafia.tournament.results import load_tournament
from mafia.tournament.spec import TEAMS

CHANCE = {m.key: m.chance for m in METRICS}
DEALS, PLAYERS = 3, 7


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def calibration(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """The calibration figures of the role-knowing house and of random-legal over three deals,
    each played both ways round in the teams design."""
    tables = []
    for seed in range(DEALS):
        knowing = RoleKnowingHouse(seed=seed, roles=dealt_roles({"seed": seed, "players": PLAYERS}))
        summary = run_tournament(
            games=2,
            models={"knows-roles": knowing, "random-legal": "random-legal"},
            players=PLAYERS,
            seed_start=seed,
            design=TEAMS,
            concurrency=2,
            out=tmp_path_factory.mktemp(f"deal{seed}"),
        )
        tables += load_tournament(Path(summary["run"]["folder"])).tables
    got = judged_play(tables, ["knows-roles", "random-legal"])
    return {key: got["metrics"][key] for key in ("brier", "auc")}


def test_the_role_knowing_house_is_near_perfectly_calibrated(
    calibration: dict[str, dict[str, object]],
) -> None:
    brier, auc = (calibration[k]["knows-roles"]["all"] for k in ("brier", "auc"))  # type: ignore[index]
    assert brier["value"] <= 0.01 and brier["n"] > 50
    assert auc["value"] >= 0.99 and auc["n"] > 50


def test_random_legal_beliefs_score_chance(calibration: dict[str, dict[str, object]]) -> None:
    for key in ("brier", "auc"):
        figure = calibration[key]["random-legal"]["all"]  # type: ignore[index]
        assert figure["low"] <= CHANCE[key] <= figure["high"], (key, figure)
        assert abs(figure["value"] - CHANCE[key]) < 0.1, (key, figure)
