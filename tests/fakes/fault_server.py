"""A local OpenAI-compatible chat server that answers with the house model and injects faults.

``POST /v1/chat/completions`` runs ``HouseModel`` on the request's messages to produce a good answer
for the request's ``response_format`` (a json_schema), then, with the configured probabilities,
spoils it. Answer faults (a bad answer the engine must re-ask and fall back from): invalid JSON, a
schema violation, an illegal choice, a refusal, ``finish_reason`` length or content filter, an
empty text, invalid text (a lone surrogate or a control character), an overlong text, and an answer
past every bound of the schema (``unbounded``: each text and note far too long, each list too
long, as a server that ignores ``maxLength`` and ``maxItems`` writes). Provider
faults (which the client retries and, past its retries, stop the game for a resume): 429 with a
small Retry-After, 500, 503 with a small Retry-After, a hang longer than the client's timeout, a
dropped connection. Stdlib only, on 127.0.0.1; each request is handled on its own thread.

Which fault a request gets is drawn from a stream seeded by the server's seed, the request body and
how many times that body was seen before, so a retried request draws again.
"""

from __future__ import annotations

import hashlib
import json
import random
import socket
import threading
from collections import Counter
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from mafia.models.house import HouseModel

ANSWER_FAULTS = (
    "invalid_json",
    "schema",
    "illegal_choice",
    "refusal",
    "length",
    "content_filter",
    "empty_text",
    "invalid_text",
    "overlong",
    "unbounded",
)
PROVIDER_FAULTS = ("rate_limit", "server_error", "unavailable", "hang", "drop")
FAULTS = ANSWER_FAULTS + PROVIDER_FAULTS
CHOICE_FIELDS = ("choice", "nomination", "vote", "target")
TEXT_FIELDS = ("text", "speech", "message", "plan")
ILLEGAL_NAME = "Nobody Atall"


