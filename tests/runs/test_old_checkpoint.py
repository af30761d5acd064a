"""A checkpoint written by an older release resumes and finishes: the game stopped after night 1
(seed 5, 7 seats) was checkpointed by the code before the turn's steps, the typed finished turn
and the night powers' rows, and goes on with today's code to the very log an uninterrupted game
writes now."""

from __future__ import annotations

import gzip
from pathlib import Path

from mafia.context.policy import POLICIES, UNRECORDED_POLICY
from mafia.graph import compile_graph
from mafia.play.runner import resume_game, run_game, sqlite_checkpointer
from repo import DATA

OLD = DATA / "checkpoint-before-night-power-rows.sqlite.gz"
"""Made by ``run_game({"seed": 5, "players": 7}, thread_id="old-game")`` on that code, stopped by
an exception at the first ``night_resolution`` event, the file vacuumed and gzipped."""


def test_a_checkpoint_of_an_older_release_resumes_to_the_log_of_a_whole_game(tmp_path: Path) -> None:
    db = tmp_path / "checkpoints.sqlite"
    db.write_bytes(gzip.decompress(OLD.read_bytes()))
    with sqlite_checkpointer(db) as saver:
        held = (
            compile_graph(checkpointer=saver)
            .get_state({"configurable": {"thread_id": "old-game"}})
            .values["events"]
        )
        assert any(e["type"] == "night_resolution" for e in held) and held[-1]["type"] != "game_over"
        final = resume_game("old-game", checkpointer=saver)
    assert final["winner"] is not None
    # The policy the game was started under, which its resume keeps: the default of that release.
    whole = run_game({"seed": 5, "players": 7}, policy=POLICIES[UNRECORDED_POLICY])
    assert final["events"] == whole["events"]
