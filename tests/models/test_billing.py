"""Billing: tokens of a call as sent, the prefix-cache model, and the token benchmark's figures."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import statistics
import subprocess
import sys
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from openai.lib._parsing import type_to_response_format_param
from openai.lib._pydantic import _ensure_strict_json_schema
from pydantic import BaseModel, ConfigDict, Field

from fakes.peer_model import CHOICE_FIELDS, TEXT_ACTIONS, PeerModel
from mafia.context.policy import DEFAULT_POLICY, POLICIES
from mafia.context.tokens import encode_count
from mafia.game.actions import ACTION_SCHEMAS, Answer, Suspicion
from mafia.game.protocol import ACTIONS
from mafia.models.billing import (
    CACHE_MIN,
    GameCache,
    call_text,
    call_tokens,
    encode,
    prefix_keys,
    response_format,
    schema_text,
    strict_schema,
    turn_tokens,
)
from mafia.play.runner import run_game
from mafia.prompts import anchors
from mafia.turn.answers import constrained_schema
from repo import BENCH

sys.path.insert(0, str(BENCH))
import tokens as bench

# ---- the cache model on hand-built calls ---------------------------------------------------


def ids(seed: int, n: int) -> list[int]:
    """``n`` token ids that share nothing with other seeds' (disjoint id ranges)."""
    rng = random.Random(seed)
    return [seed * 100_000 + rng.randrange(100_000) for _ in range(n)]


def served(*calls: list[int]) -> list[int]:
    """Cached tokens of each call, fed to one game's cache in order."""
    cache = GameCache()
    return [cache.serve(prefix_keys(call)) for call in calls]


BASE = ids(1, 3000)


@pytest.mark.parametrize(
    ("shared", "cached"),
    [(0, 0), (1000, 0), (1023, 0), (1024, 1024), (1151, 1024), (1152, 1152), (1300, 1280), (2999, 2944)],
)
def test_a_call_is_served_its_shared_prefix_from_1024_in_steps_of_128(shared: int, cached: int) -> None:
    later = BASE[:shared] + ids(2, 3000 - shared)
    assert served(BASE, later) == [0, cached]


def test_a_call_shorter_than_the_minimum_is_never_cached() -> None:
    assert prefix_keys(BASE[:1023]) == []
    assert served(BASE[:1000], BASE[:1000]) == [0, 0]


def test_a_repeated_call_is_cached_up_to_its_last_whole_step() -> None:
    assert served(BASE[:2000], BASE[:2000]) == [0, 1920]


def test_only_the_longest_earlier_match_counts() -> None:
    short = BASE[:1100] + ids(3, 900)
    long = BASE[:1500] + ids(4, 500)
    probe = BASE[:2000]
    assert served(short, long, probe) == [0, 1024, 1408]
    assert served(long, short, probe) == [0, 1024, 1408]


def test_other_games_never_count() -> None:
    first, second = GameCache(), GameCache()
    first.serve(prefix_keys(BASE))
    assert second.serve(prefix_keys(BASE)) == 0


def test_a_later_call_never_counts_for_an_earlier_one() -> None:
    records = [_record(BASE[:1200]), _record(BASE)]
    cache = GameCache()
    assert [cache.bill(r)["cached_tokens"] for r in records] == [0, 1152]


