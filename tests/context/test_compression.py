"""Compression of older rounds: one line a day with deaths, results, who voted with whom, claims."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logbuilder import LogBuilder, play_random, seven_day2_speeches, seven_to_day2
from mafia.context import TranscriptManager, compress_round
from mafia.context.compression import ALL_SKIPPED, REST_SKIPPED
from mafia.context.schemas import BallotLine, DayRoundTranscript, SpeechLine
from mafia.context.transcript_text import compressed_round
from mafia.context.views import player_view
from mafia.game.events import DayStarted, Elimination, EventBase, VoteRound, named_deaths
from mafia.game.rules import SKIP

SEATS = [f"Player {k}" for k in range(1, 8)]


def parse_groups(grouped: str, voters: set[str]) -> set[tuple[str, str]]:
    """(voter, target) pairs read back from grouped ballots, given who could vote that day."""
    if grouped == ALL_SKIPPED:
        return {(v, SKIP) for v in voters}
    pairs: set[tuple[str, str]] = set()
    rest = False
    for group in grouped.split("; "):
        if group == REST_SKIPPED:
            rest = True
            continue
        names, _, target = group.rpartition(" voted ")
        pairs |= {(v, target) for v in names.split(", ")}
    if rest:
        pairs |= {(v, SKIP) for v in voters - {v for v, _ in pairs}}
    return pairs


def parse_result(line: str, voters: set[str]) -> tuple[str, set[tuple[str, str]]]:
    """A vote's outcome and its (voter, target) pairs, from "outcome (groups)" or "outcome"."""
    if not line.endswith(")"):
        return line, set()
    outcome, _, grouped = line[:-1].partition(" (")
    return outcome, parse_groups(grouped, voters)


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

    def test_a_quiet_day_is_one_short_line(self) -> None:
        speeches = [
            SpeechLine(speaker=a, text=f"{b} is Mafia.", nomination=b) for a, b in itertools.pairwise(SEATS)
        ]
        tr = DayRoundTranscript(
            round_number=4,
            speeches=speeches,
            votes=[BallotLine(voter=v, target=SKIP) for v in SEATS],
            vote_outcome="no elimination",
        )
        assert compressed_round(compress_round(tr, SEATS)) == [
            "Day 4: no night kill; no elimination (all skipped)."
        ]
        assert compressed_round(
            compress_round(DayRoundTranscript(round_number=1, vote_outcome="no vote"), SEATS)
        ) == ["Day 1: no vote."]

    def test_only_the_nominations_that_put_someone_out_or_level_are_kept(self) -> None:
        tr = DayRoundTranscript(
            round_number=2,
            night_kill="Player 7",
            speeches=[
                SpeechLine(speaker="Player 1", text="Player 2 is Mafia.", nomination="Player 3"),
                SpeechLine(speaker="Player 2", text="Player 4 seems suspicious.", nomination="Player 4"),
                SpeechLine(speaker="Player 5", text="Agreed.", nomination="Player 3"),
            ],
            votes=[
                BallotLine(voter="Player 1", target="Player 3"),
                BallotLine(voter="Player 2", target="Player 4"),
                BallotLine(voter="Player 3", target=SKIP),
                BallotLine(voter="Player 4", target="Player 3"),
                BallotLine(voter="Player 5", target="Player 3"),
                BallotLine(voter="Player 6", target=SKIP),
            ],
            vote_outcome="Player 3 eliminated",
        )
        summary = compress_round(tr, SEATS)
        assert [(n.nominee, n.nominators) for n in summary.nominations] == [
            ("Player 3", ["Player 1", "Player 5"])
        ]
        assert compressed_round(summary) == [
            "Day 2: Night 1 killed Player 7; Player 3 eliminated (Player 1, Player 4, Player 5 voted "
            "Player 3; Player 2 voted Player 4; the rest skipped); Player 3 nominated by Player 1, Player 5."
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

    def test_size_does_not_grow_with_talk(self) -> None:
        speeches = [
            SpeechLine(speaker=a, text=" ".join(f"{b} is Mafia." for b in SEATS if b != a)) for a in SEATS
        ]
        talkative = DayRoundTranscript(round_number=3, speeches=speeches, vote_outcome="no vote")
        quiet = DayRoundTranscript(round_number=3, vote_outcome="no vote")
        assert compressed_round(compress_round(talkative, SEATS)) == compressed_round(
            compress_round(quiet, SEATS)
        )

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
        assert (
            summary.vote_line == "tie: Player 2, Player 4 (Player 1 voted Player 2; Player 3 voted Player 4)"
        )
        assert summary.defense_note == "revote: Player 4 eliminated (Player 1, Player 3 voted Player 4)"
        assert compressed_round(summary) == [
            "Day 3: Night 2 killed Player 6; tie: Player 2, Player 4 (Player 1 voted Player 2; "
            "Player 3 voted Player 4); revote: Player 4 eliminated (Player 1, Player 3 voted Player 4)."
        ]


def _expected(
    events: Sequence[EventBase],
) -> tuple[dict[int, str | None], dict[int, str], dict[int, list[VoteRound]]]:
    night = {e.round: named_deaths(e.night_deaths) for e in events if isinstance(e, DayStarted)}
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
def test_compression_captures_every_death_and_ballot(seed: int, players: int, rounds: int) -> None:
    log: LogBuilder = play_random(seed, players=players, rounds=rounds, thoughts=False)
    viewer = log.seats[-1]
    manager = TranscriptManager.from_view(player_view(log.events, viewer), viewer, verbatim_rounds=1)
    night, voted, votes = _expected(log.events)
    compressed = {s.round_number: s for s in manager.get_transcript_for_player().compressed}
    everything = {e.number: e.summary() for e in manager.entries}
    assert set(everything) == set(night)
    living = list(log.seats)
    for number, summary in sorted(everything.items()):
        death = night[number]
        if death:
            living.remove(death)
        assert summary.night_death == night[number]
        assert summary.vote_death == voted.get(number)
        held = votes.get(number, [])
        first = {(b.voter, b.target) for v in held if not v.revote for b in v.ballots}
        again = {(b.voter, b.target) for v in held if v.revote for b in v.ballots}
        assert parse_result(summary.vote_line, set(living))[1] == first
        if summary.defense_note is not None:
            outcome, pairs = parse_result(summary.defense_note.removeprefix("revote: "), set(living))
            assert pairs == again and outcome == summary.vote_result
        else:
            assert not again
        if number in compressed:
            (line,) = compressed_round(summary)
            if night[number]:
                assert f"killed {night[number]}" in line
            if number in voted:
                assert f"{voted[number]} eliminated" in line
                assert summary.nominations and summary.nominations[-1].nominee in line
            assert summary.vote_line in line
        if number in voted:
            living.remove(voted[number])
    # Every death announced at dawn and every elimination is kept by some round's summary.
    deaths = {d for d in night.values() if d} | set(voted.values())
    shown = {s.night_death for s in everything.values()} | {s.vote_death for s in everything.values()}
    assert deaths <= shown
