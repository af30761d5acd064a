"""Turn nodes: each asks one player (or every player of a simultaneous step) for a decision, runs
the player subgraph on it and applies the result, all in one graph step.

A turn node is an ordinary node: it reads the game state, so the log reaches the player subgraph
without being copied into any checkpoint. Its requests carry the legal options the rules compute
here, once; the prompt lists them and ``commit`` checks the answer against them. Simultaneous
turns run at once, one task each, and are applied in seat order, so completion order never
matters. Each node's function holds the player subgraph itself, which is how Studio's drawing
(``get_graph(xray=True)``) finds and expands it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from mafia.actions import ActionKind
from mafia.nodes.common import readable, request, table
from mafia.nodes.day import record_defense, record_last_words, record_night_zero, record_speech, tally
from mafia.nodes.night import open_night, record_round1, record_round2
from mafia.nodes.player import PLAYER_GRAPH, Turn, play, play_all
from mafia.prompt_pack import last_record, pack_all
from mafia.rules import (
    Role,
    ballot_options,
    investigation_targets,
    night_kill_targets,
    nomination_targets,
    protection_targets,
)
from mafia.run_record import run_of
from mafia.runtime import GameContext
from mafia.state import JSON, GameState, TurnRequest

Node = Callable[[GameState, Runtime[GameContext]], dict[str, Any]]
ApplyTurn = Callable[[GameState, JSON], dict[str, Any]]
ApplyTurns = Callable[[GameState, list[JSON]], dict[str, Any]]


def _base(state: GameState) -> JSON | None:
    """The game's last whole prompt record before this step (what the step's records pack against)."""
    return last_record(state["game_id"], state["prompts"])


def _written(
    state: GameState, played: list[Turn], update: dict[str, Any], base: JSON | None
) -> dict[str, Any]:
    """The node's update: the players' own events (seat order) before what applying them logged,
    the turns' prompt records (packed against ``base``), and the readable fields."""
    events = [e for _, own, _ in played for e in own]
    prompts = pack_all([r for _, _, r in played], base)
    return readable(state, {**update, "events": [*events, *update.get("events", [])], "prompts": prompts})


def sequential(ask: Callable[[GameState], TurnRequest], apply: ApplyTurn) -> Node:
    """A node playing one player's turn (``ask`` says whose and what) and applying it at once."""
    graph = PLAYER_GRAPH

    def sequential_turn(state: GameState, runtime: Runtime[GameContext]) -> dict[str, Any]:
        run = run_of(state, runtime.context)
        played = play(graph, state["game_id"], state["events"], ask(state), run.context)
        return run.applied(_written(state, [played], apply(state, played[0]), _base(state)))

    sequential_turn.__doc__ = f"One player's turn, applied by ``{apply.__name__}``."
    return sequential_turn


def simultaneous(ask: Callable[[GameState], list[TurnRequest]], apply: ApplyTurns) -> Node:
    """A node playing every asked player's turn at once and applying them in seat order."""
    graph = PLAYER_GRAPH

    def simultaneous_turns(state: GameState, runtime: Runtime[GameContext]) -> dict[str, Any]:
        run = run_of(state, runtime.context)
        base = _base(state)
        played = play_all(graph, state["game_id"], state["events"], ask(state), base, run.context)
        return run.applied(_written(state, played, apply(state, [turn for turn, _, _ in played]), base))

    simultaneous_turns.__doc__ = f"Every asked player's turn at once, applied by ``{apply.__name__}``."
    return simultaneous_turns


# ---- what each step asks -------------------------------------------------------------------


def ask_night_zero(state: GameState) -> TurnRequest:
    """The next Mafia member's night-zero plan (each sees the earlier plans)."""
    return request(state, state["queue"][0], ActionKind.NIGHT_ZERO, [])


def ask_speech(state: GameState) -> TurnRequest:
    """The next speaker, who may nominate any other living player."""
    speaker = state["queue"][0]
    return request(state, speaker, ActionKind.SPEAK, nomination_targets(table(state).living, speaker))


