"""Leak audit over 200 seeded house-model games: canaries planted in every private answer field.

A wrapper around the house model writes a unique canary into each answer's private fields
(observations, strategy, reasoning, pattern notes, suspicion reasons, Mafia messages and night-zero
plans). Every prompt of every game is then searched: a canary may appear only in prompts of the
players entitled to the field it was planted in, and the entitled players' later prompts must show
the fields the engine promises to show them (own reasoning and notes, the team's plans and messages).
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from fakes import read_ask, table_size
from mafia.events import parse_event, roles_from_log
from mafia.models.house import HouseModel
from mafia.rules import Role
from mafia.runner import run_game

CANARY = re.compile(r"CANARY\d{7}X")
MAFIA_ACTIONS = {"night_zero", "mafia_round1", "mafia_round2", "night_kill"}
TEAM_TEXT = {"night_zero": "plan", "mafia_round1": "message"}


@dataclass(frozen=True)
class Plant:
    """One planted canary: who wrote it, in which answer field, on which call."""

    player: str
    action: str
    field: str
    call: int


class CanaryHouseModel(HouseModel):
    """The house model, with a fresh canary written into every private field of each answer."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _counter: Any = PrivateAttr(default_factory=itertools.count)
    _plants: dict[str, Plant] = PrivateAttr(default_factory=dict)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        result = super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        message = result.generations[0].message
        assert isinstance(message, AIMessage) and message.tool_calls
        ask = read_ask(messages)
        player, action = ask.player, ask.action
        args = dict(message.tool_calls[0]["args"])
        with self._lock:
            call = next(self._counter)

            def plant(field: str) -> str:
                canary = f"CANARY{next(self._counter):07d}X"
                self._plants[canary] = Plant(player, action, field, call)
                return canary

            for field in ("observations", "strategy", "reasoning"):
                if field in args:
                    args[field] = f"{args[field]} {plant(field)}"
            team_text = TEAM_TEXT.get(action)  # the text of these actions is shown to the team only
            if team_text and isinstance(args.get("text"), str):
                args["text"] = f"{args['text']} {plant(team_text)}"
            args["pattern_notes"] = [*args.get("pattern_notes", []), plant("pattern_notes")]
            if args.get("suspicions"):
                first = dict(args["suspicions"][0])
                first["reasoning"] = f"{first['reasoning']} {plant('suspicion')}"
                args["suspicions"] = [first, *args["suspicions"][1:]]
        call_out = {**message.tool_calls[0], "args": args}
        new = AIMessage(content="", tool_calls=[call_out], usage_metadata=message.usage_metadata)
        return ChatResult(generations=[ChatGeneration(message=new)])

    @property
    def plants(self) -> dict[str, Plant]:
        return self._plants


def entitled(plant: Plant, roles: dict[str, Role]) -> set[str]:
    """Who may ever read a planted field: its author, and the whole Mafia for team fields."""
    mafia = {p for p, r in roles.items() if r is Role.MAFIA}
    if plant.field in ("message", "plan"):
        return mafia
    if plant.field == "reasoning" and plant.action in MAFIA_ACTIONS:
        return mafia  # Mafia talk carries the speaker's reasoning to the team's log
    return {plant.player}


def must_show(plant: Plant, roles: dict[str, Role]) -> set[str]:
    """Who must see the field again on their next turn: own reasoning and notes; the team's plans."""
    if plant.field in ("reasoning", "pattern_notes"):
        return {plant.player}
    if plant.field == "plan":
        return {p for p, r in roles.items() if r is Role.MAFIA}
    return set()


def _audit_game(seed: int, players: int) -> tuple[list[str], int]:
    model = CanaryHouseModel(seed=seed)
    records: list[dict[str, Any]] = []
    state = run_game({"seed": seed, "players": players}, model=model, on_prompt=records.append)
    roles = roles_from_log([parse_event(e) for e in state["events"]])
    plants = model.plants
    problems: list[str] = []
    shown: dict[str, set[str]] = defaultdict(set)  # canary -> players whose prompts showed it
    for record in records:
        viewer = record["player"]
        for canary in set(CANARY.findall(record["system"] + record["user"])):
            plant = plants[canary]
            if viewer not in entitled(plant, roles):
                problems.append(f"seed {seed}: {viewer} saw {plant.player}'s {plant.field} ({plant.action})")
            shown[canary].add(viewer)
    for canary, plant in plants.items():
        for viewer in must_show(plant, roles):
            if _has_later_prompt(plant, viewer, plants) and viewer not in shown[canary]:
                problems.append(f"seed {seed}: {viewer} never saw {plant.player}'s {plant.field}")
    return problems, len(records)


def _has_later_prompt(plant: Plant, viewer: str, plants: dict[str, Plant]) -> bool:
    """Whether ``viewer`` was asked anything after the call that planted ``plant``."""
    return any(p.player == viewer and p.call > plant.call for p in plants.values())


GAMES = [(seed, table_size(seed)) for seed in range(200)]


@pytest.mark.parametrize("chunk", range(8))
def test_no_canary_reaches_an_unentitled_prompt(chunk: int) -> None:
    problems: list[str] = []
    prompts = 0
    for seed, players in GAMES[chunk::8]:
        found, n = _audit_game(seed, players)
        problems += found
        prompts += n
    assert prompts > 0
    assert problems == [], "\n".join(problems[:20])


def test_games_cover_every_table_size() -> None:
    assert {players for _, players in GAMES} == set(range(5, 17))
