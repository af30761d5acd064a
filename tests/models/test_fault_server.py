"""Games against a faulty OpenAI-compatible server, through the real langchain-openai client.

Each fault kind at 10% of requests, and a mix of all of them, over 60 games: every game finishes,
or stops only on exhausted provider faults and then resumes to the end; no illegal action is ever
applied (an independent referee replays each log); every fallback is logged with its kind; a
provider fault, a hang past the timeout included, never changes the game.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from typing import Any

import openai
import pytest
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from audit import audit
from fakes.fault_server import ANSWER_FAULTS, FAULTS, PROVIDER_FAULTS, FaultServer
from mafia.game.actions import TextLimits
from mafia.game.events import (
    AnswerKind,
    DefenseSpeech,
    EventBase,
    Fallback,
    LastWords,
    MafiaDiscussion,
    NightZeroStrategy,
    Speech,
    TextTruncated,
    dump_event,
    parse_event,
)
from mafia.play.runner import resume_game, run_game
from mafia.turn.answers import strings

SEEDS = range(4)  # 4 games per configuration, 15 configurations: 60 games
TIMEOUT = 0.5  # the client's request timeout (seconds); a hang lasts twice as long
CLIENT_RETRIES = 2
# The mix: 54% bad answers (so some decisions exhaust their re-asks and fall back), 10% provider faults.
MIX = {kind: 0.06 for kind in ANSWER_FAULTS} | {kind: 0.02 for kind in PROVIDER_FAULTS}
CONFIGS: dict[str, dict[str, float]] = {kind: {kind: 0.1} for kind in FAULTS} | {"mix": MIX}
# The kinds a rejected attempt may be logged with, per injected answer fault.
REJECTED_AS: dict[str, set[str]] = {
    "invalid_json": {"invalid_json"},
    "schema": {"schema"},
    "illegal_choice": {"illegal_choice"},
    "refusal": {"refusal"},
    "length": {"length"},
    "content_filter": {"content_filter"},
    "empty_text": {"empty_text"},
    "invalid_text": {"invalid_text"},
    "overlong": set(),  # accepted, cut to the limit
    "unbounded": set(),  # accepted, every text and list cut to its limit
}
_BAD_TEXT = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


@pytest.fixture(autouse=True)
def short_client_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The OpenAI client's first wait before retrying a 500, a dropped connection or a timeout,
    cut from half a second: how long it waits is no part of what these games check, and the
    waits were most of their time. (The tests fail if the client renames it.)"""
    monkeypatch.setattr("openai._base_client.INITIAL_RETRY_DELAY", 0.02)


def client(server: FaultServer) -> ChatOpenAI:
    return ChatOpenAI(
        model="house",
        base_url=server.base_url,
        api_key="unused",
        timeout=TIMEOUT,
        max_retries=CLIENT_RETRIES,
        use_responses_api=False,
    )


def play(server: FaultServer, seed: int) -> tuple[list[EventBase], list[dict[str, Any]], int]:
    """One game to its end: the log, the prompt records and how often it stopped and resumed."""
    model = client(server)
    saver = InMemorySaver()
    records: list[dict[str, Any]] = []
    stops = 0
    try:
        state = run_game(
            {"seed": seed, "players": 5 + seed},
            model=model,
            checkpointer=saver,
            thread_id="game",
            on_prompt=records.append,
        )
    except openai.APIError:
        state = {}
        stops = 1
    while not state.get("winner"):
        assert stops <= 10, "the game never got past its provider faults"
        records.clear()  # a resumed game passes the whole game's records again, its first part first
        try:
            state = resume_game("game", checkpointer=saver, model=model, on_prompt=records.append)
        except openai.APIError:
            stops += 1
    return [parse_event(e) for e in state["events"]], records, stops


@cache
def reference(seed: int) -> str:
    """The game of ``seed`` against the same server without faults, as JSON lines."""
    with FaultServer(seed=0) as server:
        events, _, _ = play(server, seed)
    return "\n".join(e.model_dump_json() for e in events)


def check_game(events: list[EventBase], records: list[dict[str, Any]]) -> None:
    """What holds for every game, whatever the faults."""
    assert audit(events) == [], "an illegal action was applied"
    fallbacks = [e for e in events if isinstance(e, Fallback)]
    assert all(f.kind is not None for f in fallbacks), "a fallback without its kind"
    logged = sorted(
        (r["player"], r["round"], r["action"], r["fallback_kind"]) for r in records if r["fallback"]
    )
    assert logged == sorted((f.player, f.round, f.action, f.kind) for f in fallbacks)
    for record in records:
        for attempt in record["attempts"]:
            assert (attempt["error"] is None) == (attempt["kind"] is None)
            assert attempt["kind"] is None or attempt["kind"] in set(AnswerKind)
        if record["fallback"]:
            assert record["fallback_kind"] == record["attempts"][-1]["kind"]
    for event in events:
        for path, text in strings(dump_event(event)):
            assert not _BAD_TEXT.search(text), f"invalid text reached the log at {path}"
    limits = TextLimits()
    for event in events:
        if isinstance(event, Speech | DefenseSpeech | LastWords):
            assert len(event.text) <= limits.speech
        elif isinstance(event, MafiaDiscussion):
            assert len(event.message) <= limits.message
        elif isinstance(event, NightZeroStrategy):
            assert len(event.strategy) <= limits.plan


