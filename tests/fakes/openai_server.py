"""A local OpenAI-compatible chat server (stdlib, 127.0.0.1) that answers with the house model.

Driven through the real ``langchain-openai`` client, it shows what a game sends to a provider: the
request bodies and headers are kept, and ``hang`` picks requests that are held without an answer
(a server that stops answering) until the server stops, and ``spoil`` picks requests answered
with text that is no JSON (a bad answer, rejected and re-asked). Each answer reports its usage as OpenAI
does (``usage`` with ``prompt_tokens_details.cached_tokens``) and as llama.cpp does (``timings``
with ``cache_n``, ``prompt_n`` and the milliseconds spent, ``prompt_ms`` and ``predicted_ms``); the
figures reported are kept in ``reported``.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from mafia.models.house import HouseModel

SCHEMA_NOTE = re.compile(r"It must match this JSON schema:\n(\{.*\})\s*$", re.S)


class OpenAIServer:
    """Answers ``POST /v1/chat/completions`` in json_schema, function calling or JSON mode."""

    def __init__(
        self,
        hang: Callable[[dict[str, Any]], bool] | None = None,
        hold: threading.Event | None = None,
        spoil: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        self.hang = hang or (lambda body: False)
        self.spoil = spoil or (lambda body: False)
        self.hold = hold  # while unset, every request waits before it is answered
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.held = 0
        self.reported: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.house = HouseModel(seed=0)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.bodies.append(body)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                try:
                    if server.hang(body):
                        with server.lock:
                            server.held += 1
                        server.release.wait()
                        return
                    if server.hold is not None:
                        server.hold.wait()
                    reply = json.dumps(server.completion(body)).encode()
                finally:
                    with server.lock:
                        server.in_flight -= 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        """The house model's answer to a chat request, as an OpenAI chat completion."""
        messages = [_message(m) for m in body["messages"]]
        kwargs: dict[str, Any] = {}
        response_format = body.get("response_format")
        if response_format and response_format.get("type") == "json_object":
            # JSON mode: the schema is in the system message; answer it like a json_schema request.
            found = SCHEMA_NOTE.search(str(messages[0].content))
            assert found is not None, "JSON mode without the schema in the system message"
            schema = json.loads(found[1])
            wrapped = {"name": "answer", "schema": schema}
            kwargs["response_format"] = {"type": "json_schema", "json_schema": wrapped}
        elif response_format:
            kwargs["response_format"] = response_format
        if "tools" in body:
            kwargs.update(tools=body["tools"], tool_choice=body.get("tool_choice"))
        answer: AIMessage = (
            AIMessage("I would rather not say.")
            if self.spoil(body)
            else self.house.answer(messages, **kwargs)
        )
        message: dict[str, Any] = {"role": "assistant", "content": answer.content or None}
        if answer.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": json.dumps(call["args"])},
                }
                for call in answer.tool_calls
            ]
        return {
            "id": "chatcmpl-local",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "local"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if answer.tool_calls else "stop",
                }
            ],
            **self.usage(body, message),
        }

    def usage(self, body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        """Usage figures for an answer, derived from the request alone (about four characters a
        token): the system message counts as the cached prefix, as a prefix cache would serve it."""
        prompt = sum(len(str(m.get("content") or "")) for m in body["messages"]) // 4 + 1
        cached = len(str(body["messages"][0].get("content") or "")) // 4
        completion = len(json.dumps(message)) // 4 + 1
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
        timings = {
            "cache_n": cached,
            "prompt_n": prompt - cached,
            "predicted_n": completion,
            "prompt_ms": (prompt - cached) * 0.5,  # as a fast CPU server would take
            "predicted_ms": completion * 20.0,
        }
        with self.lock:
            self.reported.append((usage, timings))
        return {"usage": usage, "timings": timings}


def _message(raw: dict[str, Any]) -> BaseMessage:
    """A request's message as LangChain's: tool calls and tool results kept as such (recall)."""
    if raw["role"] == "tool":
        return ToolMessage(raw.get("content") or "", tool_call_id=raw.get("tool_call_id") or "")
    if raw["role"] == "assistant" and raw.get("tool_calls"):
        calls = [
            {
                "name": c["function"]["name"],
                "args": json.loads(c["function"]["arguments"]),
                "id": c["id"],
                "type": "tool_call",
            }
            for c in raw["tool_calls"]
        ]
        return AIMessage(raw.get("content") or "", tool_calls=calls)
    kinds = {"system": SystemMessage, "developer": SystemMessage, "assistant": AIMessage}
    return kinds.get(raw["role"], HumanMessage)(raw.get("content") or "")


def task_of(body: dict[str, Any]) -> str:
    """The action a request asks for, from its task header (``VOTE``, ``PROTECT``...)."""
    found = re.search(r"\[YOUR TASK: ([A-Z_0-9]+)\]", json.dumps(body["messages"]).replace("\\n", "\n"))
    return found[1] if found else ""


@contextmanager
def openai_server(
    hang: Callable[[dict[str, Any]], bool] | None = None,
    hold: threading.Event | None = None,
    spoil: Callable[[dict[str, Any]], bool] | None = None,
) -> Iterator[OpenAIServer]:
    """A running server; held requests are let go when it stops."""
    server = OpenAIServer(hang, hold, spoil)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        if hold is not None:
            hold.set()
        server.httpd.shutdown()
        server.httpd.server_close()
