"""What happened in a game, read from its event log (events.jsonl): the winner, the length, the
revotes, how the Mafia agreed on their kills, and a digest of its moves to pair games by."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence

from mafia.arena.stats import rate, wilson
from mafia.game.events import (
    ColdSummary,
    EventBase,
    GameOver,
    MafiaVote,
    PlayerNote,
    RunChanged,
    SummaryFallback,
    VoteRound,
)
from mafia.game.rules import SKIP
from mafia.game.state import JSON

SIDES = ("town", "mafia", "draw")


def game_over(events: Sequence[EventBase]) -> GameOver | None:
    """The game's end, if the log reached it."""
    return next((e for e in reversed(events) if isinstance(e, GameOver)), None)


# What the players thought and what the context layer wrote for them: no move of the game.
NOT_MOVES = (PlayerNote, ColdSummary, SummaryFallback, RunChanged)


def play_digest(events: Iterable[EventBase]) -> str:
    """A digest of every move of a game (every event but the players' thoughts and the context's
    own records): two games with one digest were played alike, word for word and vote for vote."""
    digest = hashlib.blake2b(digest_size=16)
    for event in events:
        if not isinstance(event, NOT_MOVES):
            digest.update(event.model_dump_json().encode())
            digest.update(b"\n")
    return digest.hexdigest()


def win_rates(winners: Sequence[str]) -> JSON:
    """Per side: wins, the share of games, and its 95% Wilson interval."""
    out: JSON = {}
    for side in SIDES:
        wins = sum(1 for w in winners if w == side)
        low, high = wilson(wins, len(winners))
        out[side] = {"wins": wins, "rate": rate(wins, len(winners)), "low": low, "high": high}
    return out


def revotes(events: Iterable[EventBase]) -> JSON:
    """Days that voted, the revotes among them, and each revote's outcome."""
    votes = [e for e in events if isinstance(e, VoteRound)]
    outcomes = Counter(e.outcome for e in votes if e.revote)
    return {
        "votes": sum(1 for e in votes if not e.revote),
        "revotes": sum(outcomes.values()),
        "outcomes": dict(outcomes),
    }


def consensus(events: Iterable[EventBase]) -> JSON:
    """The Mafia's kill decisions: how each night's was reached (``direct`` for a lone Mafia,
    ``round1``, ``round2`` or ``lowest_seat``) and how many skipped the kill."""
    decided = [e for e in events if isinstance(e, MafiaVote)]
    return {
        "nights": len(decided),
        "decided_by": dict(Counter(e.decided_by for e in decided)),
        "skips": sum(1 for e in decided if e.final_target == SKIP),
    }


def consensus_rates(counts: JSON) -> JSON:
    """Rates of summed ``consensus`` counts: Round 1 agreement among team nights (two or more
    Mafia), Round 2 agreement among nights that reached Round 2, lowest-seat decisions among team
    nights, skips among all nights."""
    by = counts["decided_by"]
    team = sum(by.get(k, 0) for k in ("round1", "round2", "lowest_seat"))
    second = by.get("round2", 0) + by.get("lowest_seat", 0)
    return {
        "round1_agreement": rate(by.get("round1", 0), team),
        "round2_agreement": rate(by.get("round2", 0), second),
        "lowest_seat_share": rate(by.get("lowest_seat", 0), team),
        "skip_share": rate(counts["skips"], counts["nights"]),
    }
