"""A server that ignores the schema's bounds costs a note's tail, never the answer: a text or list
past its bound is cut and logged as ``text_truncated``, and the answer's speech and choice stand.
And ``grammar`` (bounds in every ask) is inferred only for servers that show themselves to be
llama.cpp, vLLM or Ollama; any other server gets ``stable`` unless its settings say otherwise.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest
from langchain_core.messages import AIMessage

from fakes.fault_server import LONG_TAIL, FaultServer
from mafia.game.actions import TextLimits
from mafia.game.events import AnswerKind
from mafia.models.schema_dialect import AnswerShape, grammar_schema
from mafia.models.server_signs import server_kind
from mafia.models.settings import ModelSettings
from mafia.nodes.player import parse_answer
from mafia.play.runner import run_game
from mafia.turn.answers import fit_to_bounds

GAME = {"seed": 4, "players": 7}
NAMES = tuple(f"Player {seat}" for seat in range(1, 8))
SPEECH = AnswerShape(
    options=NAMES[1:4], choice_optional=True, text_limit=1200, claims=True, suspects=NAMES[1:]
)


OVERLONG_NOTE = {
    "observations": "quiet table",
    "suspicions": [{"player": "Player 2", "level": 6, "reasoning": "pushed a quick vote" + LONG_TAIL}],
    "relationships": [],
    "pattern_notes": [],
    "strategy": "watch",
    "reasoning": "short",
    "text": "I nominate Player 2.",
    "choice": "Player 2",
    "claim": None,
}
"""A speech whose one suspicion's reasoning runs past its bound."""


def test_one_note_past_its_bound_is_cut_and_the_rest_of_the_answer_stands() -> None:
    schema = grammar_schema(SPEECH, 768, TextLimits())
    args = OVERLONG_NOTE
    fitted = fit_to_bounds(schema, args)
    assert fitted is not None
    answer, cuts = fitted
    assert [c.field for c in cuts] == ["suspicions.0.reasoning"]
    assert answer["text"] == args["text"] and answer["choice"] == "Player 2"
    assert answer["suspicions"][0]["reasoning"].startswith("pushed a quick vote")
    assert fit_to_bounds(schema, {**args, "choice": "Nobody"}) is None  # not a bound: a rejection


def test_a_call_past_its_bounds_parses_to_the_cut_answer_and_its_cuts() -> None:
    """The turn's parse step keeps the cuts (the attempt logs them as ``text_truncated``), and
    a structured output that fails for another reason is a rejection."""
    schema = grammar_schema(SPEECH, 768, TextLimits())
    args = OVERLONG_NOTE
    message = AIMessage("", tool_calls=[{"name": schema.__name__, "args": args, "id": "call-1"}])
    out = {"parsed": None, "parsing_error": ValueError("too long"), "raw": message, "content": ""}
    answer, cuts, rejection = parse_answer(out, schema, "choice")
    assert rejection is None and answer is not None and answer["choice"] == "Player 2"
    assert [c.field for c in cuts] == ["suspicions.0.reasoning"]
    nothing = {"parsed": None, "parsing_error": None, "raw": AIMessage("hello"), "content": "hello"}
    answer, cuts, rejection = parse_answer(nothing, schema, "choice")
    assert answer is None and cuts == [] and rejection is not None
    assert rejection.kind is AnswerKind.INVALID_JSON


Dialect = Literal["grammar", "stable"]


def _unbounded_game(schema: Dialect | None) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    with FaultServer({"unbounded": 1.0}, seed=1) as server:
        settings = ModelSettings(model="openai:house", base_url=server.base_url, schema=schema)
        records: list[dict[str, Any]] = []
        state = run_game(GAME, model=settings, max_retries=2, on_prompt=records.append)
        return state, records, server.injected["unbounded"]


@pytest.mark.parametrize("schema", ["grammar", None], ids=["grammar", "inferred"])
def test_a_server_ignoring_every_bound_leaves_no_fallback(schema: Dialect | None) -> None:
    state, records, spoiled = _unbounded_game(schema)
    attempts = [a for r in records for a in r["attempts"]]
    assert spoiled > 20 and state["winner"] is not None
    assert [e for e in state["events"] if e["type"] == "fallback"] == []
    assert [a for a in attempts if a["kind"] is not None] == []  # nothing re-asked either
    assert {a["schema"] for a in attempts} == {schema or "stable"}
    cut = [e for e in state["events"] if e["type"] == "text_truncated"]
    assert len(cut) >= spoiled  # every spoiled answer lost tails, and said so
    speeches = [e for e in state["events"] if e["type"] == "speech"]
    assert speeches and all("and then some more words" in s["text"] for s in speeches)  # it stood


@contextmanager
def signs_server(pages: dict[str, str]) -> Iterator[str]:
    """A server answering ``GET`` with ``pages`` (path -> body), 404 elsewhere: its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write((body or "").encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _models(owner: str) -> str:
    return json.dumps({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": owner}]})


@pytest.mark.parametrize(
    ("pages", "kind", "dialect"),
    [
        ({"/props": json.dumps({"default_generation_settings": {}})}, "llama.cpp", "grammar"),
        ({"/v1/models": _models("llamacpp")}, "llama.cpp", "grammar"),
        ({"/v1/models": _models("vllm")}, "vllm", "grammar"),
        ({"/": "Ollama is running"}, "ollama", "grammar"),
        ({"/v1/models": _models("openai")}, None, "stable"),  # a gateway
        ({}, None, "stable"),
    ],
    ids=["llama.cpp-props", "llama.cpp-models", "vllm", "ollama", "gateway", "silent"],
)
def test_grammar_is_inferred_only_for_servers_known_to_enforce_it(
    pages: dict[str, str], kind: str | None, dialect: str
) -> None:
    with signs_server(pages) as url:
        assert server_kind(url) == kind
        assert ModelSettings(model="openai:local", base_url=url).dialect == dialect
        assert ModelSettings(model="openai:local", base_url=url, schema="grammar").dialect == "grammar"
