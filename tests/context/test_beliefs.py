"""Pruned beliefs: each entry kept by the player's turn at which it last changed (hot in full, warm
condensed, cold out of the prompt and in the recall index), and squeezed further under a budget."""

from __future__ import annotations

from mafia.context.beliefs import (
    COLD_TURNS,
    HOT_TURNS,
    archived_beliefs,
    belief_entries,
    pruned_beliefs,
    squeezed,
)
from mafia.context.record import GameRecord
from mafia.game.events import GameStarted, SuspicionNote, Thought

LONG = "This note has far more than eight words in it, so a warm copy is cut short."


def record(turns: int, note_at: int = 1, steady: bool = True) -> GameRecord:
    """Player A's record after ``turns`` thoughts: a pattern note written once at turn ``note_at``,
    and a suspicion of B that changes every turn unless ``steady``."""
    started = GameStarted(
        round=0, game_id="g", players=["A", "B", "C"], mafia=1, detective=0, doctor=0, town=2, round_cap=20
    )
    rec = GameRecord(me="A", view=[], started=started)
    for turn in range(1, turns + 1):
        level = 5 if steady else turn % 10
        thought = Thought(
            round=turn,
            player="A",
            action="speak",
            observations="",
            strategy="",
            reasoning="",
            suspicions=[SuspicionNote(player="B", level=level, reasoning=LONG)],
            pattern_notes=[LONG] if turn == note_at else [],
        )
        rec.thoughts.append((turn, thought))
    return rec


def test_hot_entries_stay_whole_warm_ones_are_condensed_cold_ones_archived() -> None:
    # A note written at the player's first turn, seen at each later turn: whole while it is one of
    # the last 2 turns, condensed through turn 10, archived from turn 11 on (spec 004's boundaries,
    # turn by turn, so neither can move by one unnoticed).
    assert (HOT_TURNS, COLD_TURNS) == (2, 10)
    condensed = "This note has far more than eight words ..."
    for turns in range(1, 14):
        beliefs, archived = pruned_beliefs(record(turns))
        if turns <= 2:
            assert (beliefs.pattern_notes, archived) == ([LONG], 0), turns
        elif turns <= 10:
            assert (beliefs.pattern_notes, archived) == ([condensed], 0), turns
        else:
            assert (beliefs.pattern_notes, archived) == ([], 2), turns  # the note and the steady suspicion
    cold_record = record(COLD_TURNS + 1)
    assert {e.kind for e in archived_beliefs(cold_record)} == {"pattern note", "suspicion"}
    assert archived_beliefs(record(COLD_TURNS)) == []


def test_a_suspicion_that_keeps_changing_stays_hot() -> None:
    beliefs, archived = pruned_beliefs(record(COLD_TURNS + 4, steady=False))
    assert [s.reasoning for s in beliefs.suspicions] == [LONG] and archived == 1
    latest = next(e for e in belief_entries(record(COLD_TURNS + 4, steady=False)) if e.kind == "suspicion")
    assert latest.turn == COLD_TURNS + 4


def test_a_budget_squeezes_beliefs_step_by_step() -> None:
    beliefs, _ = pruned_beliefs(record(1))
    one, n1 = squeezed(beliefs, 0, 1)
    two, n2 = squeezed(beliefs, 0, 2)
    three, n3 = squeezed(beliefs, 0, 3)
    assert one.pattern_notes and one.pattern_notes[0].endswith("...") and n1 == 0
    assert two.pattern_notes == [] and n2 == 1 and two.suspicions[0].reasoning
    assert three.suspicions[0].reasoning == "" and three.suspicions[0].level == 5 and n3 == 1