def ask_defense(state: GameState) -> TurnRequest:
    """The next tied player's defense."""
    return request(state, state["queue"][0], ActionKind.DEFENSE, [])


def ask_last_words(state: GameState) -> TurnRequest:
    """The eliminated player's last words (told when the elimination ends the game)."""
    player = state["pending_last_words"]
    assert player is not None, "last words follow an elimination"
    ends = table(state).winner() is not None
    return request(state, player, ActionKind.LAST_WORDS, [], game_over=ends)


def _kill_targets(state: GameState) -> list[str]:
    t = table(state)
    return night_kill_targets(t.living, t.with_role(Role.MAFIA))


def ask_round1(state: GameState) -> TurnRequest:
    """The next Mafia member's Round 1 proposal (each sees the earlier ones)."""
    return request(state, state["queue"][0], ActionKind.MAFIA_ROUND1, _kill_targets(state))


def ask_ballots(action: ActionKind) -> Callable[[GameState], list[TurnRequest]]:
    """Every living player's ballot among today's nominees (or the tied players); no nominee, no
    ballots."""

    def ask(state: GameState) -> list[TurnRequest]:
        if not state["nominees"]:
            return []
        options = ballot_options(state["nominees"])
        return [request(state, p, action, options) for p in table(state).living]

    return ask


def ask_round2(state: GameState) -> list[TurnRequest]:
    """Every living Mafia member's Round 2 choice, at once."""
    targets = _kill_targets(state)
    return [request(state, m, ActionKind.MAFIA_ROUND2, targets) for m in table(state).with_role(Role.MAFIA)]


def tally_vote(state: GameState, turns: list[JSON]) -> dict[str, Any]:
    return tally(state, ActionKind.VOTE, turns)


def tally_revote(state: GameState, turns: list[JSON]) -> dict[str, Any]:
    return tally(state, ActionKind.REVOTE, turns)


night_zero = sequential(ask_night_zero, record_night_zero)
speak = sequential(ask_speech, record_speech)
defense = sequential(ask_defense, record_defense)
last_words = sequential(ask_last_words, record_last_words)
mafia_round1 = sequential(ask_round1, record_round1)
vote = simultaneous(ask_ballots(ActionKind.VOTE), tally_vote)
revote = simultaneous(ask_ballots(ActionKind.REVOTE), tally_revote)
mafia_round2 = simultaneous(ask_round2, record_round2)


def night_start(state: GameState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Open the night and play its first turns at once: the first Mafia member's Round 1 proposal
    (a lone Mafia's direct choice), the Doctor's protection and the Detective's check. The Doctor's
    and Detective's turns wait in ``night_turns`` until the night resolves."""
    graph = PLAYER_GRAPH
    opened = open_night(state)
    night = GameState(**{**state, **opened})  # type: ignore[typeddict-item]
    t = table(night)
    mafia = t.with_role(Role.MAFIA)
    kind = ActionKind.NIGHT_KILL if len(mafia) == 1 else ActionKind.MAFIA_ROUND1
    asked = [request(night, mafia[0], kind, _kill_targets(night))]
    asked += [
        request(night, d, ActionKind.PROTECT, protection_targets(t.living)) for d in t.with_role(Role.DOCTOR)
    ]
    asked += [
        request(night, d, ActionKind.INVESTIGATE, investigation_targets(t.living, d))
        for d in t.with_role(Role.DETECTIVE)
    ]
    base = _base(state)
    run = run_of(state, runtime.context)
    played = play_all(graph, state["game_id"], state["events"], asked, base, run.context)
    (kill, own, _), others = played[0], played[1:]
    update = {**opened, **record_round1(night, kill)}
    events = [*own, *update["events"], *(e for _, theirs, _ in others for e in theirs)]
    update |= {"events": events, "prompts": pack_all([r for _, _, r in played], base)}
    return run.applied(readable(state, {**update, "night_turns": [turn for turn, _, _ in others]}))
