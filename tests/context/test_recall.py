"""Recall inside a turn: what a search may return (only what its player may see), the tool loop of
the player subgraph (its messages end with the turn; a third search is refused), pruned beliefs
coming back through recall, and the house model searching when an old fact is gone from its prompt.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, ToolMessage

from fact_presence import capture_prompts
from fakes import Ask, ScriptedModel, Searcher
from fakes.openai_server import openai_server
from mafia.context import ContextPolicy
from mafia.context.beliefs import COLD_TURNS
from mafia.context.memory import ARCHIVED_NOTE
from mafia.context.policy import policy_by_name
from mafia.context.recall import MAX_RECALLS, REFUSED, documents, search
from mafia.context.record import read_view
from mafia.context.views import player_view
from mafia.game.events import DayStarted, EventBase, MafiaDiscussion, RoleAssigned, parse_event
from mafia.game.rules import SKIP, Role
from mafia.models.house import HouseModel
from mafia.models.house.recalling import OLD_FACTS_GONE
from mafia.models.settings import ModelSettings
from mafia.nodes.player import PLAYER_GRAPH
from mafia.play.runner import run_game
from mafia.replay.prompts import turn_calls

RECALLING = ContextPolicy(recall=True)


def canary_script(ask: Ask) -> dict[str, Any]:
    """Every private text carries its writer's canary: thoughts and Mafia talk and plans."""
    secret = f"secret{ask.player.split()[-1]}x"
    fields: dict[str, Any] = {
        "reasoning": f"{secret} reasoning",
        "strategy": f"{secret} plan",
        "pattern_notes": [f"{secret} note"],
        "text": f"{ask.player} speaks openly.",
    }
    if ask.action in ("mafia_round1", "night_zero"):
        fields["text"] = f"mafiatalk{ask.player.split()[-1]}x tonight"
    if ask.action in (
        "vote",
        "revote",
        "mafia_round1",
        "mafia_round2",
        "night_kill",
        "protect",
        "investigate",
    ):
        fields["choice"] = next((t for t in ask.targets if t != SKIP), SKIP)
    return fields


def _unquoted(line: str) -> str:
    return re.sub(r'"[^"]*"', '""', line)


def _leaks(events: list[EventBase], player: str, roles: dict[str, Role]) -> list[str]:
    """What ``player``'s recall documents hold that they may not see."""
    me = roles[player]
    docs = documents(read_view(player_view(events, player), player))
    lines = [d.line for d in docs]
    found: list[str] = []
    dead = {d for e in events if isinstance(e, DayStarted) for d in e.night_deaths}
    for line in lines:
        for other in re.findall(r"secret(\d+)x", line):
            if f"Player {other}" != player:
                found.append(f"thought of Player {other}: {line}")
        if me is not Role.MAFIA and re.search(r"mafiatalk\d+x|team (talk|plan|chose)", line):
            found.append(f"Mafia talk: {line}")
        if me is not Role.DETECTIVE and "you checked" in line:
            found.append(f"investigation: {line}")
        if me is not Role.DOCTOR and "you protected" in line:
            found.append(f"protection: {line}")
        for name in dead:
            if re.search(rf"{name}\W+(is|was|as)\W+{roles[name].value}", _unquoted(line)):
                found.append(f"role of the dead {name}: {line}")
    # Searching for every canary finds nothing the player may not see either.
    for query in [f"secret{n}x" for n in range(1, 13)] + ["mafiatalk team talk", "checked Mafia"]:
        hits = search(docs, query)
        for hit in hits:
            if re.search(r"secret(\d+)x", hit.line) and f"secret{player.split()[-1]}x" not in hit.line:
                found.append(f"search {query!r}: {hit.line}")
    return found


@functools.cache
def canary_game(seed: int, players: int) -> list[EventBase]:
    """The log of a canary-writing game under recall, played once in a test process."""
    state = run_game(
        {"seed": seed, "players": players}, model=ScriptedModel(script=canary_script), policy=RECALLING
    )
    return [parse_event(e) for e in state["events"]]


