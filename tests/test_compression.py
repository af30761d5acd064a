"""Compression of older rounds: deaths, vote lines, defense notes, accusations and claims."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logbuilder import LogBuilder, play_random, seven_day2_speeches, seven_to_day2
from mafia.context import TranscriptManager, compress_round
from mafia.context.transcript_text import compressed_round
from mafia.events import DayStarted, Elimination, VoteRound
from mafia.rules import SKIP
from mafia.schemas import BallotLine, DayRoundTranscript, SpeechLine
from mafia.views import player_view

SEATS = [f"Player {k}" for k in range(1, 8)]


def parse_vote_line(line: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(voter, target) pairs of the vote and of the revote, read back from a vote line."""
    vote, _, revote = line.partition(" | revote: ")

    def pairs(part: str) -> set[tuple[str, str]]:
        out = set()
        for group in filter(None, part.split("; ")):
            head, _, voters = group.partition(": ")
            target = head.rsplit(" (", 1)[0]
            count = int(head.rsplit(" (", 1)[1].rstrip(")"))
            names = voters.split(", ")
            assert len(names) == count
            out |= {(v, target) for v in names}
        return out

    return pairs(vote), pairs(revote)


class TestTranscriptCompression:
    def test_two_round_window(self) -> None:
        log = seven_day2_speeches(seven_to_day2())
        log.vote(dict.fromkeys(log.living, SKIP))
        log.night()
        log.start_day()
        manager = TranscriptManager.from_view(player_view(log.events, "Player 2"), "Player 2")
        window = manager.get_transcript_for_player()
        assert [s.round_number for s in window.compressed] == [1]
        assert [t.round_number for t in window.verbatim] == [2, 3]

    def test_accusations_extraction(self) -> None:
        tr = DayRoundTranscript(
            round_number=1,
            speeches=[
                SpeechLine(speaker="Player 1", text="Player 2 is Mafia.", nomination="Player 3"),
                SpeechLine(speaker="Player 2", text="I trust Player 1."),
                SpeechLine(speaker="Player 3", text="Player 4 seems suspicious to me."),
            ],
        )
        summary = compress_round(tr, SEATS)
        assert [(a.accuser, a.accused) for a in summary.accusations] == [
            ("Player 1", "Player 3"),
            ("Player 1", "Player 2"),
            ("Player 3", "Player 4"),
        ]

    def test_claims_extraction(self) -> None:
        tr = DayRoundTranscript(
            round_number=2,
            speeches=[
                SpeechLine(speaker="Player 1", text="I am the Doctor."),
                SpeechLine(speaker="Player 2", text="I am not the Detective."),
            ],
            last_words=SpeechLine(speaker="Player 3", text="I was the Detective, I checked Player 1."),
        )
        claims = [(c.player, c.role) for c in compress_round(tr, SEATS).claims]
        assert claims == [("Player 1", "Doctor"), ("Player 3", "Detective")]

    def test_no_caps_on_accusations(self) -> None:
        speeches = [
            SpeechLine(speaker=a, text=" ".join(f"{b} is Mafia." for b in SEATS if b != a)) for a in SEATS
        ]
        summary = compress_round(DayRoundTranscript(round_number=1, speeches=speeches), SEATS)
        assert len(summary.accusations) == len(SEATS) * (len(SEATS) - 1)

    def test_death_capture_and_defense_note(self) -> None:
        tr = DayRoundTranscript(
            round_number=3,
            night_kill="Player 6",
            votes=[
                BallotLine(voter="Player 1", target="Player 2"),
                BallotLine(voter="Player 3", target="Player 4"),
            ],
            vote_outcome="tie: Player 2, Player 4",
            defense_speeches=[
                SpeechLine(speaker="Player 2", text="No."),
                SpeechLine(speaker="Player 4", text="No!"),
            ],
            revote=[
                BallotLine(voter="Player 1", target="Player 4"),
                BallotLine(voter="Player 3", target="Player 4"),
            ],
            revote_outcome="Player 4 eliminated",
        )
        summary = compress_round(tr, SEATS)
        assert summary.night_death == "Player 6"
        assert summary.vote_death == "Player 4"
        assert summary.vote_result == "Player 4 eliminated"
        assert summary.vote_line == (
            "Player 2 (1): Player 1; Player 4 (1): Player 3 | revote: Player 4 (2): Player 1, Player 3"
        )
        assert summary.defense_note == (
            "tie between Player 2, Player 4; defense by Player 2, Player 4; revote: Player 4 eliminated"
        )
        text = "\n".join(compressed_round(summary))
        assert "Night 2 killed Player 6" in text and "Player 4 eliminated" in text


def _expected(
    events: list[object],
) -> tuple[dict[int, str | None], dict[int, str], dict[int, list[VoteRound]]]:
    night = {e.round: e.night_death for e in events if isinstance(e, DayStarted)}
    voted = {e.round: e.player for e in events if isinstance(e, Elimination)}
    votes: dict[int, list[VoteRound]] = {}
    for e in events:
        if isinstance(e, VoteRound):
            votes.setdefault(e.round, []).append(e)
    return night, voted, votes


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10_000),
    players=st.integers(min_value=5, max_value=12),
    rounds=st.integers(min_value=3, max_value=8),
)
def test_compression_captures_every_death_and_vote_line(seed: int, players: int, rounds: int) -> None:
    log: LogBuilder = play_random(seed, players=players, rounds=rounds, thoughts=False)
    viewer = log.seats[-1]
    manager = TranscriptManager.from_view(player_view(log.events, viewer), viewer, verbatim_rounds=1)
    night, voted, votes = _expected(log.events)
    compressed = {s.round_number: s for s in manager.get_transcript_for_player().compressed}
    everything = {e.number: e.summary() for e in manager.entries}
    assert set(everything) == set(night)
    for number, summary in everything.items():
        assert summary.night_death == night[number]
        assert summary.vote_death == voted.get(number)
        held = votes.get(number, [])
        first = {(b.voter, b.target) for v in held if not v.revote for b in v.ballots}
        again = {(b.voter, b.target) for v in held if v.revote for b in v.ballots}
        assert parse_vote_line(summary.vote_line) == (first, again)
        if number in compressed:
            text = "\n".join(compressed_round(summary))
            if night[number]:
                assert f"killed {night[number]}" in text
            if number in voted:
                assert f"{voted[number]} eliminated" in text
            if summary.vote_line:
                assert f"Vote line: {summary.vote_line}" in text
    # Every death announced at dawn and every elimination is kept by some round's summary.
    deaths = {d for d in night.values() if d} | set(voted.values())
    shown = {s.night_death for s in everything.values()} | {s.vote_death for s in everything.values()}
    assert deaths <= shown