def test_the_cache_matches_a_brute_force_longest_common_prefix() -> None:
    """Calls grown from a few shared stems: each is served exactly what the definition says."""
    rng = random.Random(5)
    stems = [ids(10 + k, 2500) for k in range(3)]
    calls = []
    for k in range(40):
        stem = rng.choice(stems)
        cut = rng.randrange(800, 2500)
        calls.append(stem[:cut] + ids(100 + k, rng.randrange(0, 600)))
    expected = []
    for i, call in enumerate(calls):
        shared = max((_common(call, earlier) for earlier in calls[:i]), default=0)
        expected.append(0 if shared < CACHE_MIN else CACHE_MIN + 128 * ((shared - CACHE_MIN) // 128))
    assert served(*calls) == expected
    assert any(e > CACHE_MIN for e in expected) and 0 in expected[1:]


def _common(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _record(call: list[int]) -> dict[str, Any]:
    attempt = {"prompt_tokens": len(call) - 100, "schema_tokens": 100, "prefix_keys": prefix_keys(call)}
    return {"attempts": [attempt]}


def test_a_record_is_billed_per_call_and_in_total() -> None:
    cache = GameCache()
    cache.bill(_record(BASE))
    record = {"attempts": [_record(BASE[:1300])["attempts"][0], _record(BASE[:2000])["attempts"][0]]}
    record = cache.bill(record)
    first, second = record["attempts"]
    assert (first["cached_tokens"], second["cached_tokens"]) == (1280, 1920)
    assert first["billed_tokens"] == 1300 - 1280 + 0.25 * 1280
    assert second["billed_tokens"] == 2000 - 1920 + 0.25 * 1920
    assert record["cached_tokens"] == 1280 + 1920
    assert record["billed_tokens"] == first["billed_tokens"] + second["billed_tokens"]


# ---- tokens of a call as sent ----------------------------------------------------------------


class _Captured:
    """An HTTP transport that records the request body and answers with a fixed completion."""

    def __init__(self) -> None:
        self.body = ""

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.body = request.content.decode()
        message = {"role": "assistant", "content": json.dumps({"choice": "skip"})}
        return httpx.Response(
            200,
            json={
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        )


def _sent_body(schema: Any) -> str:
    """The request body ChatOpenAI's structured output sends for ``schema`` (no network)."""
    transport = _Captured()
    model = ChatOpenAI(
        model="gpt-4o-mini",
        api_key="test",
        max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(transport)),
    )
    with contextlib.suppress(ValueError):  # the answer need not fit: only the request matters
        model.with_structured_output(schema, include_raw=True).invoke([SystemMessage("s"), HumanMessage("u")])
    return transport.body


def test_the_schema_counted_is_the_response_format_chatopenai_sends() -> None:
    body = _sent_body(Answer)
    assert json.loads(body)["response_format"] == response_format(Answer)
    assert '"response_format":' + schema_text(Answer) in body


class _Inner(BaseModel):
    """A nested object."""

    n: int


class _Shapes(BaseModel):
    """Every shape the strict form changes: a described nested object (a $ref beside a key), a
    list of objects, a None default, a union, an open object."""

    inner: _Inner = Field(description="described, so its $ref is inlined")
    many: list[_Inner]
    maybe: int | None = None
    either: int | str
    extra: dict[str, int]
    fixed: _Inner


def _game_schemas() -> list[type[BaseModel]]:
    """Every class a game bills: the answer schema for each action, its re-ask copy with the
    choice an enum (the summariser's call sends the turn's)."""
    schemas: list[type[BaseModel]] = [*ACTION_SCHEMAS.values()]
    for kind, schema in ACTION_SCHEMAS.items():
        field = ACTIONS[kind].choice_field
        if field is not None:
            schemas += [
                constrained_schema(schema, field, ["Ann", "Bo"], nullable) for nullable in (True, False)
            ]
    return schemas


@pytest.mark.parametrize("schema", [*dict.fromkeys(_game_schemas()), _Shapes], ids=lambda s: s.__name__)
def test_a_class_is_billed_with_the_strict_schema_the_openai_client_sends(schema: type[BaseModel]) -> None:
    expected = type_to_response_format_param(schema)
    assert response_format(schema) == expected
    # the same text too: key order is part of what is sent
    assert schema_text(schema) == json.dumps(expected, ensure_ascii=False, separators=(",", ":"))


_DEFS = {"A": {"type": "object", "properties": {"x": {"type": "integer", "default": None}}}}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"allOf": [{"$ref": "#/$defs/A"}]}}, "$defs": _DEFS},
        {"allOf": [{"$ref": "#/$defs/A"}, {"type": "object"}], "$defs": _DEFS},
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/A", "title": "t"}},
            "definitions": _DEFS,
        },
        {"type": "array", "items": {"anyOf": [{"type": "object"}, {"type": "null"}]}, "default": None},
    ],
    ids=["a-lone-allOf", "allOf", "definitions", "items-anyOf-default"],
)
def test_the_strict_form_of_a_schema_is_the_openai_clients(schema: dict[str, Any]) -> None:
    """Shapes pydantic makes rarely, held against the client's own function."""
    expected = copy.deepcopy(schema)
    _ensure_strict_json_schema(expected, path=(), root=expected)
    assert strict_schema(copy.deepcopy(schema)) == expected


def test_a_per_call_json_schema_copy_is_counted_as_sent() -> None:
    schema = Answer.model_json_schema()
    schema["properties"]["choice"]["enum"] = ["Player 2", "skip"]
    body = _sent_body(schema)
    assert '"response_format":' + schema_text(schema) in body
    assert schema_text(schema) != schema_text(Answer)


@pytest.mark.slow
def test_a_house_game_starts_without_the_openai_client_or_the_ranking_library() -> None:
    """A game billed on its own schema classes, under a policy without recall, loads neither the
    OpenAI client (with or without langchain-openai) nor bm25s with numpy: a third and a tenth of a
    second at every start. A mapping schema still goes through langchain-openai's converter."""
    code = (
        "import sys; from mafia.play.runner import run_game; from mafia.models.billing import schema_text; "
        "from mafia.game.actions import Answer; run_game({'seed': 1, 'players': 5}); "
        "print(*(m in sys.modules for m in ('langchain_openai', 'openai', 'bm25s', 'numpy'))); "
        "schema_text(Answer.model_json_schema()); print('langchain_openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False", "False", "True"]