@pytest.mark.parametrize(
    ("seed", "players"),
    [(21, 7), pytest.param(22, 12, marks=pytest.mark.slow)],  # 12 seats: -m slow
)
def test_recall_never_returns_what_its_player_may_not_see(seed: int, players: int) -> None:
    events = canary_game(seed, players)
    roles = {e.player: e.role for e in events if isinstance(e, RoleAssigned)}
    days = [i for i, e in enumerate(events) if isinstance(e, DayStarted)]
    assert len(days) >= 2 and any(isinstance(e, MafiaDiscussion) for e in events)
    checked = 0
    for cut in (days[len(days) // 2], len(events) - 1):  # mid-game (the dead's roles hidden) and the end
        for player in roles:
            assert _leaks(events[:cut], player, roles) == []
            checked += 1
    # The canaries are there to be found by those who may see them: the check can fail.
    mafia = next(p for p, r in roles.items() if r is Role.MAFIA)
    own = documents(read_view(player_view(events, mafia), mafia))
    assert any("mafiatalk" in d.line for d in own) and any(
        f"secret{mafia.split()[-1]}x" in d.line for d in own
    )
    assert checked == 2 * players


def test_the_leak_check_fails_on_documents_built_without_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    events = canary_game(21, 7)
    roles = {e.player: e.role for e in events if isinstance(e, RoleAssigned)}
    town = next(p for p, r in roles.items() if r is Role.TOWN)
    monkeypatch.setattr(__import__(__name__), "player_view", lambda log, _: list(log))
    found = _leaks(events, town, roles)
    assert any(f.startswith("Mafia talk") for f in found) and any(
        f.startswith("investigation") for f in found
    )


def _play(model: Searcher, policy: ContextPolicy = RECALLING, players: int = 7) -> dict[str, Any]:
    return run_game({"seed": 5, "players": players}, model=model, policy=policy)


def test_tool_messages_do_not_survive_the_turn() -> None:
    model = Searcher(searches=1, query="Player 2 speech")
    records: list[dict[str, Any]] = []
    run_game({"seed": 5, "players": 7}, model=model, policy=RECALLING, on_prompt=records.append)
    shapes = [[m.type for m in messages] for messages, _ in model.seen]
    assert shapes.count(["system", "human"]) == len(records)  # every turn starts from its prompt
    assert shapes.count(["system", "human", "ai", "tool"]) == len(records)
    assert set(map(tuple, shapes)) == {("system", "human"), ("system", "human", "ai", "tool")}
    for record in records:
        assert record["recalls"] == 1 and record["attempts"][0]["kind"] == "recall"
        assert "Player 2 speech" not in record["user"]
    assert set(PLAYER_GRAPH.output_schema.model_json_schema()["properties"]) == {"turn"}


def test_a_third_recall_is_refused_with_a_message() -> None:
    model = Searcher(searches=5, query="vote")
    records: list[dict[str, Any]] = []
    run_game({"seed": 5, "players": 5}, model=model, policy=RECALLING, on_prompt=records.append)
    answers = [[m for m in messages if isinstance(m, ToolMessage)] for messages, _ in model.seen]
    assert max(len(a) for a in answers) == MAX_RECALLS + 1
    third = next(a for a in answers if len(a) == MAX_RECALLS + 1)[-1]
    assert third.content == REFUSED
    assert all(not offered for messages, offered in model.seen if len(messages) == 2 + 2 * (MAX_RECALLS + 1))
    for record in records:
        searches = [a for a in record["attempts"] if a["kind"] == "recall"]
        assert len(searches) == MAX_RECALLS + 1 and not record["fallback"]
        assert [s["recall"]["refused"] for s in searches] == [False] * MAX_RECALLS + [True]


def test_every_call_carries_the_recall_tool_even_without_room_to_search() -> None:
    # A budget too small to leave room for searches: no call may search, yet every call carries
    # the same tools (the answer's named as the one to call), so every call begins alike for a
    # provider's prefix cache.
    model = Searcher(searches=1)
    records: list[dict[str, Any]] = []
    tight = ContextPolicy(token_budget=400, recall=True)
    run_game({"seed": 5, "players": 5}, model=model, policy=tight, on_prompt=records.append)
    assert model.seen and not any(offered for _, offered in model.seen)
    names = {tuple(t["function"]["name"] for t in tools) for tools in model.tools_seen}
    assert names == {("Answer", "recall")}
    assert not any(r.get("recalls") for r in records)
    assert len({a["schema_tokens"] for r in records for a in r["attempts"]}) == 1


def test_a_player_without_the_policy_is_never_offered_recall() -> None:
    model = Searcher(searches=1)
    _play(model, ContextPolicy())
    assert model.seen and not any(offered for _, offered in model.seen)


def note_once(ask: Ask) -> dict[str, Any]:
    """A player who writes one pattern note on its first turn and never touches it again, in a long
    game where every vote and kill is skipped."""
    first = "Nothing yet: this is your first turn." in ask.text
    fields: dict[str, Any] = {"pattern_notes": [f"{ask.player} canarynote first"] if first else []}
    if ask.action in ("vote", "revote", "mafia_round1", "mafia_round2", "night_kill"):
        fields["choice"] = SKIP
    return fields


def test_pruned_beliefs_leave_the_prompt_and_come_back_through_recall(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    policy = ContextPolicy(prune_beliefs=True, recall=True)
    with capture_prompts(monkeypatch) as built:
        run_game(
            {"seed": 9, "players": 6, "round_cap": 14}, model=ScriptedModel(script=note_once), policy=policy
        )
    player = max({b.player for b in built}, key=lambda p: sum(b.player == p for b in built))
    mine = [b for b in built if b.player == player]
    turns_seen = [i for i, b in enumerate(mine) if "canarynote" in b.prompt.user]
    assert turns_seen and len(mine) > COLD_TURNS + 2
    late = mine[-1]
    assert "canarynote" not in late.prompt.user and ARCHIVED_NOTE in late.prompt.user
    hits = search(documents(read_view(player_view(late.events, player), player)), "canarynote")
    assert hits and "archived pattern note" in hits[0].line and "canarynote" in hits[0].line
    # Without pruning the note is simply gone (the latest answer's beliefs only), not archived.
    with capture_prompts(monkeypatch) as plain:
        run_game({"seed": 9, "players": 6, "round_cap": 14}, model=ScriptedModel(script=note_once))
    assert ARCHIVED_NOTE not in [b for b in plain if b.player == player][-1].prompt.user


def test_house_model_recalls_an_old_fact_once_its_day_is_compressed() -> None:
    records: list[dict[str, Any]] = []
    run_game(
        {"seed": 3, "players": 12},
        model=HouseModel(seed=3),
        policy=policy_by_name("layered"),
        on_prompt=records.append,
    )
    searched = [r for r in records if r.get("recalls")]
    assert searched
    assert all(any(mark in r["user"] for mark in OLD_FACTS_GONE) for r in searched)
    assert all(r["action"] in ("speak", "vote") for r in searched)
    first = next(a for a in searched[0]["attempts"] if a["kind"] == "recall")
    assert first["recall"]["hits"]
    answer = searched[0]["attempts"][-1]["raw"]
    assert "Recalled: " in answer
    assert [r for r in records if not r.get("recalls") and r["action"] == "speak"]  # only when needed


def budget_sizes(config: dict[str, Any], model: Any) -> list[tuple[int, dict[str, Any]]]:
    """The size of every call of a ``layered`` game as the budget counts it (billed: the messages
    with their role lines, the schema and the tools), with its turn's record."""
    records: list[dict[str, Any]] = []
    run_game(config, model=model, policy=policy_by_name("layered"), on_prompt=records.append)
    return [(int(a["prompt_tokens"]) + int(a["schema_tokens"]), r) for r in records for a in r["attempts"]]


def stalemate(ask: Ask) -> dict[str, Any]:
    """Every speech nominates, every ballot is cast for the two first nominees by seat parity, so
    each vote and revote ties; the night's kill is skipped: no one ever dies."""
    fields: dict[str, Any] = {"text": "We are stuck.", "choice": None}
    named = [t for t in ask.targets if t != SKIP]
    if ask.action == "speak":
        fields["choice"] = named[0] if named else None
    elif ask.action in ("vote", "revote"):
        fields["choice"] = named[int(ask.player.split()[-1]) % 2] if len(named) > 1 else SKIP
    elif ask.action in ("mafia_round1", "mafia_round2", "night_kill"):
        fields["choice"] = SKIP
    elif ask.action in ("protect", "investigate"):
        fields["choice"] = named[0]
    return fields


def test_layered_keeps_every_call_within_its_token_budget() -> None:
    usual = [
        *budget_sizes({"seed": 3, "players": 12}, HouseModel(seed=3)),
        *budget_sizes({"seed": 5, "players": 12}, HouseModel(seed=5)),
    ]
    assert any(r.get("recalls") for _, r in usual) and max(size for size, _ in usual) <= 1500
    # A fact leaves a prompt for recall only once players' words are cut short and the role's
    # advice is gone: every other trim comes first.
    for _, r in usual:
        notes = r["trimmed"]
        left = [i for i, note in enumerate(notes) if note.endswith("left to recall")]
        if left:
            assert notes.index("players' words cut to 24 tokens") < left[0], notes
            assert notes.index("role advice") < left[0], notes


@pytest.mark.slow
def test_layered_keeps_a_sixteen_seat_stalemate_within_its_token_budget() -> None:
    # Sixteen seats where every vote ties and no one dies: more ballots each day than any prompt of
    # 1,500 tokens holds over twelve days. Every call still fits: the facts are written shorter,
    # then the oldest days leave the prompt for the player's record (recall finds them).
    long = budget_sizes({"seed": 4, "players": 16, "round_cap": 12}, ScriptedModel(script=stalemate))
    notes = [note for _, r in long for note in r["trimmed"]]
    assert "earlier days by seat number" in notes and "ballots of day 1 left to recall" in notes
    # Counted as billed, the schema and tools too: the tie's ballots are left to the transcript
    # and the protections' nights grouped before any fact goes.
    assert max(size for size, _ in long) <= 1500
    assert not any("over budget" in note for note in notes)


def test_recall_works_through_an_openai_compatible_server_and_not_in_json_mode() -> None:
    records: list[dict[str, Any]] = []
    with openai_server() as server:
        tools = ModelSettings(model="openai:local-recall", base_url=server.base_url, schema="stable")
        run_game(
            {"seed": 3, "players": 12},
            model=tools,
            policy=policy_by_name("layered"),
            on_prompt=records.append,
        )
        asked = [b for b in server.bodies if b.get("tools")]
        json_only = ModelSettings(model="openai:local-json", base_url=server.base_url, method="json_mode")
        before = len(server.bodies)
        run_game({"seed": 3, "players": 7}, model=json_only, policy=policy_by_name("layered"))
        later = server.bodies[before:]
    assert any(r.get("recalls") for r in records)
    assert asked and all({t["function"]["name"] for t in b["tools"]} >= {"recall"} for b in asked)
    follow_ups = [b for b in asked if any(m["role"] == "tool" for m in b["messages"])]
    assert follow_ups and all(
        b["messages"][2]["tool_calls"][0]["function"]["name"] == "recall" for b in follow_ups
    )
    assert later and not any(b.get("tools") for b in later)  # json_mode cannot call tools: no recall


def test_a_replay_rebuilds_each_call_with_its_recall_exchange() -> None:
    model = Searcher(searches=2, query="speech of Player 1")
    records: list[dict[str, Any]] = []
    run_game({"seed": 5, "players": 5}, model=model, policy=RECALLING, on_prompt=records.append)
    by_prompt: dict[str, list[list[BaseMessage]]] = {}
    for messages, _ in model.seen:  # a turn's calls follow one another; turns may interleave
        by_prompt.setdefault(str(messages[1].content), []).append(messages)
    roles = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}
    for record in records:
        made = by_prompt[record["user"]]
        rebuilt = turn_calls(record)
        assert len(rebuilt) == len(made) == 3
        for call, messages in zip(rebuilt, made, strict=True):
            assert [role for role, _ in call.messages] == [roles[m.type] for m in messages]
            sent = [str(m.content) for m in messages if isinstance(m, ToolMessage)]
            assert [text for role, text in call.messages if role == "tool"] == sent
