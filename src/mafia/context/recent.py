"""Recent events: what happened since the player's last turn, one short public line each.

Only public facts are described (and the player's own fallback notices): private events and
private fields, such as a night's intended kill or protection, never appear here even for a player
entitled to them; those reach a prompt only through the player's own sections (Mafia info,
investigation results, memory). Speech words are in the transcript; here a speech is one line.
"""

from __future__ import annotations

from mafia.context.record import GameRecord
from mafia.context.safety import quote_text
from mafia.game.events import (
    DayStarted,
    DefenseSpeech,
    Elimination,
    EventBase,
    Fallback,
    GameOver,
    GameStarted,
    LastWords,
    NightResolution,
    Speech,
    Thought,
    VoteRound,
)
from mafia.prompts import anchors

NOTHING_NEW = "Nothing new since your last turn."


def _counts(vote: VoteRound) -> str:
    ranked = sorted(vote.counts, key=lambda c: -c.votes)  # stable: ties keep ballot order
    return ", ".join(f"{c.option} {c.votes}" for c in ranked)


def describe(event: EventBase, me: str) -> str | None:
    """One line for a public event (or the player's own fallback); None for anything else."""
    if isinstance(event, Speech):
        tail = f" and nominated {event.nomination}" if event.nomination else ", no nomination"
        return f"- Day {event.round}: {event.speaker} spoke{tail}."
    if isinstance(event, VoteRound):
        kind = "Revote" if event.revote else "Vote"
        if event.outcome == "eliminated":
            result = f"{event.eliminated} eliminated"
        elif event.outcome == "tie":
            result = "tie between " + ", ".join(event.tied)
        elif event.outcome == "no_vote":
            result = "no vote (no nominations)"
        else:
            result = "no elimination"
        counts = f" ({_counts(event)})" if event.counts else ""
        return f"- Day {event.round}: {kind} result: {result}{counts}."
    if isinstance(event, DefenseSpeech):
        return f"- Day {event.round}: {event.speaker} gave a defense speech."
    if isinstance(event, Elimination):
        return f"- Day {event.round}: {event.player} was voted out."
    if isinstance(event, LastWords):
        return f"- Day {event.round}: {event.speaker} gave last words."
    if isinstance(event, NightResolution):
        # Only the public field: intended_kill and protected are never described.
        return "- " + anchors.format_night_death(event.round, event.deaths)
    if isinstance(event, DayStarted):
        return f"- Day {event.round} began; speaking order: {', '.join(event.speaking_order)}."
    if isinstance(event, GameStarted):
        return f"- The game began with {len(event.players)} players."
    if isinstance(event, GameOver):
        return f"- The game is over: {event.winner} ({quote_text(event.reason)})."
    if isinstance(event, Fallback) and event.player == me:
        return (
            f"- Your {event.action} answer could not be used after {event.attempts} attempts "
            f"({quote_text(event.error)}); the engine applied: {quote_text(event.applied)}."
        )
    return None


def _turn_start(record: GameRecord) -> int:
    """Index of the last event the player had seen when they last acted (their last Thought).

    A ballot's Thought may be logged after the tally of its vote; the tally is still news to the
    voter, so the window then opens just before that VoteRound.
    """
    if not record.thoughts:
        return -1
    last, thought = record.thoughts[-1]
    if thought.action in ("vote", "revote"):
        for index in range(last - 1, -1, -1):
            event = record.view[index]
            if isinstance(event, VoteRound) and event.round == thought.round:
                if event.revote == (thought.action == "revote"):
                    return index - 1
                break
            if isinstance(event, Thought) and event.player == record.me:
                break
    return last


def recent_lines(record: GameRecord) -> tuple[str, list[str]]:
    """The "since" line and one line per public event after the player's last turn."""
    start = _turn_start(record)
    since = "Since your last turn:" if record.thoughts else "Since the game began:"
    lines = [line for event in record.view[start + 1 :] if (line := describe(event, record.me)) is not None]
    # The fallback of the last turn may be logged before that turn's Thought: show it too.
    if record.thoughts and record.fallbacks:
        previous = record.thoughts[-2][0] if len(record.thoughts) >= 2 else -1
        index, fallback = record.fallbacks[-1]
        line = describe(fallback, record.me)
        if previous < index <= start and line is not None:
            lines.insert(0, line)
    return since, lines
