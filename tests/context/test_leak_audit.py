"""Leak audit over 200 seeded house-model games played over the protocol table, and a sample of
them through the graph: canaries planted in every private answer field.

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

from audit import audit
from fakes import read_ask, table_size
from mafia.context.builder import prompt_messages
from mafia.context.policy import POLICIES
from mafia.game.actions import Answer
from mafia.game.events import parse_event, roles_from_log
from mafia.game.rules import Role
from mafia.game.state import TurnRequest
from mafia.models.house import HouseModel
from mafia.play.runner import run_game
from sampling import sampled
from table_driver import play_table

CANARY = re.compile(r"CANARY\d{7}X")
# The policy that shows the most of a player's own memory (notes, plans, reasons), so that every
# canary has prompts it must reach as well as prompts it must not.
AUDITED = POLICIES["seed-window"]
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
    """Who may ever read a planted field: the whole Mafia for the team's plans and messages, the
    author alone for everything else (a Mafia member's reasoning never reaches its partners)."""
    if plant.field in ("message", "plan"):
        return {p for p, r in roles.items() if r is Role.MAFIA}
    return {plant.player}


def must_show(plant: Plant, roles: dict[str, Role]) -> set[str]:
    """Who must see the field again on their next turn: own reasoning and notes; the team's plans."""
    if plant.field in ("reasoning", "pattern_notes"):
        return {plant.player}
    if plant.field == "plan":
        return {p for p, r in roles.items() if r is Role.MAFIA}
    return set()


def audit_records(
    seed: int, records: list[dict[str, Any]], plants: dict[str, Plant], roles: dict[str, Role]
) -> list[str]:
    """What a game's prompt records leaked (a canary in an unentitled prompt) or failed to show
    (an entitled player's later prompts without the field)."""
    problems: list[str] = []
    shown: dict[str, set[str]] = defaultdict(set)  # canary -> players whose prompts showed it
    for record in records:
        viewer = record["player"]
        for canary in set(CANARY.findall(record["system"] + record["user"])):
            plant = plants[canary]
            if viewer not in entitled(plant, roles):
                problems.append(f"seed {seed}: {viewer} saw {plant.player}'s {plant.field} ({plant.action})")
            shown[canary].add(viewer)
    last_call: dict[str, int] = {}  # each player's last call: whether a later prompt came
    for plant in plants.values():
        last_call[plant.player] = max(plant.call, last_call.get(plant.player, plant.call))
    for canary, plant in plants.items():
        for viewer in must_show(plant, roles):
            if last_call.get(viewer, -1) > plant.call and viewer not in shown[canary]:
                problems.append(f"seed {seed}: {viewer} never saw {plant.player}'s {plant.field}")
    return problems


def _audit_game(seed: int, players: int) -> tuple[list[str], int]:
    """One game through the graph, audited."""
    model = CanaryHouseModel(seed=seed)
    records: list[dict[str, Any]] = []
    state = run_game(
        {"seed": seed, "players": players}, model=model, policy=AUDITED, on_prompt=records.append
    )
    roles = roles_from_log([parse_event(e) for e in state["events"]])
    return audit_records(seed, records, model.plants, roles), len(records)


def _audit_table_game(seed: int, players: int, **setup: Any) -> tuple[list[str], int]:
    """One game over the protocol table (no LangGraph), the same canary model answering, audited.

    The model is called as structured output calls it (with the tools it binds), without
    LangChain's run machinery around the call, which is no part of what reaches a prompt and took
    a quarter of the audit's time.
    """
    model = CanaryHouseModel(seed=seed)
    binding = model.with_structured_output(Answer).first  # type: ignore[attr-defined]
    bound = {k: v for k, v in binding.kwargs.items() if k != "ls_structured_output_format"}

    def answer(request: TurnRequest, prompt: dict[str, Any]) -> dict[str, Any]:
        message = model._generate(prompt_messages(prompt), **bound).generations[0].message
        assert isinstance(message, AIMessage)
        return Answer.model_validate(message.tool_calls[0]["args"]).model_dump(mode="json")

    game = play_table({"seed": seed, "players": players, **setup}, answer, prompts=True, policy=AUDITED)
    events = [parse_event(e) for e in game.events]
    roles = roles_from_log(events)
    return [*audit(events), *audit_records(seed, game.records, model.plants, roles)], len(game.records)


# Every game over the table; a sample of them through the graph, which renders the same prompts
# (tests/game/test_table_driver.py shows the driver writes the graph's log and prompts).
GAMES = [(seed, table_size(seed)) for seed in range(200)]
GRAPH_SAMPLE = GAMES[::13]
CHUNKS = 10  # short tests, so both workers stay busy to the end of the run


# The first chunk (12 games, every table size once) in the default run; the other 188 games, in
# CHUNKS more, with -m slow.
TABLE_CHUNKS = [GAMES[:12], *(GAMES[12:][c::CHUNKS] for c in range(CHUNKS))]


@pytest.mark.parametrize("chunk", sampled(len(TABLE_CHUNKS), 1))
def test_no_canary_reaches_an_unentitled_prompt_over_the_table(chunk: int) -> None:
    problems: list[str] = []
    prompts = 0
    for seed, players in TABLE_CHUNKS[chunk]:
        found, n = _audit_table_game(seed, players)
        problems += found
        prompts += n
    assert prompts > 0
    assert problems == [], "\n".join(problems[:20])


# Chunk 0 (every other table size, 5 to 15) in the default run, chunk 1 with -m slow.
@pytest.mark.parametrize("chunk", sampled(2, 1))
def test_no_canary_reaches_an_unentitled_prompt_through_the_graph(chunk: int) -> None:
    problems: list[str] = []
    prompts = 0
    for seed, players in GRAPH_SAMPLE[chunk::2]:
        found, n = _audit_game(seed, players)
        problems += found
        prompts += n
    assert prompts > 0
    assert problems == [], "\n".join(problems[:20])


BODYGUARD_GAMES = GAMES[:36]


# The first 12 games (every table size once) in the default run, the other 24 with -m slow.
@pytest.mark.parametrize("chunk", sampled(3, 1))
def test_no_canary_reaches_an_unentitled_prompt_with_the_bodyguard(chunk: int) -> None:
    """House games with one Bodyguard dealt, at every table size: legal to the end, and the
    Bodyguard's guard reasoning reaches its prompts alone."""
    problems: list[str] = []
    for seed, players in BODYGUARD_GAMES[12 * chunk : 12 * (chunk + 1)]:
        found, n = _audit_table_game(seed, players, roles={"bodyguard": 1})
        assert n > 0
        problems += found
    assert problems == []


def test_the_audit_reports_a_partners_reasoning_in_a_prompt() -> None:
    """A planted fault: one Mafia member's reasoning canary in its partner's prompt is a leak."""
    roles = {"Ann": Role.MAFIA, "Bob": Role.MAFIA, "Cy": Role.TOWN}
    plants = {
        "CANARY0000001X": Plant("Ann", "mafia_round1", "reasoning", 1),
        "CANARY0000002X": Plant("Ann", "mafia_round1", "message", 1),
    }
    records = [
        {"player": "Ann", "system": "", "user": "CANARY0000001X CANARY0000002X"},
        {"player": "Bob", "system": "", "user": "CANARY0000001X CANARY0000002X"},
    ]
    assert audit_records(0, records, plants, roles) == ["seed 0: Bob saw Ann's reasoning (mafia_round1)"]


def test_the_audit_reports_own_reasoning_missing_from_a_later_prompt() -> None:
    """A planted fault: a player asked again whose later prompt lacks its own reasoning."""
    roles = {"Ann": Role.TOWN, "Bob": Role.MAFIA}
    plants = {
        "CANARY0000001X": Plant("Ann", "speak", "reasoning", 1),
        "CANARY0000002X": Plant("Ann", "vote", "reasoning", 2),
    }
    records = [{"player": "Ann", "system": "", "user": "no reasoning shown"}]
    assert audit_records(0, records, plants, roles) == ["seed 0: Ann never saw Ann's reasoning"]


def test_games_cover_every_table_size() -> None:
    """The whole sweep and its default sample, over the table and through the graph."""
    assert {players for _, players in GAMES} == set(range(5, 17))
    assert {players for _, players in TABLE_CHUNKS[0]} == set(range(5, 17))
    assert sorted(game for chunk in TABLE_CHUNKS for game in chunk) == GAMES
    assert {players for _, players in BODYGUARD_GAMES[:12]} == set(range(5, 17))
    assert {players for _, players in GRAPH_SAMPLE} >= {5, 8, 11, 14}
    assert {players for _, players in GRAPH_SAMPLE[0::2]} >= {5, 7, 9, 11, 13, 15}
