"""The night's appliers: night zero's plans, each role's own night choice as its ``ROLES`` row says,
the night's outcome, win checks and the end of the game, as typed updates. The Mafia's kill is
applied beside its rows in the protocol table (mafia.game.protocol)."""

from __future__ import annotations

from mafia.game.events import GameOver, NightResolution, NightZeroStrategy, RoleReveal, night_event
from mafia.game.reading import chosen, dump, readable, seats_of, since_daybreak, table
from mafia.game.rules import NIGHT_ROLES, ROLES, SKIP, NightChoice, Role, resolve_night, saves
from mafia.game.state import JSON, GameState, GameUpdate, Turn


def record_night_zero(state: GameState, turn: Turn) -> GameUpdate:
    """Record a Mafia member's night-zero strategy; the next Mafia sees it."""
    strategy = NightZeroStrategy(round=0, speaker=turn["player"], strategy=turn["text"] or "")
    queue = [q for q in state["queue"] if q != turn["player"]]
    return {"events": dump([strategy]), "queue": queue, "step": "night_zero" if queue else "day_start"}


def open_night(state: GameState) -> GameUpdate:
    """Open the night: the living Mafia queue up for Round 1."""
    return {"phase": "night", "step": "mafia_round1", "queue": table(state).mafia()}


def has_uses_left(state: GameState, role: Role, player: str) -> bool:
    """Whether ``player`` may still use ``role``'s night action: a role of limited ``uses`` has
    used it on as many nights as its night events in the log say (a night it skipped uses none)."""
    spec = ROLES[role]
    if spec.uses is None or spec.night is None:
        return True
    night, (actor, target) = spec.night, spec.night.fields
    used = sum(
        1
        for e in state["events"]
        if e["type"] == night.event and e.get(actor) == player and e.get(target) != SKIP
    )
    return used < spec.uses


def _kill_target(state: GameState) -> str | None:
    for event in since_daybreak(state, "mafia_vote"):
        if event["round"] == state["round"]:
            target: str = event["final_target"]
            return None if target == SKIP else target
    return None


def night_resolution(state: GameState) -> GameUpdate:
    """Log each role's night choice in waking order (what its holder learned included), then the
    night's deaths: the Mafia's kill as the choices' effects leave it and any role's own shot
    (``resolve_night``)."""
    t = table(state)
    events: list[JSON] = []
    choices: list[NightChoice] = []
    shots: list[str] = []
    for role in NIGHT_ROLES:
        spec = ROLES[role]
        night = spec.night
        assert night is not None and spec.night_action is not None
        for turn in state["night_turns"]:
            if turn["action"] != spec.night_action.value:
                continue
            target = chosen(turn)
            learned = night.learns(t.role(target)) if night.learns is not None else None
            events += dump(
                [night_event(role, state["round"], turn["player"], target, turn["reasoning"], learned)]
            )
            if night.effect is not None:
                choices.append(NightChoice(turn["player"], target, night.effect))
            if night.shoots:
                shots.append(target)
    intended = _kill_target(state)
    # The log's record of the night's protection: the last save.
    protected = next((c.chosen for c in reversed(choices) if c.effect is saves), None)
    deaths = resolve_night(intended, choices, shots)
    events += dump(
        [
            NightResolution(
                round=state["round"],
                deaths=deaths,
                intended_kill=intended,
                protected=protected,
            )
        ]
    )
    dead = [*state["dead"], *deaths]
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
