"""The answer schema's dialects: which one a model gets, what a grammar-bounded schema admits, and
what reaches a server through the real ``langchain-openai`` client.

``grammar`` (set, or inferred for a server that shows itself to be llama.cpp, vLLM or Ollama) sends
each turn a schema whose choice is an enum of the legal options and whose every text and list is
bounded within the action's output limit; ``stable`` (OpenAI, Azure, any other server) sends the
one game-stable schema on the first ask. A choice outside the options from a server that ignores
the schema is rejected and re-asked with the error stated; a text past its bound is cut
(``tests/models/test_unbounded_server.py``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from fakes.fault_server import FaultServer
from fakes.openai_server import openai_server
from mafia.game.actions import Answer, TextLimits
from mafia.models.billing import response_format
from mafia.models.schema_dialect import (
    SPACE_TOKENS,
    AnswerShape,
    answer_bounds,
    grammar_schema,
    infer_dialect,
    min_output_tokens,
    worst_shape,
    worst_tokens,
)
from mafia.models.settings import ModelSettings, first_error
from mafia.play.runner import run_game
from mafia.prompts.anchors import LIVING_LINE, TARGETS_LINE, TASK_LINE
from mafia.run.game_file import GameFileError, parse_game_file

LOCAL = "http://127.0.0.1:8080/v1"
NAMES = tuple(f"Player {seat}" for seat in range(1, 8))
SPEECH = AnswerShape(
    options=NAMES[1:4], choice_optional=True, text_limit=1200, claims=True, suspects=NAMES[1:]
)
VOTE = AnswerShape(
    options=(*NAMES[2:4], "skip"), choice_optional=False, text_limit=None, claims=False, suspects=NAMES[1:]
)
NIGHT_ZERO = AnswerShape(options=(), choice_optional=False, text_limit=800, claims=False, suspects=NAMES[1:])


@pytest.mark.parametrize(
    ("settings", "dialect"),
    [
        ({"model": "openai:gpt-4o-mini"}, "stable"),
        ({"model": "openai:gpt-4o-mini", "base_url": "https://api.openai.com/v1"}, "stable"),
        ({"model": "openai:gpt-4o", "base_url": "https://team.openai.azure.com/openai/v1"}, "stable"),
        ({"model": "azure_openai:gpt-4o"}, "stable"),
        ({"model": "anthropic:claude"}, "stable"),
        ({"model": "openai:local", "base_url": LOCAL}, "stable"),  # nothing there shows what it is
        ({"model": "openai:local", "base_url": LOCAL, "method": "json_mode"}, "stable"),
        ({"model": "openai:local", "base_url": LOCAL, "schema": "stable"}, "stable"),
        ({"model": "openai:gpt-4o-mini", "schema": "grammar"}, "grammar"),
        ({"model": "house"}, "stable"),
    ],
)
def test_the_dialect_is_inferred_from_the_server_unless_set(
    settings: dict[str, Any], dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert ModelSettings(**settings).dialect == dialect


def test_an_openai_base_url_from_the_environment_is_a_server_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", LOCAL)
    assert ModelSettings(model="openai:local").dialect == "stable"
    assert ModelSettings(model="openai:local", schema="grammar").dialect == "grammar"
    assert infer_dialect("openai", "https://api.openai.com/v1", None) == "stable"


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        (
            {"schema": "grammar", "method": "json_mode"},
            "schema: 'grammar' needs a server that enforces the schema, which json_mode does not; "
            "allowed with json_mode: 'stable'",
        ),
        ({"max_tokens": 300}, "max_tokens: 300 is too small for schema 'grammar'"),
        (
            {"action_max_tokens": {"vote": 200}},
            "action_max_tokens.vote: 200 is too small for schema 'grammar'",
        ),
        ({"schema": "grammatical"}, "schema: Input should be 'grammar' or 'stable', got 'grammatical'"),
    ],
)
def test_bad_dialect_settings_are_refused_in_one_line(settings: dict[str, Any], error: str) -> None:
    with pytest.raises(ValidationError) as caught:
        ModelSettings(model="openai:local", base_url=LOCAL, **{"schema": "grammar", **settings})
    message = first_error(caught.value)
    assert message.startswith(error) and "\n" not in message
    if "too small" in error:
        assert f"at least {min_output_tokens(worst_shape())} tokens" in message


def test_a_game_file_sets_the_dialect_per_model() -> None:
    data = {
        "model": {"model": "openai:local", "base_url": LOCAL, "schema": "grammar"},
        "seats": {"2": {"model": "openai:local", "base_url": LOCAL, "schema": "stable"}},
    }
    file = parse_game_file(data, Path("game.toml"))
    assert isinstance(file.model, ModelSettings) and file.model.dialect == "grammar"
    assert file.seats["2"].dialect == "stable"
    with pytest.raises(GameFileError, match=r"model\.schema: Input should be 'grammar' or 'stable'"):
        parse_game_file({"model": {"model": "openai:local", "schema": "strict"}}, Path("game.toml"))


# ---- the bounds ----------------------------------------------------------------------------


def _longest(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """The longest answer ``schema`` admits: every string full, every list full, the longest
    option of every enum (built independently of ``worst_tokens``)."""
    if "$ref" in schema:
        return _longest(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "enum" in schema:
        return max(schema["enum"], key=lambda v: len(json.dumps(v)))
    if "anyOf" in schema:
        return max((_longest(o, defs) for o in schema["anyOf"]), key=lambda v: len(json.dumps(v)))
    kind = schema["type"]
    if kind == "object":
        return {name: _longest(sub, defs) for name, sub in schema["properties"].items()}
    if kind == "array":
        return [_longest(schema["items"], defs) for _ in range(schema["maxItems"])]
    if kind == "string":
        return "x" * schema["maxLength"]
    if kind == "integer":
        return schema["maximum"]
    return None


def _cost(answer: Any) -> int:
    """Characters of ``answer`` written compactly, plus ``SPACE_TOKENS`` at each place the JSON
    grammar allows whitespace (no string here holds a bracket, a colon or a comma)."""
    text = json.dumps(answer, separators=(",", ":"))
    slots = 2 * text.count("{") + 2 * text.count(":") + text.count(",") + 2 * text.count("[")
    return len(text) + SPACE_TOKENS * slots


@pytest.mark.parametrize(
    "shape", [SPEECH, VOTE, NIGHT_ZERO, worst_shape()], ids=["speak", "vote", "plan", "worst"]
)
@pytest.mark.parametrize("output_tokens", [420, 512, 768, 1024, 2048, 4096, 16384])
def test_the_longest_bounded_answer_fits_the_output_limit(shape: AnswerShape, output_tokens: int) -> None:
    if output_tokens < min_output_tokens(shape):
        with pytest.raises(ValueError, match="tokens leaves"):
            grammar_schema(shape, output_tokens, TextLimits())
        return
    model = grammar_schema(shape, output_tokens, TextLimits())
    schema = model.model_json_schema()
    longest = _longest(schema, schema.get("$defs", {}))
    assert worst_tokens(schema) == _cost(longest)
    assert _cost(longest) + 1 <= output_tokens  # and its end token
    model.model_validate(longest)  # the longest answer is a valid one...
    for name in ("observations", "strategy", "reasoning", *(["text"] if shape.text_limit else [])):
        with pytest.raises(ValidationError, match="at most"):  # ...and one character more is not
            model.model_validate({**longest, name: longest[name] + "x"})


def test_bounds_never_pass_the_text_limits_and_grow_with_the_output_limit() -> None:
    limits = TextLimits()
    small, large = answer_bounds(SPEECH, 768, limits), answer_bounds(SPEECH, 32768, limits)
    assert small.text < large.text == limits.speech
    assert small.private < large.private == limits.private
    assert large.suspicions == len(SPEECH.suspects) and large.suspicion_note == large.note == limits.note
    assert answer_bounds(VOTE, 768, limits).text == 0
    # The README's figures: a seven-seat speech at 768 tokens, and the smallest limit allowed.
    assert (small.text, small.private, small.suspicions) == (218, 54, 1)
    assert min_output_tokens(worst_shape()) == 413


def test_a_grammar_schema_narrows_every_field_to_the_turn() -> None:
    schema = grammar_schema(SPEECH, 4096, TextLimits()).model_json_schema()
    props, suspicion = schema["properties"], schema["$defs"]["Suspicion"]["properties"]
    assert props["choice"]["anyOf"] == [{"enum": list(SPEECH.options), "type": "string"}, {"type": "null"}]
    assert props["claim"]["anyOf"][0]["enum"] == ["Detective", "Doctor", "Town", "Mafia"]
    assert props["text"]["minLength"] == 1 and props["text"]["maxLength"] == 1200
    assert suspicion["player"]["enum"] == list(SPEECH.suspects)
    assert (suspicion["level"]["minimum"], suspicion["level"]["maximum"]) == (0, 10)
    vote = grammar_schema(VOTE, 4096, TextLimits()).model_json_schema()["properties"]
    assert vote["choice"]["enum"] == list(VOTE.options)
    assert vote["text"]["type"] == vote["claim"]["type"] == "null"
    plan = grammar_schema(NIGHT_ZERO, 4096, TextLimits()).model_json_schema()["properties"]
    assert plan["choice"]["type"] == "null" and plan["text"]["maxLength"] == 800


# ---- what reaches the server ---------------------------------------------------------------

GAME = {"seed": 4, "players": 6, "round_cap": 2}


def _schema_of(body: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = body["response_format"]["json_schema"]["schema"]
    return schema


def _prompt_of(body: dict[str, Any]) -> str:
    return str(body["messages"][1]["content"])


def test_grammar_requests_carry_the_legal_options_and_the_bounds() -> None:
    with openai_server() as server:
        settings = ModelSettings(
            model="openai:local-g", base_url=server.base_url, max_tokens=1024, schema="grammar"
        )
        records: list[dict[str, Any]] = []
        run_game(GAME, model=settings, max_retries=1, on_prompt=records.append)
    assert server.bodies and all(a["schema"] == "grammar" for r in records for a in r["attempts"])
    assert all(a["schema_tokens"] == 0 for r in records for a in r["attempts"])  # not billed
    choices = set()
    for body in server.bodies:
        schema, prompt = _schema_of(body), _prompt_of(body)
        assert worst_tokens(schema) < body["max_completion_tokens"] == 1024
        choice = schema["properties"]["choice"]
        targets = TARGETS_LINE.search(prompt)
        if targets is None:
            assert choice == {"type": "null", "description": choice["description"]}
            continue
        options = choice["enum"] if "enum" in choice else choice["anyOf"][0]["enum"]
        assert options == targets["targets"].split(", ")
        me = re.search(r"^You are (.+?)\.", prompt, re.M)
        living = LIVING_LINE.search(prompt)
        assert me is not None and living is not None
        suspects = schema["$defs"]["Suspicion"]["properties"]["player"]["enum"]
        assert suspects == [p for p in living["names"].split(", ") if p != me[1]]
        choices.add(TASK_LINE.search(prompt)["action"])  # type: ignore[index]
    assert {"SPEAK", "VOTE"} <= choices


def test_stable_requests_carry_the_game_stable_schema_until_a_reask() -> None:
    with FaultServer({"illegal_choice": 0.25}, seed=3) as server:
        settings = ModelSettings(model="openai:house", base_url=server.base_url, schema="stable")
        records: list[dict[str, Any]] = []
        run_game(GAME, model=settings, max_retries=1, on_prompt=records.append)
    stable = response_format(Answer)["json_schema"]["schema"]
    reasks = [b for b in server.bodies if len(b["messages"]) > 2]
    firsts = [b for b in server.bodies if len(b["messages"]) == 2]
    assert reasks and all(_schema_of(b) == stable for b in firsts)
    assert all(_schema_of(b) != stable for b in reasks if _schema_of(b)["properties"]["choice"].get("anyOf"))
    assert all(a["schema"] == "stable" and a["schema_tokens"] > 0 for r in records for a in r["attempts"])


def test_a_choice_outside_the_options_is_rejected_and_reasked_with_the_error() -> None:
    # The fault server answers within the schema, then spoils some answers as a server that
    # ignores it would: a name no one at the table has.
    kind, error = "illegal_choice", "choice='Nobody Atall' is not allowed"
    with FaultServer({"illegal_choice": 0.3}, seed=5) as server:
        settings = ModelSettings(model="openai:house", base_url=server.base_url, schema="grammar")
        records: list[dict[str, Any]] = []
        state = run_game(GAME, model=settings, max_retries=2, on_prompt=records.append)
    assert state["winner"] in ("town", "mafia", "draw")
    rejected = [a for r in records for a in r["attempts"] if a["kind"] is not None]
    assert rejected and {a["kind"] for a in rejected} == {kind}
    assert all(error in a["error"] for a in rejected if a["kind"] == kind)
    reasks = [b for b in server.bodies if len(b["messages"]) == 4]
    assert reasks
    for body in reasks:
        stated = body["messages"][3]["content"]
        assert stated.startswith(f"Your previous answer was rejected ({kind}): ")
        assert _schema_of(body)["properties"]["choice"] is not None
