"""Older rounds squeezed into CompressedRoundSummary: deaths, the result, who voted with whom.

Deterministic and bounded by what happened, not by how much was said: a round keeps its night
death, every vote's outcome with its ballots grouped by choice (skips summed up as "the rest
skipped"), the nominators of the players a vote eliminated or tied, and its role claims (for the
claims ledger, which covers every round). A quiet day (no death, everyone skipped) is one short
line. Other nominations and the accusations read from speeches are dropped with the words: they
changed nothing the log records, the player saw them verbatim for the two days of the window (time
to fold them into its suspicions), and listing them would grow every prompt by a line per speaker
and day.
"""

from __future__ import annotations

from collections.abc import Sequence

from mafia.context.extraction import extract
from mafia.context.schemas import (
    BallotLine,
    CompressedRoundSummary,
    DayRoundTranscript,
    Nomination,
    RoleClaim,
    SpeechLine,
    VoteOutcome,
)
from mafia.game.rules import SKIP
from mafia.prompts import anchors

PENDING = "pending"
NO_VOTE = "no vote"
NO_ELIMINATION = "no elimination"
ELIMINATED_SUFFIX = " eliminated"
TIE_PREFIX = "tie: "
ALL_SKIPPED = "all skipped"
REST_SKIPPED = "the rest skipped"


def outcome_eliminated(outcome: VoteOutcome | None) -> str | None:
    """The player an outcome string names as eliminated ("Player 5 eliminated"), if any."""
    if outcome and outcome.endswith(ELIMINATED_SUFFIX):
        return outcome[: -len(ELIMINATED_SUFFIX)]
    return None


def outcome_tied(outcome: VoteOutcome | None) -> list[str]:
    """The players an outcome string names as tied ("tie: A, B"), else none."""
    if outcome and outcome.startswith(TIE_PREFIX):
        return outcome[len(TIE_PREFIX) :].split(", ")
    return []


def vote_death(transcript: DayRoundTranscript) -> str | None:
    """Who the day's vote (or revote) eliminated, if anyone."""
    return outcome_eliminated(transcript.revote_outcome) or outcome_eliminated(transcript.vote_outcome)


def final_result(transcript: DayRoundTranscript) -> VoteOutcome:
    """The day's last word on the vote: the revote's outcome if there was one."""
    return transcript.revote_outcome or transcript.vote_outcome


def seat_order(seats: Sequence[str]) -> dict[str, int]:
    """Each player's seat index, for sorting names the way the table sits."""
    return {name: i for i, name in enumerate(seats)}


def group_ballots(ballots: Sequence[BallotLine], seats: Sequence[str], by_seat: bool = False) -> str:
    """Who voted with whom, e.g. "Player 1, Player 2 voted Player 5; the rest skipped".

    Targets with the most votes come first (then by seat), voters by seat; skips are not listed by
    name (the voters are the players alive that day), so an all-skip vote costs two words.
    ``by_seat`` writes players as seat numbers ("1-3,7>5") and leaves skips unsaid: the
    form a token budget condenses old days to, under a legend saying so
    (``anchors.format_seat_legend``).
    """
    if not ballots:
        return ""
    order = seat_order(seats)
    voters: dict[str, list[str]] = {}
    for ballot in ballots:
        voters.setdefault(ballot.target, []).append(ballot.voter)
    chosen = [t for t in voters if t != SKIP]
    if not chosen:
        return "" if by_seat else ALL_SKIPPED
    chosen.sort(key=lambda t: (-len(voters[t]), order.get(t, len(order)), t))
    groups = []
    for target in chosen:
        ranked = sorted(voters[target], key=lambda v: (order.get(v, len(order)), v))
        if by_seat:
            seats_of = [order[v] + 1 for v in ranked]
            groups.append(f"{anchors.format_numbers(seats_of, ',')}>{order[target] + 1}")
        else:
            groups.append(f"{', '.join(ranked)} voted {target}")
    if SKIP in voters and not by_seat:
        groups.append(REST_SKIPPED)
    return (";" if by_seat else "; ").join(groups)


def result_line(
    outcome: VoteOutcome, ballots: Sequence[BallotLine], seats: Sequence[str], by_seat: bool = False
) -> str:
    """A vote's outcome with its grouped ballots, e.g. "no elimination (all skipped)"."""
    grouped = group_ballots(ballots, seats, by_seat)
    return f"{outcome} ({grouped})" if grouped else outcome


def seat_numbers_readable(seats: Sequence[str]) -> bool:
    """Whether voters may be written as seat numbers: no player's name is itself a number."""
    return not any(name.strip().isdigit() for name in seats)


def vote_line(transcript: DayRoundTranscript, seats: Sequence[str]) -> str:
    """The day's first vote: its outcome and who voted with whom."""
    return result_line(transcript.vote_outcome, transcript.votes, seats)


def defense_note(transcript: DayRoundTranscript, seats: Sequence[str]) -> str | None:
    """The revote after a tie, with its ballots (None without a tie). The tied players always
    defend, so the defenses themselves add nothing to the facts."""
    if not outcome_tied(transcript.vote_outcome):
        return None
    return "revote: " + result_line(transcript.revote_outcome or PENDING, transcript.revote, seats)


def nominations(transcript: DayRoundTranscript, seats: Sequence[str]) -> list[Nomination]:
    """Who nominated the players the vote eliminated or tied, in seat order of the nominees."""
    at_stake = set(outcome_tied(transcript.vote_outcome))
    eliminated = vote_death(transcript)
    if eliminated is not None:
        at_stake.add(eliminated)
    by: dict[str, list[str]] = {}
    for speech in transcript.speeches:
        if speech.nomination in at_stake:
            by.setdefault(speech.nomination, []).append(speech.speaker)
    order = seat_order(seats)
    nominees = sorted(by, key=lambda n: (order.get(n, len(order)), n))
    return [Nomination(nominee=n, nominators=by[n]) for n in nominees]


def _spoken(transcript: DayRoundTranscript) -> list[SpeechLine]:
    lines = [*transcript.speeches, *transcript.defense_speeches]
    if transcript.last_words is not None:
        lines.append(transcript.last_words)
    return lines


def line_claims(line: SpeechLine, seats: Sequence[str]) -> tuple[str, ...]:
    """The roles a speech claims: the speaker's structured claim, then any other its text states
    (a speech may claim Town in its answer and the Doctor in its words: the ledger keeps both)."""
    spoken = (role.value for role in extract(line.text, line.speaker, seats).claims)
    return tuple(dict.fromkeys([*([line.claim] if line.claim else []), *spoken]))


def claims(transcript: DayRoundTranscript, seats: Sequence[str]) -> list[RoleClaim]:
    """Every role claim of the day's speeches, defenses and last words, in order."""
    found: dict[tuple[str, str], None] = {}
    for line in _spoken(transcript):
        for role in line_claims(line, seats):
            found[(line.speaker, role)] = None
    return [RoleClaim(player=p, role=r) for p, r in found]


def compress_round(transcript: DayRoundTranscript, seats: Sequence[str]) -> CompressedRoundSummary:
    """One round's facts without its words: deaths, results with ballots, decisive nominations."""
    return CompressedRoundSummary(
        round_number=transcript.round_number,
        night_death=transcript.night_kill,
        vote_death=vote_death(transcript),
        vote_result=final_result(transcript),
        vote_line=vote_line(transcript, seats),
        defense_note=defense_note(transcript, seats),
        nominations=nominations(transcript, seats),
        claims=claims(transcript, seats),
    )
