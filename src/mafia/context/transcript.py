"""Transcript management: rounds in full (DayRoundTranscript) and the window a player is shown.

The current and previous rounds are shown verbatim; older rounds are compressed (see
``compression``); ``full=True`` shows every round verbatim. A TranscriptManager is filled either
step by step (``start_round``, ``add_speech``, ``record_vote``, ..., ``finalize_round``) or, as the
context builder does, by replaying a player's view with ``from_view``/``from_record``.

A closed round never changes (the log is append-only), so its transcript, summary and rendered
lines are cached, keyed by the identity of the very event objects it was built from (the cache
holds them, so their identities cannot be reused while cached).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from mafia.context import compression
from mafia.context.compression import (
    ELIMINATED_SUFFIX,
    NO_ELIMINATION,
    NO_VOTE,
    PENDING,
    TIE_PREFIX,
    compress_round,
)
from mafia.context.policy import DEFAULT_VERBATIM_ROUNDS
from mafia.context.record import GameRecord, RoundRecord, read_view
from mafia.context.schemas import (
    BallotLine,
    CompressedRoundSummary,
    DayRoundTranscript,
    SpeechLine,
    VoteOutcome,
)
from mafia.game.events import Ballot, EventBase, VoteRound, named_deaths

_CACHE_SIZE = 512  # closed rounds of the games in play; a long run of games keeps no more


def vote_outcome(vote: VoteRound) -> VoteOutcome:
    """A vote's outcome as a transcript string ("Player 5 eliminated", "tie: A, B", ...)."""
    if vote.outcome == "eliminated" and vote.eliminated is not None:
        return vote.eliminated + ELIMINATED_SUFFIX
    if vote.outcome == "tie":
        return TIE_PREFIX + ", ".join(vote.tied)
    if vote.outcome == "no_vote":
        return NO_VOTE
    return NO_ELIMINATION


def ballot_lines(ballots: Iterable[Ballot]) -> list[BallotLine]:
    return [BallotLine(voter=b.voter, target=b.target) for b in ballots]


@dataclass
class RoundEntry:
    """One round's transcript with what is derived from it (computed once, kept while closed)."""

    transcript: DayRoundTranscript
    seats: tuple[str, ...]
    closed: bool = False
    _summary: CompressedRoundSummary | None = None
    _claims: list[tuple[str, str]] | None = None
    _lines: dict[str, list[str]] = field(default_factory=dict)

    @property
    def number(self) -> int:
        return self.transcript.round_number

    def summary(self) -> CompressedRoundSummary:
        """The round compressed (cached once the round is closed)."""
        if self._summary is not None:
            return self._summary
        summary = compress_round(self.transcript, self.seats)
        if self.closed:
            self._summary = summary
        return summary

    def claims(self) -> list[tuple[str, str]]:
        """(player, role) claims made in this round's speeches, defenses and last words."""
        if self._claims is not None:
            return self._claims
        found = [(c.player, c.role) for c in compression.claims(self.transcript, self.seats)]
        if self.closed:
            self._claims = found
        return found

    def lines(self, kind: str, render: Callable[[RoundEntry], list[str]]) -> list[str]:
        """Rendered lines of one kind ("compressed", "verbatim"), cached once closed."""
        cached = self._lines.get(kind)
        if cached is not None:
            return cached
        out = render(self)
        if self.closed:
            self._lines[kind] = out
        return out


@dataclass(frozen=True)
class WindowedTranscript:
    """What a player is shown of the game's history: compressed older rounds, recent in full."""

    compressed: tuple[CompressedRoundSummary, ...]
    verbatim: tuple[DayRoundTranscript, ...]


# (seats, ids of the round's events) -> (the events, kept alive; the closed round's entry)
_closed: OrderedDict[tuple[object, ...], tuple[tuple[EventBase, ...], RoundEntry]] = OrderedDict()
_lock = threading.Lock()


def _round_events(rnd: RoundRecord) -> tuple[EventBase, ...]:
    parts: list[EventBase] = []
    if rnd.day is not None:
        parts.append(rnd.day)
    parts.extend(rnd.speeches)
    parts.extend(rnd.votes)
    parts.extend(rnd.defenses)
    if rnd.last_words is not None:
        parts.append(rnd.last_words)
    return tuple(parts)


def clear_cache() -> None:
    """Forget every cached closed round (tests and benchmarks of cold builds)."""
    with _lock:
        _closed.clear()


