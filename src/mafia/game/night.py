"""The night's appliers: night zero's plans, the Doctor and Detective, the night's outcome, win
checks and the end of the game, as typed updates. The Mafia's kill is applied beside its rows in
the protocol table (mafia.game.protocol)."""

from __future__ import annotations

from mafia.game.actions import ActionKind
from mafia.game.events import (
    BodyguardGuard,
    DoctorProtection,
    GameOver,
    Investigation,
    NightResolution,
    NightZeroStrategy,
    RoleReveal,
)
from mafia.game.reading import chosen, dump, readable, seats_of, since_daybreak, table
from mafia.game.rules import SKIP, Role, resolve_night
from mafia.game.state import JSON, GameState, GameUpdate, Turn


def record_night_zero(state: GameState, turn: Turn) -> GameUpdate:
    """Record a Mafia member's night-zero strategy; the next Mafia sees it."""
    strategy = NightZeroStrategy(round=0, speaker=turn["player"], strategy=turn["text"] or "")
    queue = [q for q in state["queue"] if q != turn["player"]]
    return {"events": dump([strategy]), "queue": queue, "step": "night_zero" if queue else "day_start"}


def open_night(state: GameState) -> GameUpdate:
    """Open the night: the living Mafia queue up for Round 1."""
    return {"phase": "night", "step": "mafia_round1", "queue": table(state).with_role(Role.MAFIA)}


def _kill_target(state: GameState) -> str | None:
    for event in since_daybreak(state, "mafia_vote"):
        if event["round"] == state["round"]:
            target: str = event["final_target"]
            return None if target == SKIP else target
    return None


def night_resolution(state: GameState) -> GameUpdate:
    """Apply the Doctor's protection and the Detective's check, then the kill unless protected."""
    t = table(state)
    events: list[JSON] = []
    protected: str | None = None
    protections = [t for t in state["night_turns"] if t["action"] == ActionKind.PROTECT.value]
    investigations = [t for t in state["night_turns"] if t["action"] == ActionKind.INVESTIGATE.value]
    for turn in protections:
        protected = turn["choice"]
        event = DoctorProtection(
            round=state["round"],
            protector=turn["player"],
            protected=turn["choice"],
            reasoning=turn["reasoning"],
        )
        events += [*dump([event])]
    for turn in investigations:
        target = chosen(turn)
        check = Investigation(
            round=state["round"],
            detective=turn["player"],
            target=target,
            result="Mafia" if t.role(target) is Role.MAFIA else "Not Mafia",
            reasoning=turn["reasoning"],
        )
        events += [*dump([check])]
    guards: dict[str, str] = {}
    for turn in state["night_turns"]:
        if turn["action"] == ActionKind.GUARD.value:
            guards[turn["player"]] = guarded = chosen(turn)
            guard = BodyguardGuard(
                round=state["round"], bodyguard=turn["player"], guarded=guarded, reasoning=turn["reasoning"]
            )
            events += dump([guard])
    intended = _kill_target(state)
    saved = {turn["choice"] for turn in protections}
    actual = resolve_night(intended, intended if intended in saved else protected, guards)
    events += dump(
        [
            NightResolution(
                round=state["round"],
                actual_kill=actual,
                intended_kill=intended,
                protected=protected,
            )
        ]
    )
    dead = [*state["dead"], actual] if actual is not None else state["dead"]
    return readable(state, {"events": events, "dead": dead, "night_turns": [], "step": "check_win"})


def check_win(state: GameState) -> GameUpdate:
    """After a death: Town wins with no Mafia left, Mafia at parity; otherwise a day is followed
    by night and a night by day."""
    winner = table(state).winner()
    if winner is not None:
        return readable(state, {"winner": winner, "step": "game_over"})
    return readable(state, {"step": "night_start" if state["phase"] == "day" else "day_start"})


REASONS = {
    "town": "every Mafia member has been eliminated",
    "mafia": "the Mafia reached parity with the rest of the town",
    "draw": "the round cap was reached",
}


def game_over(state: GameState) -> GameUpdate:
    """End the game: the winner, why, and every role revealed."""
    winner = state["winner"] or "draw"
    reveal = [RoleReveal(player=s.name, role=s.role) for s in seats_of(state)]
    event = GameOver(round=state["round"], winner=winner, reason=REASONS[winner], roles=reveal)
    return readable(state, {"events": dump([event]), "winner": winner, "step": "game_over"})
