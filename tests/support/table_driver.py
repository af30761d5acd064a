"""Games of the reference game (mafia.game.play) whose players are plain functions, without LangGraph.

Each answer goes through the engine's own answer check and turn finish (``check_answer``,
``finish_turn``), so the log holds the same events a graph game would. Prompts are rendered only
when asked for (the leak audit reads them); without them a game takes milliseconds, so the sweeps
can play thousands.
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from mafia.context.builder import build_context
from mafia.context.policy import DEFAULT_POLICY, POLICIES, ContextPolicy
from mafia.game.actions import ActionKind, TextLimits, empty_answer
from mafia.game.deal import deal
from mafia.game.play import play
from mafia.game.state import JSON, GameState, StepName, Turn, TurnRequest
from mafia.nodes.common import parsed_log
from mafia.nodes.player import check_answer, finish_turn
from mafia.records.call_records import Attempt
from mafia.run.settings import config_from_input, game_id_for
from mafia.turn.state import FinishedTurn, turn_of

Answer = Callable[[TurnRequest, JSON], JSON]
"""Answers a request: the request and its rendered prompt (``system`` and ``user``, empty when
prompts are off) give the answer's fields (``text``, ``choice``, the reasoning fields...)."""

NO_PROMPT: JSON = {"system": "", "user": "", "tokens": {}, "total_tokens": 0, "trimmed": []}


@dataclass
class TableGame:
    """One finished game: its final state, the steps it took in order, and its prompt records."""

    state: GameState
    path: list[StepName] = field(default_factory=list)
    records: list[JSON] = field(default_factory=list)

    @property
    def events(self) -> list[JSON]:
        return self.state["events"]


def sweep_setup(seed: int) -> dict[str, Any]:
    """The setup of sweep game ``seed``: every table size in turn, and one game in 25 capped at two
    rounds, so the sweep also takes the round cap's draw."""
    setup: dict[str, Any] = {"seed": seed, "players": 5 + seed % 12}
    if seed % 25 == 24:
        setup["round_cap"] = 2
    return setup


class Picker:
    """A seeded random legal player that a graph game and a driver game both follow exactly: a
    choice depends only on the seed, the player, the action, the player's count of calls of that
    action and the options, never on the order in which simultaneous turns run."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.calls: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()

    def pick(self, player: str, action: str, options: list[str]) -> str | None:
        with self.lock:
            n = self.calls[(player, action)]
            self.calls[(player, action)] += 1
        roll = int.from_bytes(hashlib.sha256(f"{self.seed}:{player}:{action}:{n}".encode()).digest()[:8])
        if not options or (action == ActionKind.SPEAK.value and roll % 10 >= 7):
            return None
        return options[roll % len(options)]

    def answer(self, request: TurnRequest, prompt: JSON) -> JSON:
        """The driver's answer: what ``fakes.ScriptedModel`` fills in around the same choice."""
        fields = {name: f"{name} noted." for name in ("observations", "strategy", "reasoning")}
        arrays: JSON = {name: [] for name in ("suspicions", "relationships", "pattern_notes")}
        choice = self.pick(request["player"], request["action"], request["options"])
        return {**fields, **arrays, "text": f"{request['player']} speaks.", "choice": choice, "claim": None}


def random_answer(seed: int) -> Answer:
    """A random legal player, seeded by the game seed and the request: any option (a speech
    nominates in seven cases of ten), a short text, empty reasoning fields."""

    def answer(request: TurnRequest, prompt: JSON) -> JSON:
        rng = random.Random(hashlib.sha256(f"{seed}:{request['id']}".encode()).digest())
        choice = rng.choice(request["options"]) if request["options"] else None
        if request["action"] == ActionKind.SPEAK.value and rng.random() >= 0.7:
            choice = None
        return {**empty_answer(), "text": f"{request['player']} speaks.", "choice": choice}

    return answer


def _prompt(state: GameState, request: TurnRequest, policy: ContextPolicy) -> JSON:
    rendered = build_context(
        parsed_log(state["game_id"], state["events"]),
        request["player"],
        ActionKind(request["action"]),
        policy,
        game_over=request["game_over"],
        options=request["options"],
    )
    return {
        "system": rendered.system,
        "user": rendered.user,
        "tokens": dict(rendered.token_counts()),
        "total_tokens": rendered.total_tokens,
        "trimmed": list(rendered.trimmed),
    }


def play_turn(
    state: GameState, request: TurnRequest, answer: Answer, prompt: JSON, limits: TextLimits
) -> FinishedTurn:
    """One answered turn, checked and finished as the player subgraph does: the turn with its
    player's own events and its prompt record (a driver's player is legal: a rejected answer is a
    driver fault)."""
    given = answer(request, prompt)
    choice, rejection = check_answer(ActionKind(request["action"]), given, request["options"])
    assert rejection is None, f"{request['id']}: {rejection.error}"
    # A driver's answer is no model call: nothing billed, so no token fields in its record.
    attempts = [cast(Attempt, {"raw": "", "error": None, "kind": None})]
    turn_state: Any = {"request": request, "answer": given, "prompt": prompt}
    turn = finish_turn(turn_state, choice, None, attempts, limits)
    turn["prompt_record"] = {"game_id": state["game_id"], **turn["prompt_record"]}
    return turn


def play_table(
    setup: Mapping[str, Any],
    answer: Answer,
    *,
    prompts: bool = False,
    policy: ContextPolicy | None = None,
    limits: TextLimits | None = None,
) -> TableGame:
    """Play one game from ``setup`` over the table, every turn answered by ``answer``."""
    policy = policy or POLICIES[DEFAULT_POLICY]  # the graph's default
    limits = limits or TextLimits()
    records: list[JSON] = []

    def turn(state: GameState, request: TurnRequest) -> tuple[Turn, list[JSON]]:
        prompt = _prompt(state, request, policy) if prompts else NO_PROMPT
        finished = play_turn(state, request, answer, prompt, limits)
        records.append(dict(finished["prompt_record"]))
        return turn_of(finished), finished["events"]

    config = config_from_input(setup)
    played = play(deal(config, game_id_for(setup, config)), turn)
    return TableGame(played.state, played.path, records)
