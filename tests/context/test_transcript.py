"""TranscriptManager: rounds in full, the live round, revotes, the 2-round window, full mode."""

from __future__ import annotations

import pytest

from logbuilder import LogBuilder, play_random, seven_day2_speeches, seven_to_day2
from mafia.context import TranscriptManager
from mafia.context.compression import NO_VOTE, PENDING
from mafia.context.schemas import BallotLine, SpeechLine
from mafia.context.transcript import vote_outcome
from mafia.context.views import player_view

SEATS = [f"Player {k}" for k in range(1, 6)]


def ballots(pairs: dict[str, str]) -> list[BallotLine]:
    return [BallotLine(voter=v, target=t) for v, t in pairs.items()]


class TestTranscriptManager:
    def test_add_speech(self) -> None:
        manager = TranscriptManager(SEATS)
        manager.start_round(1)
        manager.add_speech("Player 1", "Hello.", "Player 2")
        manager.add_speech("Player 2", "Hi.")
        speeches = manager.current.speeches
        assert [(s.speaker, s.text, s.nomination) for s in speeches] == [
            ("Player 1", "Hello.", "Player 2"),
            ("Player 2", "Hi.", None),
        ]

    def test_live_round_with_night_info_and_pending_vote(self) -> None:
        manager = TranscriptManager(SEATS)
        live = manager.start_round(2, night_kill="Player 3")
        manager.add_speech("Player 1", "Player 3 died.")
        assert live.night_kill == "Player 3"
        assert live.vote_outcome == PENDING
        assert manager.get_transcript_for_player().verbatim[-1].vote_outcome == PENDING

    def test_finalize_round(self) -> None:
        manager = TranscriptManager(SEATS)
        manager.start_round(1)
        manager.add_speech("Player 1", "Vote Player 2.", "Player 2")
        done = manager.finalize_round(
            votes=ballots({"Player 1": "Player 2", "Player 2": "skip"}),
            vote_outcome="no elimination",
            last_words=None,
        )
        assert done.vote_outcome == "no elimination"
        assert [(b.voter, b.target) for b in done.votes] == [
            ("Player 1", "Player 2"),
            ("Player 2", "skip"),
        ]
        with pytest.raises(LookupError):
            manager.add_speech("Player 3", "too late")

    def test_finalize_without_vote_is_no_vote(self) -> None:
        manager = TranscriptManager(SEATS)
        manager.start_round(1)
        assert manager.finalize_round().vote_outcome == NO_VOTE

    def test_revote_data(self) -> None:
        manager = TranscriptManager(SEATS)
        manager.start_round(1)
        manager.record_vote(ballots({"Player 1": "Player 2", "Player 3": "Player 4"}), "tie: a, b")
        assert manager.current.revote_outcome == PENDING
        manager.add_defense("Player 2", "Not me.")
        done = manager.finalize_round(
            defense_speeches=[
                SpeechLine(speaker="Player 2", text="Not me."),
                SpeechLine(speaker="Player 4", text="Nor me."),
            ],
            revote=ballots({"Player 1": "Player 2", "Player 3": "Player 2"}),
            revote_outcome="Player 2 eliminated",
            last_words=SpeechLine(speaker="Player 2", text="Bye."),
        )
        assert [s.speaker for s in done.defense_speeches] == ["Player 2", "Player 4"]
        assert done.revote_outcome == "Player 2 eliminated"
        assert done.last_words is not None and done.last_words.text == "Bye."

    def test_revote_replayed_from_the_log(self) -> None:
        log = seven_day2_speeches(seven_to_day2())
        tie = {
            "Player 1": "Player 2",
            "Player 5": "Player 2",
            "Player 3": "Player 5",
            "Player 4": "Player 5",
            "Player 2": "skip",
        }
        log.vote(tie)
        log.defend("Player 2", "Not me.").defend("Player 5", "Not me either.")
        log.revote(dict.fromkeys(log.living, "Player 5"))
        log.last_words("Bye.")
        manager = TranscriptManager.from_view(player_view(log.events, "Player 4"), "Player 4")
        day2 = manager.rounds[-1]
        assert day2.vote_outcome == "tie: Player 2, Player 5"
        assert [s.speaker for s in day2.defense_speeches] == ["Player 2", "Player 5"]
        assert day2.revote_outcome == "Player 5 eliminated"
        assert len(day2.revote) == 5
        assert day2.last_words is not None and day2.last_words.speaker == "Player 5"

    def test_replay_keeps_the_live_day_open(self) -> None:
        log = seven_day2_speeches(seven_to_day2(), upto=2)
        view = player_view(log.events, "Player 2")
        live = TranscriptManager.from_view(view, "Player 2").rounds[-1]
        assert live.vote_outcome == PENDING and len(live.speeches) == 2
        closed = TranscriptManager.from_view(view, "Player 2", day_open=False).rounds[-1]
        assert closed.vote_outcome == NO_VOTE

    def test_vote_outcome_strings(self) -> None:
        log = seven_to_day2()
        vote = next(e for e in log.events if type(e).__name__ == "VoteRound")
        assert vote_outcome(vote) == "Player 6 eliminated"  # type: ignore[arg-type]


def long_game(rounds: int = 8) -> LogBuilder:
    """A 12-player game of ``rounds`` rounds where no one dies, so every round is played."""
    log = LogBuilder(players=12, seed=3)
    log.night_zero()
    for _ in range(rounds):
        log.start_day()
        for speaker in log.speaking_order:
            log.speak(speaker, f"{speaker} speaks on day {log.round}.")
        log.night()  # the Mafia skip
    return log


class TestTranscriptWindow:
    @pytest.mark.parametrize("day", range(1, 9))
    def test_two_round_window_slides(self, day: int) -> None:
        log = long_game()
        cut = next(i for i, e in enumerate(log.events) if type(e).__name__ == "DayStarted" and e.round == day)
        view = player_view(log.events[: cut + 1], "Player 1")
        window = TranscriptManager.from_view(view, "Player 1").get_transcript_for_player()
        assert [s.round_number for s in window.compressed] == list(range(1, max(1, day - 1)))
        assert [t.round_number for t in window.verbatim] == list(range(max(1, day - 1), day + 1))

    def test_window_size_is_configurable(self) -> None:
        view = player_view(long_game(6).events, "Player 2")
        window = TranscriptManager.from_view(view, "Player 2", 3).get_transcript_for_player()
        assert [t.round_number for t in window.verbatim] == [4, 5, 6]
        assert [s.round_number for s in window.compressed] == [1, 2, 3]


class TestTranscriptFullMode:
    def test_full_returns_every_round_uncompressed(self) -> None:
        view = player_view(long_game(6).events, "Player 3")
        window = TranscriptManager.from_view(view, "Player 3").get_transcript_for_player(full=True)
        assert window.compressed == ()
        assert [t.round_number for t in window.verbatim] == [1, 2, 3, 4, 5, 6]
        assert all(len(t.speeches) == 12 for t in window.verbatim)

    def test_random_games_full_mode_keeps_every_speech(self) -> None:
        log = play_random(11, players=9, rounds=5)
        view = player_view(log.events, log.seats[0])
        full = TranscriptManager.from_view(view, log.seats[0]).get_transcript_for_player(True)
        spoken = [e for e in log.events if type(e).__name__ == "Speech"]
        assert sum(len(t.speeches) for t in full.verbatim) == len(spoken)
