"""An independent referee for finished game logs: replays the log and lists every rule it breaks.

It re-derives who is alive and what each decision allowed from the log alone, so the graph's
bookkeeping is checked against the rules rather than against itself.
"""

from __future__ import annotations

from collections import Counter

from mafia.game import events as ev
from mafia.game.rules import SKIP, Role

ACTING = (
    ev.Speech,
    ev.DefenseSpeech,
    ev.MafiaDiscussion,
    ev.DoctorProtection,
    ev.NIGHT_EVENTS[Role.BODYGUARD],
    ev.NIGHT_EVENTS[Role.VIGILANTE],
    ev.Investigation,
    ev.NightZeroStrategy,
    ev.PlayerNote,  # thoughts, fallbacks, truncations
)


def audit(events: list[ev.EventBase]) -> list[str]:
    """Every broken rule found in ``events`` (empty for a legal, finished game)."""
    problems: list[str] = []
    bad = problems.append
    if not events or not isinstance(events[0], ev.GameStarted):
        return ["the log does not start with game_started"]
    start = events[0]
    roles = {e.player: e.role for e in events if isinstance(e, ev.RoleAssigned)}
    if sorted(roles) != sorted(start.players):
        bad("role assignments do not cover the table")
    # The Mafia's side as the rules doc states it: the Mafia and the Godfather.
    mafia = {p for p, r in roles.items() if r in (Role.MAFIA, Role.GODFATHER)}
    living = list(start.players)
    overs = [e for e in events if isinstance(e, ev.GameOver)]
    if len(overs) != 1 or not isinstance(events[-1], ev.GameOver):
        bad(f"expected exactly one game_over at the end, found {len(overs)}")
    nominees: list[str] = []
    speakers: list[str] = []
    last_eliminated: str | None = None
    decided: str | None = None
    guards: dict[str, str] = {}  # tonight's guards: bodyguard -> guarded
    shots: list[str] = []  # tonight's Vigilante shots
    shot_by: set[str] = set()  # the Vigilantes who have spent their one shot
    game_won = False
    for i, e in enumerate(events):
        where = f"event {i} ({e.__class__.__name__}, round {e.round})"
        if game_won and not isinstance(e, ev.LastWords | ev.PlayerNote | ev.GameOver):
            bad(f"{where}: the game went on after it was won")
        actor = e.actor()
        if isinstance(e, ACTING) and actor is not None and actor not in living and actor != last_eliminated:
            bad(f"{where}: dead player {actor} acted")
        if isinstance(e, ev.DayStarted):
            nominees, last_eliminated = [], None
            if e.living != living:
                bad(f"{where}: living list {e.living} != {living}")
            speakers = list(e.speaking_order)
            if sorted(speakers) != sorted(living):
                bad(f"{where}: speaking order does not cover the living")
        elif isinstance(e, ev.Speech):
            if not speakers or speakers[0] != e.speaker:
                bad(f"{where}: {e.speaker} spoke out of order")
            speakers = speakers[1:]
            if e.nomination is not None:
                if e.nomination not in living or e.nomination == e.speaker:
                    bad(f"{where}: illegal nomination {e.nomination}")
                elif e.nomination not in nominees:
                    nominees.append(e.nomination)
        elif isinstance(e, ev.VoteRound):
            candidates = e.nominees
            if not e.revote and candidates != nominees:
                bad(f"{where}: nominees {candidates} != {nominees}")
            voters = [b.voter for b in e.ballots]
            if e.outcome != "no_vote" and sorted(voters) != sorted(living):
                bad(f"{where}: voters {voters} are not the living")
            for b in e.ballots:
                if b.target not in [*candidates, SKIP]:
                    bad(f"{where}: illegal ballot {b.voter}->{b.target}")
            counts = Counter(b.target for b in e.ballots)
            gone = e.eliminated
            if e.outcome == "eliminated" and gone is None:
                bad(f"{where}: an elimination that names no one")
            elif e.outcome == "eliminated" and gone is not None:
                top = counts[gone]
                if any(counts[o] >= top for o in [*candidates, SKIP] if o != gone):
                    bad(f"{where}: {gone} eliminated without a strict majority of the top")
            if e.outcome == "tie":
                nominees = list(e.tied)
        elif isinstance(e, ev.Elimination):
            if e.player not in living:
                bad(f"{where}: eliminated a dead player")
            else:
                living.remove(e.player)
            last_eliminated = e.player
            game_won = _winner(living, mafia) is not None
        elif isinstance(e, ev.LastWords):
            if e.speaker != last_eliminated:
                bad(f"{where}: last words by {e.speaker}, not the eliminated player")
        elif isinstance(e, ev.MafiaDiscussion):
            if e.speaker not in mafia:
                bad(f"{where}: non-Mafia {e.speaker} in Mafia talk")
            if e.target != SKIP and (e.target not in living or e.target in mafia):
                bad(f"{where}: illegal kill target {e.target}")
        elif isinstance(e, ev.MafiaVote):
            decided = None if e.final_target == SKIP else e.final_target
            if decided is not None and (decided not in living or decided in mafia):
                bad(f"{where}: illegal final target {decided}")
        elif isinstance(e, ev.DoctorProtection):
            if roles[e.protector] is not Role.DOCTOR or e.protected not in living:
                bad(f"{where}: illegal protection")
        elif isinstance(e, ev.NIGHT_EVENTS[Role.BODYGUARD]):
            bodyguard, guarded = e.chooser(), e.chosen()
            if roles[bodyguard] is not Role.BODYGUARD or guarded not in living or guarded == bodyguard:
                bad(f"{where}: illegal guard")
            guards[bodyguard] = guarded
        elif isinstance(e, ev.NIGHT_EVENTS[Role.VIGILANTE]):
            vigilante, shot = e.chooser(), e.chosen()
            if roles[vigilante] is not Role.VIGILANTE or shot == vigilante or shot not in [*living, SKIP]:
                bad(f"{where}: illegal shot")
            if vigilante in shot_by:
                bad(f"{where}: {vigilante} shot a second time")
            if shot != SKIP:
                shots.append(shot)
                shot_by.add(vigilante)
        elif isinstance(e, ev.Investigation):
            if roles[e.detective] is not Role.DETECTIVE or e.target not in living or e.target == e.detective:
                bad(f"{where}: illegal investigation")
            # A check shows the Mafia as Mafia; the Godfather, as every Town role, as Not Mafia.
            if (e.result == "Mafia") != (roles[e.target] is Role.MAFIA):
                bad(f"{where}: wrong investigation result")
        elif isinstance(e, ev.NightResolution):
            expected = None if decided is None or decided == e.protected else decided
            guardian = next((b for b, g in guards.items() if g == expected), None)
            if guardian is not None:  # the Bodyguard dies in the target's place, unless protected
                expected = None if guardian == e.protected else guardian
            # A Vigilante's shot kills too (one death for a player killed twice), unless the
            # Doctor saved its target; a Bodyguard does not stand in for it.
            deaths = [] if expected is None else [expected]
            deaths += [s for s in dict.fromkeys(shots) if s != e.protected and s not in deaths]
            if e.deaths != deaths:
                bad(f"{where}: deaths {e.deaths} != expected {deaths}")
            for victim in e.deaths:
                living.remove(victim)
                game_won = _winner(living, mafia) is not None
            decided, guards, shots = None, {}, []
        elif isinstance(e, ev.GameOver):
            truth = _winner(living, mafia) or "draw"
            if e.winner != truth:
                bad(f"{where}: winner {e.winner} but the table says {truth}")
            if {r.player: r.role for r in e.roles} != roles:
                bad(f"{where}: revealed roles differ from the deal")
    return problems


def _winner(living: list[str], mafia: set[str]) -> str | None:
    """The side the table says has won ("town" with no Mafia left, "mafia" at parity), or None."""
    alive_mafia = len([p for p in living if p in mafia])
    if alive_mafia == 0:
        return "town"
    if alive_mafia >= len(living) - alive_mafia:
        return "mafia"
    return None