def test_call_tokens_count_the_messages_the_schema_and_the_answer() -> None:
    messages = [SystemMessage("[YOUR IDENTITY]\nYou are Ann."), HumanMessage("Vote now.\n  indented line")]
    fields = call_tokens(messages, Answer, raw='{"choice": "skip"}')
    text = schema_text(Answer)
    assert call_text(text, messages).startswith(text + "\nsystem\n[YOUR IDENTITY]")
    assert fields["schema_tokens"] == encode_count(text + "\n")
    assert fields["prompt_tokens"] + fields["schema_tokens"] == encode_count(call_text(text, messages))
    assert fields["output_tokens"] == encode_count('{"choice": "skip"}')
    assert fields["prefix_keys"] == []  # well under 1,024 tokens


def test_encode_is_exact_on_text_cut_into_lines() -> None:
    text = "system\nline one\n  indented\n/slash\nuser\n" + "word " * 300 + "\nend"
    assert encode(text) == encode(text)  # the second time from the line cache
    assert len(encode(text)) == encode_count(text)


def test_a_reask_is_a_call_with_its_own_messages() -> None:
    prompt = [SystemMessage("rules " * 700), HumanMessage("task " * 500)]
    first = call_tokens(prompt, Answer, raw='{"choice": "Nobody"}')
    retry = call_tokens(
        [*prompt, AIMessage('{"choice": "Nobody"}'), HumanMessage("vote='Nobody' is not allowed")],
        Answer,
        raw='{"choice": "skip"}',
    )
    assert retry["prompt_tokens"] > first["prompt_tokens"]
    cache = GameCache()
    assert cache.serve(first["prefix_keys"]) == 0
    assert cache.serve(retry["prefix_keys"]) == len(first["prefix_keys"]) * 128 + CACHE_MIN - 128
    totals = turn_tokens([first, retry])
    assert totals["prompt_tokens"] == first["prompt_tokens"] + retry["prompt_tokens"]
    assert totals["output_tokens"] == first["output_tokens"] + retry["output_tokens"]


# ---- the peer-setting scripted model and the benchmark's figures -----------------------------


@pytest.fixture(scope="module")
def games() -> list[list[dict[str, Any]]]:
    return [bench.play(seed, 8) for seed in (0, 1)]


def test_the_peer_model_plays_legal_fixed_length_answers(games: list[list[dict[str, Any]]]) -> None:
    texts = 0
    for record in (r for g in games for r in g):
        assert not record["fallback"] and len(record["attempts"]) == 1
        answer = json.loads(record["attempts"][0]["raw"])[0]
        for name in ("observations", "strategy", "reasoning"):
            assert len(answer[name].split()) == 30
        living = anchors.LIVING_LINE.search(record["user"])
        assert living is not None
        others = [p for p in anchors.split_names(living["names"]) if p != record["player"]]
        assert [s["player"] for s in answer["suspicions"]] == others
        texts += answer["text"] is not None
        if answer["text"] is not None:
            assert len(answer["text"].split()) == 60, record["action"]
        else:
            assert record["action"] not in TEXT_ACTIONS, record["action"]
    assert texts > 0, "no answer had a text to check"
    speakers = [r for g in games for r in g if r["action"] == "speak"]
    assert {r["choice"] is None for r in speakers} == {True, False}


def test_the_peer_model_fills_one_answer_schema() -> None:
    class Answer(BaseModel):
        model_config = ConfigDict(extra="forbid")
        observations: str
        suspicions: list[Suspicion]
        strategy: str
        reasoning: str
        text: str | None = Field(description="The speech, or null.")
        choice: str | None = Field(description="An exact name from the valid targets, or null.")

    prompt = "You are Ann. Your role is Town.\nLiving: Ann, Bob, Cy\n[YOUR TASK: {}]\nValid targets: {}\n"
    call = PeerModel(seed=3).with_structured_output(Answer)
    vote = call.invoke(prompt.format("VOTE", "Bob, skip"))
    assert isinstance(vote, Answer) and vote.text is None and vote.choice in ("Bob", "skip")
    assert [s.player for s in vote.suspicions] == ["Bob", "Cy"]
    speech = call.invoke(prompt.format("SPEAK", "Bob, Cy"))
    assert isinstance(speech, Answer) and speech.text is not None and len(speech.text.split()) == 60
    passive = (
        PeerModel(seed=3, passive=True)
        .with_structured_output(Answer)
        .invoke(prompt.format("VOTE", "Bob, skip"))
    )
    assert isinstance(passive, Answer) and passive.choice == "skip"