def _seed_groups(config: str) -> list[Any]:
    """A configuration's games: seed 0 (5 seats) in the default run, seeds 0 and 1 (5 and 6 seats)
    where one game may not bring its checks about (the mix spreads its faults thin; an illegal
    choice may land only where a choice is not read); its other seeds with -m slow."""
    default = 2 if config in ("mix", "illegal_choice") else 1
    ids = [f"{5 + s}" for s in SEEDS]
    return [
        pytest.param(config, SEEDS[:default], id=f"{config}-{'-'.join(ids[:default])}"),
        pytest.param(
            config, SEEDS[default:], id=f"{config}-{'-'.join(ids[default:])}", marks=pytest.mark.slow
        ),
    ]


@pytest.mark.parametrize(("config", "seeds"), [p for config in CONFIGS for p in _seed_groups(config)])
def test_games_against_a_faulty_server_finish_legally(config: str, seeds: range) -> None:
    faults = CONFIGS[config]
    injected: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    truncations = fallbacks = 0
    for seed in seeds:
        with FaultServer(faults, seed=seed, hang_seconds=2 * TIMEOUT) as server:
            events, records, _ = play(server, seed)
        check_game(events, records)
        injected += server.injected
        rejected += Counter(a["kind"] for r in records for a in r["attempts"] if a["kind"])
        truncations += sum(isinstance(e, TextTruncated) for e in events)
        fallbacks += sum(isinstance(e, Fallback) for e in events)
        if set(faults) <= set(PROVIDER_FAULTS):
            # Provider faults are retried by the client or resumed from: the game is unchanged.
            assert "\n".join(e.model_dump_json() for e in events) == reference(seed)
            assert rejected == Counter()
    # The mix spreads its faults thin: most kinds, not necessarily all, come up in four games.
    assert set(injected) <= set(faults)
    assert len(injected) >= (len(faults) - 3 if config == "mix" else len(faults)), dict(injected)
    answer_faults = set(injected) & set(ANSWER_FAULTS)
    allowed = set().union(*(REJECTED_AS[k] for k in answer_faults))
    assert set(rejected) == allowed, "each answer fault was rejected as its own kind"
    for kind in answer_faults:
        for as_kind in REJECTED_AS[kind]:
            # At most once per fault served: a response the client timed out on is served again.
            assert 1 <= rejected[as_kind] <= injected[kind]
    if config == "mix":
        assert fallbacks, "some decisions ran out of re-asks"
    if "unbounded" in injected:  # an answer past every bound loses many tails, each logged
        assert truncations >= injected["unbounded"]
    elif "overlong" in injected:
        assert 1 <= truncations <= injected["overlong"]
    else:
        assert truncations == 0


def test_exhausted_provider_faults_stop_the_game_and_it_resumes_to_the_same_end() -> None:
    # Requests 2 to 7 fail: a Day 1 speech (sequential) fails its three tries twice over.
    with FaultServer(seed=0, burst=range(2, 8)) as server:
        events, records, stops = play(server, 0)
    assert stops >= 2  # more if a slow answer timed out as well
    check_game(events, records)
    assert "\n".join(e.model_dump_json() for e in events) == reference(0)


def test_the_server_rejects_unknown_fault_kinds() -> None:
    with pytest.raises(ValueError, match="unknown fault kinds"):
        FaultServer({"gremlins": 0.1})


def test_the_game_checks_catch_planted_faults() -> None:
    events = [parse_event(json.loads(line)) for line in reference(0).split("\n")]
    check_game(events, [])
    speech = next(i for i, e in enumerate(events) if isinstance(e, Speech))
    said = events[speech]
    assert isinstance(said, Speech)
    illegal = said.model_copy(update={"nomination": "Nobody Atall"})
    unkinded = Fallback(round=1, player=illegal.speaker, action="vote", error="e", attempts=3, applied="skip")
    spoilt = events[speech].model_copy(update={"text": "bell \x07"})
    for planted, caught in (
        ([*events[:speech], illegal, *events[speech + 1 :]], "an illegal action"),
        ([*events[:speech], unkinded, *events[speech:]], "without its kind"),
        ([*events[:speech], spoilt, *events[speech + 1 :]], "invalid text"),
    ):
        with pytest.raises(AssertionError, match=caught):
            check_game(planted, [])