class FaultServer:
    """The server, started on a free local port; use as a context manager.

    ``faults`` maps fault kinds (``FAULTS``) to their probability per request, drawn with ``seed``;
    ``house_seed`` seeds the house model's answers. ``burst`` makes the
    requests numbered in it (counting from 1, in arrival order) fail with 503, to exhaust a client's
    retries on purpose. ``injected`` counts the faults served, by kind; ``bodies`` keeps every
    request body, in arrival order.
    """

    def __init__(
        self,
        faults: Mapping[str, float] | None = None,
        *,
        seed: int = 0,
        house_seed: int = 0,
        hang_seconds: float = 3.0,
        retry_after: float = 0.01,
        burst: range = range(0),
    ) -> None:
        unknown = set(faults or {}) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}; known: {FAULTS}")
        self.faults = dict(faults or {})
        self.seed = seed
        self.hang_seconds = hang_seconds
        self.retry_after = retry_after
        self.burst = burst
        self.injected: Counter[str] = Counter()
        self.requests = 0
        self.bodies: list[dict[str, Any]] = []
        self.house = HouseModel(seed=house_seed)
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fault-server", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FaultServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # wakes hanging handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    # ---- deciding ------------------------------------------------------------------------

    def draw(self, body: bytes) -> tuple[str | None, random.Random]:
        """The fault for this request (None for a good answer) and the stream that shapes it."""
        key = hashlib.sha256(body).hexdigest()
        with self._lock:
            self.requests += 1
            number = self.requests
            seen = self._seen[key]
            self._seen[key] += 1
        rng = random.Random(f"{self.seed}:{key}:{seen}")
        if number in self.burst:
            return "unavailable", rng
        roll = rng.random()
        for kind, chance in self.faults.items():
            if roll < chance:
                return kind, rng
            roll -= chance
        return None, rng

    def count(self, kind: str) -> None:
        with self._lock:
            self.injected[kind] += 1

    def good_answer(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The house model's answer for the request's messages and response format, as a dict."""
        message = self.house.answer(
            to_messages(request["messages"]), response_format=request.get("response_format")
        )
        answer: dict[str, Any] = json.loads(message.text)
        return answer


def to_messages(messages: list[Mapping[str, Any]]) -> list[BaseMessage]:
    """Chat-completions messages as LangChain messages (text content only)."""
    kinds = {
        "system": SystemMessage,
        "developer": SystemMessage,
        "user": HumanMessage,
        "assistant": AIMessage,
    }
    out: list[BaseMessage] = []
    for m in messages:
        content = m.get("content") or ""
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        out.append(kinds.get(m["role"], HumanMessage)(content))
    return out


LONG_TAIL = " and then some more words" * 40


def unbounded(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer`` past every bound: every text and note 960 characters longer, every list of notes
    or suspicions three entries longer (choices and claims kept, so only bounds are broken)."""
    out: dict[str, Any] = {}
    for key, value in answer.items():
        if key in CHOICE_FIELDS or key == "claim":
            out[key] = value
        elif isinstance(value, str):
            out[key] = value + LONG_TAIL
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            longer = [{**v, "reasoning": str(v.get("reasoning", "")) + LONG_TAIL} for v in value]
            out[key] = longer + [longer[0]] * 3
        elif isinstance(value, list):
            out[key] = [str(v) + LONG_TAIL for v in value] + [LONG_TAIL] * 3
        else:
            out[key] = value
    return out


def spoil(kind: str, answer: dict[str, Any], rng: random.Random) -> tuple[str | None, str, str | None]:
    """The answer spoiled by ``kind``: (content, finish_reason, refusal), or the good answer's
    content when the kind does not apply to this answer (no choice or text field to spoil)."""
    choice = next((f for f in CHOICE_FIELDS if f in answer), None)
    text = next((f for f in TEXT_FIELDS if isinstance(answer.get(f), str)), None)
    good = json.dumps(answer)
    if kind == "invalid_json":
        return good[: rng.randrange(1, len(good) - 1)], "stop", None
    if kind == "schema":
        spoilt = dict(answer)
        if rng.random() < 0.5:
            del spoilt[rng.choice(sorted(spoilt))]
        else:
            spoilt["suspicions"] = "everyone"
        return json.dumps(spoilt), "stop", None
    if kind == "refusal":
        return None, "stop", "I'm sorry, but I can't help with that."
    if kind == "length":
        return good[: len(good) // 3], "length", None
    if kind == "content_filter":
        return None, "content_filter", None
    if kind == "illegal_choice" and choice is not None:
        return json.dumps({**answer, choice: ILLEGAL_NAME}), "stop", None
    if kind == "empty_text" and text is not None:
        return json.dumps({**answer, text: rng.choice(["", "   ", "\n"])}), "stop", None
    if kind == "invalid_text":
        field = text or "reasoning"
        bad = rng.choice(["\ud83d", "\udc00", "\u0007", "\x00", "\x1b[2J"])
        return json.dumps({**answer, field: f"{answer.get(field, '')} {bad} end"}), "stop", None
    if kind == "overlong" and text is not None:
        return (
            json.dumps({**answer, text: (answer[text] + " ") * (20_000 // (len(answer[text]) + 1) + 1)}),
            "stop",
            None,
        )
    if kind == "unbounded":
        return json.dumps(unbounded(answer)), "stop", None
    return good, "stop", None


def _handler(server: FaultServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if not self.path.endswith("/chat/completions"):
                self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                return
            request = json.loads(body)
            with server._lock:
                server.bodies.append(request)
            kind, rng = server.draw(body)
            if kind in PROVIDER_FAULTS:
                server.count(kind)
                self._provider_fault(kind, request, body)
                return
            answer = server.good_answer(request)
            content, finish, refusal = (
                spoil(kind, answer, rng) if kind else (json.dumps(answer), "stop", None)
            )
            if kind is not None and (content, finish, refusal) != (json.dumps(answer), "stop", None):
                server.count(kind)
            self._complete(request, content, finish, refusal)

        def _provider_fault(self, kind: str, request: Mapping[str, Any], body: bytes) -> None:
            if kind == "rate_limit":
                self._send(429, _error("Rate limit reached", "rate_limit_exceeded"), retry=True)
            elif kind == "server_error":
                self._send(500, _error("The server had an error", "server_error"))
            elif kind == "unavailable":
                self._send(503, _error("The engine is currently overloaded", "server_error"), retry=True)
            elif kind == "hang":
                server._stop.wait(server.hang_seconds)
                self._complete(request, json.dumps(server.good_answer(request)), "stop", None)
            else:  # drop: close the connection without a response
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)

        def _complete(
            self, request: Mapping[str, Any], content: str | None, finish: str, refusal: str | None
        ) -> None:
            prompt = sum(len(str(m.get("content") or "")) for m in request["messages"]) // 4
            completion = len(content or refusal or "") // 4
            self._send(
                200,
                {
                    "id": "chatcmpl-fault",
                    "object": "chat.completion",
                    "created": 0,
                    "model": request.get("model", "house"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content, "refusal": refusal},
                            "finish_reason": finish,
                            "logprobs": None,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": prompt,
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion,
                        "prompt_tokens_details": {"cached_tokens": prompt // 2},
                    },
                },
            )

        def _send(self, status: int, payload: Mapping[str, Any], *, retry: bool = False) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if retry:
                    self.send_header("Retry-After", str(server.retry_after))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout): nothing to answer

    return Handler


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "code": code, "param": None}}