class TranscriptManager:
    """The game's day rounds in full, and the windowed view of them for a player's context."""

    def __init__(self, seats: Sequence[str], verbatim_rounds: int = DEFAULT_VERBATIM_ROUNDS) -> None:
        self.seats = tuple(seats)
        self.verbatim_rounds = verbatim_rounds
        self._entries: list[RoundEntry] = []

    # ---- filling ---------------------------------------------------------------------------

    def start_round(self, round_number: int, night_kill: str | None = None) -> DayRoundTranscript:
        """Open round ``round_number`` with the death announced at dawn (None on day 1)."""
        live = DayRoundTranscript(round_number=round_number, night_kill=night_kill)
        self._entries.append(RoundEntry(live, self.seats))
        return live

    @property
    def current(self) -> DayRoundTranscript:
        """The latest round (raises LookupError if no round has started)."""
        if not self._entries:
            raise LookupError("no round has started")
        return self._entries[-1].transcript

    def _open(self) -> DayRoundTranscript:
        if not self._entries or self._entries[-1].closed:
            raise LookupError("no open round: call start_round first")
        return self._entries[-1].transcript

    def add_speech(
        self, speaker: str, text: str, nomination: str | None = None, claim: str | None = None
    ) -> None:
        """Add one discussion speech (with its structured role claim, if any) to the current round."""
        line = SpeechLine(speaker=speaker, text=text, nomination=nomination, claim=claim)
        self._open().speeches.append(line)

    def record_vote(self, ballots: Iterable[BallotLine], outcome: VoteOutcome) -> None:
        """Record the day's vote; a tie leaves the revote pending."""
        live = self._open()
        live.votes = list(ballots)
        live.vote_outcome = outcome
        if outcome.startswith(TIE_PREFIX):
            live.revote_outcome = PENDING

    def add_defense(self, speaker: str, text: str, claim: str | None = None) -> None:
        """Add a tied player's defense speech to the current round."""
        self._open().defense_speeches.append(SpeechLine(speaker=speaker, text=text, claim=claim))

    def record_revote(self, ballots: Iterable[BallotLine], outcome: VoteOutcome) -> None:
        """Record the revote between the tied players."""
        live = self._open()
        live.revote = list(ballots)
        live.revote_outcome = outcome

    def add_last_words(self, speaker: str, text: str, claim: str | None = None) -> None:
        """Record the last words of the player the vote eliminated."""
        self._open().last_words = SpeechLine(speaker=speaker, text=text, claim=claim)

    def finalize_round(
        self,
        votes: Iterable[BallotLine] | None = None,
        vote_outcome: VoteOutcome | None = None,
        defense_speeches: Iterable[SpeechLine] | None = None,
        revote: Iterable[BallotLine] | None = None,
        revote_outcome: VoteOutcome | None = None,
        last_words: SpeechLine | None = None,
    ) -> DayRoundTranscript:
        """Close the current day: fill what is given; a vote never held becomes "no vote"."""
        live = self._open()
        if votes is not None:
            live.votes = list(votes)
        if vote_outcome is not None:
            live.vote_outcome = vote_outcome
        if defense_speeches is not None:
            live.defense_speeches = list(defense_speeches)
        if revote is not None:
            live.revote = list(revote)
        if revote_outcome is not None:
            live.revote_outcome = revote_outcome
        if last_words is not None:
            live.last_words = last_words
        if live.vote_outcome == PENDING:
            live.vote_outcome = NO_VOTE
        if live.revote_outcome == PENDING:
            live.revote_outcome = NO_ELIMINATION
        self._entries[-1].closed = True
        return live

    # ---- reading ---------------------------------------------------------------------------

    @property
    def rounds(self) -> list[DayRoundTranscript]:
        """Every round in full, oldest first."""
        return [e.transcript for e in self._entries]

    @property
    def entries(self) -> list[RoundEntry]:
        """Every round with its cached derivations, oldest first."""
        return list(self._entries)

    def window(self, full: bool = False) -> tuple[list[RoundEntry], list[RoundEntry]]:
        """(compressed, verbatim) entries: the last ``verbatim_rounds`` in full unless ``full``."""
        if full:
            return [], list(self._entries)
        cut = max(0, len(self._entries) - max(self.verbatim_rounds, 1))
        return self._entries[:cut], self._entries[cut:]

    def get_transcript_for_player(self, full: bool = False) -> WindowedTranscript:
        """The window: the last ``verbatim_rounds`` rounds verbatim, older ones compressed."""
        compressed, verbatim = self.window(full)
        return WindowedTranscript(
            compressed=tuple(e.summary() for e in compressed),
            verbatim=tuple(e.transcript for e in verbatim),
        )

    # ---- replay ----------------------------------------------------------------------------

    @classmethod
    def from_record(
        cls,
        record: GameRecord,
        verbatim_rounds: int = DEFAULT_VERBATIM_ROUNDS,
        *,
        day_open: bool = True,
    ) -> TranscriptManager:
        """Replay a sorted view. Earlier days are closed; the latest stays open (vote pending)
        unless ``day_open`` is False or its night has begun."""
        manager = cls(record.seats, verbatim_rounds)
        current = record.current_round
        for number in sorted(record.rounds):
            rnd = record.rounds[number]
            if rnd.day is None:
                continue
            closing = number < current or rnd.night_open or not day_open
            if not closing:
                manager._replay(rnd)
                continue
            events = _round_events(rnd)
            key = (manager.seats, *map(id, events))
            with _lock:  # player turns run in parallel threads
                hit = _closed.get(key)
                if hit is not None:
                    _closed.move_to_end(key)
            if hit is not None:
                manager._entries.append(hit[1])
                continue
            manager._replay(rnd)
            manager.finalize_round()
            with _lock:
                _closed[key] = (events, manager._entries[-1])
                if len(_closed) > _CACHE_SIZE:
                    _closed.popitem(last=False)
        return manager

    @classmethod
    def from_view(
        cls,
        view: Sequence[EventBase],
        me: str,
        verbatim_rounds: int = DEFAULT_VERBATIM_ROUNDS,
        *,
        day_open: bool = True,
    ) -> TranscriptManager:
        """Replay one player's view (``views.player_view``) into a manager."""
        return cls.from_record(read_view(view, me), verbatim_rounds, day_open=day_open)

    def _replay(self, rnd: RoundRecord) -> None:
        if rnd.day is None:
            return
        self.start_round(rnd.number, named_deaths(rnd.day.night_deaths))
        for speech in rnd.speeches:
            self.add_speech(speech.speaker, speech.text, speech.nomination, speech.claim)
        for vote in rnd.votes:
            if vote.revote:
                self.record_revote(ballot_lines(vote.ballots), vote_outcome(vote))
            else:
                self.record_vote(ballot_lines(vote.ballots), vote_outcome(vote))
        for defense in rnd.defenses:
            self.add_defense(defense.speaker, defense.text, defense.claim)
        if rnd.last_words is not None:
            self.add_last_words(rnd.last_words.speaker, rnd.last_words.text, rnd.last_words.claim)
