"""Older rounds squeezed into CompressedRoundSummary: deaths, the vote line, claims, accusations.

Deterministic and uncapped: every death, every ballot (in the vote line), every nomination and
every accusation or role claim the keyword heuristics find is kept, so a player who no longer sees
a round verbatim still has its facts.
"""

from __future__ import annotations

from collections.abc import Sequence

from mafia.context.extraction import extract
from mafia.rules import SKIP
from mafia.schemas import (
    Accusation,
    BallotLine,
    CompressedRoundSummary,
    DayRoundTranscript,
    RoleClaim,
    SpeechLine,
    VoteOutcome,
)

PENDING = "pending"
NO_VOTE = "no vote"
NO_ELIMINATION = "no elimination"
ELIMINATED_SUFFIX = " eliminated"
TIE_PREFIX = "tie: "


def outcome_eliminated(outcome: VoteOutcome | None) -> str | None:
    """The player an outcome string names as eliminated ("Player 5 eliminated"), if any."""
    if outcome and outcome.endswith(ELIMINATED_SUFFIX):
        return outcome[: -len(ELIMINATED_SUFFIX)]
    return None


def vote_death(transcript: DayRoundTranscript) -> str | None:
    """Who the day's vote (or revote) eliminated, if anyone."""
    return outcome_eliminated(transcript.revote_outcome) or outcome_eliminated(transcript.vote_outcome)


def final_result(transcript: DayRoundTranscript) -> VoteOutcome:
    """The day's last word on the vote: the revote's outcome if there was one."""
    return transcript.revote_outcome or transcript.vote_outcome


def group_ballots(ballots: Sequence[BallotLine], seats: Sequence[str]) -> str:
    """Ballots grouped by target, most votes first, e.g. "Player 5 (3): Player 1, Player 2, ..."."""
    if not ballots:
        return ""
    order = {name: i for i, name in enumerate(seats)}
    order.setdefault(SKIP, len(order))
    voters: dict[str, list[str]] = {}
    for ballot in ballots:
        voters.setdefault(ballot.target, []).append(ballot.voter)
    targets = sorted(voters, key=lambda t: (-len(voters[t]), order.get(t, len(order) + 1), t))
    return "; ".join(
        f"{t} ({len(voters[t])}): "
        + ", ".join(sorted(voters[t], key=lambda v: (order.get(v, len(order)), v)))
        for t in targets
    )


def vote_line(transcript: DayRoundTranscript, seats: Sequence[str]) -> str:
    """The deterministic line of every ballot of the day: the vote, then any revote."""
    line = group_ballots(transcript.votes, seats)
    if transcript.revote:
        line += f" | revote: {group_ballots(transcript.revote, seats)}"
    return line


def defense_note(transcript: DayRoundTranscript) -> str | None:
    """Who was tied, who defended, and how the revote ended (None without a tie)."""
    if not transcript.vote_outcome.startswith(TIE_PREFIX):
        return None
    tied = transcript.vote_outcome[len(TIE_PREFIX) :]
    speakers = ", ".join(s.speaker for s in transcript.defense_speeches) or "no one"
    result = transcript.revote_outcome or PENDING
    return f"tie between {tied}; defense by {speakers}; revote: {result}"


def _spoken(transcript: DayRoundTranscript) -> list[SpeechLine]:
    lines = [*transcript.speeches, *transcript.defense_speeches]
    if transcript.last_words is not None:
        lines.append(transcript.last_words)
    return lines


def accusations(transcript: DayRoundTranscript, seats: Sequence[str]) -> list[Accusation]:
    """Every nomination and every accusation read from the day's words, in speech order."""
    found: dict[tuple[str, str], None] = {}
    for line in _spoken(transcript):
        if line.nomination:
            found[(line.speaker, line.nomination)] = None
        for accused in extract(line.text, line.speaker, seats).accused:
            found[(line.speaker, accused)] = None
    return [Accusation(accuser=a, accused=b) for a, b in found]


def line_claims(line: SpeechLine, seats: Sequence[str]) -> tuple[str, ...]:
    """The roles a speech claims: the speaker's structured claim, else those its text states."""
    if line.claim:
        return (line.claim,)
    return tuple(role.value for role in extract(line.text, line.speaker, seats).claims)


def claims(transcript: DayRoundTranscript, seats: Sequence[str]) -> list[RoleClaim]:
    """Every role claim of the day's speeches, defenses and last words, in order."""
    found: dict[tuple[str, str], None] = {}
    for line in _spoken(transcript):
        for role in line_claims(line, seats):
            found[(line.speaker, role)] = None
    return [RoleClaim(player=p, role=r) for p, r in found]


def compress_round(transcript: DayRoundTranscript, seats: Sequence[str]) -> CompressedRoundSummary:
    """One round's facts without its words: deaths, result, vote line, defense, accusations."""
    return CompressedRoundSummary(
        round_number=transcript.round_number,
        night_death=transcript.night_kill,
        vote_death=vote_death(transcript),
        vote_result=final_result(transcript),
        vote_line=vote_line(transcript, seats),
        defense_note=defense_note(transcript),
        accusations=accusations(transcript, seats),
        claims=claims(transcript, seats),
    )
