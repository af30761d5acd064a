"""The day's appliers: its opening, speeches, votes, defenses and last words, as typed updates.

``open_day`` is a bookkeeping step; the ``record_*`` functions apply one turn and the tallies a
vote's ballots, as the protocol table (mafia.game.protocol) says. Each sets ``step`` for the
routers. The rules themselves live in mafia.game.rules.
"""

from __future__ import annotations

from mafia.game.events import (
    Ballot,
    Count,
    DayStarted,
    DefenseSpeech,
    Elimination,
    LastWords,
    NightResolution,
    Speech,
    VoteRound,
)
from mafia.game.reading import chosen, dump, readable, since_daybreak, table
from mafia.game.rules import VoteResult, first_speaker, resolve_revote, resolve_vote, speaking_order
from mafia.game.state import GameState, GameUpdate, Turn


def last_night_deaths(state: GameState) -> list[str]:
    """Who died in the night that just ended (read from the log's latest night resolution)."""
    resolutions = since_daybreak(state, "night_resolution")
    return NightResolution.model_validate(resolutions[0]).deaths if resolutions else []


def open_day(state: GameState) -> GameUpdate:
    """Open the next day: announce the night's death and fix the speaking order, the summary's
    step next (or end in a draw once the round cap is passed)."""
    round_ = state["round"] + 1
    if round_ > state["round_cap"]:
        return readable(state, {"winner": "draw", "step": "game_over"})
    t = table(state)
    opener = first_speaker(state["opener"], t.living, t.names)
    order = speaking_order(opener, t.living)
    event = DayStarted(
        round=round_,
        night_deaths=last_night_deaths(state) if round_ > 1 else [],
        living=t.living,
        speaking_order=order,
    )
    update: GameUpdate = {
        "round": round_,
        "phase": "day",
        "step": "summary",
        "opener": opener,
        "queue": order,
        "nominees": [],
        "events": dump([event]),
    }
    return readable(state, update)


def to_speeches(state: GameState) -> GameUpdate:
    """The summary's step without a summariser (the reference game's): the day's speeches follow."""
    return {"step": "speak"}


def record_speech(state: GameState, turn: Turn) -> GameUpdate:
    """Record a speech and its nomination; the next speaker sees it."""
    nomination = turn["choice"]
    speech = Speech(
        round=state["round"],
        speaker=turn["player"],
        text=turn["text"] or "",
        nomination=nomination,
        claim=turn.get("claim"),
    )
    nominees = list(state["nominees"])
    if nomination is not None and nomination not in nominees:
        nominees.append(nomination)
    queue = [q for q in state["queue"] if q != turn["player"]]
    return {
        "events": dump([speech]),
        "queue": queue,
        "nominees": nominees,
        "step": "speak" if queue else "vote",
    }


def _vote_round(state: GameState, revote: bool, result: VoteResult, turns: list[Turn]) -> VoteRound:
    return VoteRound(
        round=state["round"],
        revote=revote,
        nominees=list(state["nominees"]),
        ballots=[Ballot(voter=t["player"], target=t["choice"]) for t in turns],
        counts=[Count(option=o, votes=n) for o, n in result.counts],
        outcome=result.kind,
        eliminated=result.eliminated,
        tied=list(result.tied),
    )


def tally_vote(state: GameState, turns: list[Turn]) -> GameUpdate:
    """Resolve the day's vote from its ballots in seat order."""
    return _tally(state, False, turns)


def tally_revote(state: GameState, turns: list[Turn]) -> GameUpdate:
    """Resolve the revote among the tied from its ballots in seat order."""
    return _tally(state, True, turns)


def _tally(state: GameState, revote: bool, turns: list[Turn]) -> GameUpdate:
    """A vote's outcome: an elimination, a tie going to defense and revote (a tied revote
    eliminates no one), or nothing."""
    ballots = {t["player"]: chosen(t) for t in turns}
    resolve = resolve_revote if revote else resolve_vote
    result = resolve(ballots, state["nominees"])
    events = dump([_vote_round(state, revote, result, turns)])
    update: GameUpdate = {"step": "night_start", "queue": []}
    if result.eliminated is not None:
        events += dump([Elimination(round=state["round"], player=result.eliminated)])
        update |= {
            "dead": [*state["dead"], result.eliminated],
            "pending_last_words": result.eliminated,
            "step": "last_words",
        }
    elif result.kind == "tie":
        names = table(state).names
        tied = sorted(result.tied, key=names.index)
        update |= {"nominees": tied, "queue": tied, "step": "defense"}
    return {**update, "events": events}


def record_defense(state: GameState, turn: Turn) -> GameUpdate:
    """Record a tied player's defense."""
    event = DefenseSpeech(
        round=state["round"], speaker=turn["player"], text=turn["text"] or "", claim=turn.get("claim")
    )
    queue = [q for q in state["queue"] if q != turn["player"]]
    return {"events": dump([event]), "queue": queue, "step": "defense" if queue else "revote"}


def record_last_words(state: GameState, turn: Turn) -> GameUpdate:
    """Record the eliminated player's last words."""
    event = LastWords(
        round=state["round"], speaker=turn["player"], text=turn["text"] or "", claim=turn.get("claim")
    )
    return {"events": dump([event]), "pending_last_words": None, "step": "check_win"}