def test_the_bench_figures_are_the_records_sums(games: list[list[dict[str, Any]]]) -> None:
    figures = bench.totals(games)
    per_game = [sum(r["prompt_tokens"] + r["schema_tokens"] for r in g) for g in games]
    cached = [sum(r["cached_tokens"] for r in g) for g in games]
    assert figures["tokens_per_game"] == statistics.mean(per_game)
    assert figures["billed_tokens_per_game"] == pytest.approx(
        statistics.mean(t - 0.75 * c for t, c in zip(per_game, cached, strict=True))
    )
    assert figures["cached_share"] == sum(cached) / sum(per_game)
    assert 0 < figures["cached_share"] < 1
    assert figures["output_tokens_per_game"] == statistics.mean(
        sum(r["output_tokens"] for r in g) for g in games
    )
    assert figures["calls_per_game"] == statistics.mean(len(g) for g in games)
    round1 = sorted(r["prompt_tokens"] + r["schema_tokens"] for g in games for r in g if r["round"] == 1)
    assert figures["round1_median_tokens"] == statistics.median(round1)
    # A prompt's tokens are its sections' plus a role line per message.
    for record in games[0]:
        assert 0 < record["prompt_tokens"] - record["total_tokens"] <= 8


def test_the_bench_is_deterministic(games: list[list[dict[str, Any]]]) -> None:
    assert bench.play(0, 8) == games[0]


def test_growth_is_the_least_squares_slope_over_rounds_3_to_10() -> None:
    assert bench.slope([(1, 3), (2, 5), (3, 7)]) == pytest.approx(2.0)
    assert bench.slope([(1, 0), (2, 1), (3, 0), (4, 1)]) == pytest.approx(0.2)
    game = [
        {"round": n, "attempts": [{"prompt_tokens": 1000 + (5000 if n < 3 else 40 * n), "schema_tokens": 0}]}
        for n in range(12)
    ]
    assert bench.growth([game]) == pytest.approx(40.0)
    assert bench.round_medians([game])[4] == 1160


class _RejectedOnce(PeerModel):
    """The peer model, but every first answer names a player who does not exist."""

    def answer(self, schema: Any, prompt: str) -> dict[str, Any]:
        out = super().answer(schema, prompt)
        if "previous answer was rejected" not in prompt:
            out.update({name: "Nobody" for name in out if name in CHOICE_FIELDS})
        return out


def test_every_reask_is_billed_as_a_call_of_its_own() -> None:
    records: list[dict[str, Any]] = []
    # seed-window's prompts pass the 1,024 tokens a provider caches from; the default's may not
    run_game(
        {"seed": 0, "players": 5},
        model=_RejectedOnce(seed=0),
        policy=POLICIES["seed-window"],
        on_prompt=records.append,
    )
    votes = [r for r in records if r["action"] == "vote"]
    assert votes and all(len(r["attempts"]) == 2 and not r["fallback"] for r in votes)
    for record in votes:
        first, retry = record["attempts"]
        assert retry["prompt_tokens"] > first["prompt_tokens"] > 1024
        # The re-ask is sent with the per-call schema whose choice is an enum of the legal
        # options; the schema comes first in the cached sequence, so the re-ask shares no cached
        # prefix with the first ask (which kept the game-stable schema and so shares the table's).
        assert retry["prefix_keys"][0] != first["prefix_keys"][0]
        for name in ("prompt_tokens", "schema_tokens", "output_tokens", "cached_tokens", "billed_tokens"):
            assert record[name] == first[name] + retry[name]


@pytest.mark.slow
def test_the_bench_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--seeds", "1", "--long-seeds", "1"])
    lines = dict(line.split("=", 1) for line in capsys.readouterr().out.splitlines())
    for name in (
        "tokens_per_game",
        "billed_tokens_per_game",
        "round1_median_tokens",
        "output_tokens_per_game",
        "calls_per_game",
        "cached_share",
        "long_growth_per_round_8",
        "long_growth_per_round_16",
        "window_vs_full_16",
        "billed_window_vs_full_16",
        "breakdown_total",
        "tokens_per_call",
        "billed_tokens_per_call",
        "uncached_tail_per_served_call",
    ):
        assert float(lines[name]) > 0, name
    assert lines["policy"] == DEFAULT_POLICY
    for name in ("long_growth_per_round", "window_vs_full", "billed_window_vs_full"):
        worse = max(float(lines[f"{name}_8"]), float(lines[f"{name}_16"]))
        assert float(lines[name]) == worse, name


@pytest.mark.slow
def test_the_bench_plays_a_leaner_variant_of_a_policy(capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--seeds", "1", "--long-seeds", "1", "--verbatim-rounds", "1", "--reasonings", "0"])
    lines = dict(line.split("=", 1) for line in capsys.readouterr().out.splitlines())
    assert lines["policy"] == "window1-digest1-reasonings0-scores-noplaybook"  # lean, the default, varied
    with pytest.raises(SystemExit):
        bench.main(["--verbatim-rounds", "0"])
