"""Which kind of server a ``base_url`` is, read from the server's own signs.

The ``grammar`` dialect bounds every text and list of the answer schema, which only a server that
compiles the schema into a decoding grammar enforces. So it is inferred only for servers that say
what they are: llama.cpp answers ``GET /props`` with its generation settings, and lists its models
as ``owned_by: "llamacpp"``; vLLM lists them as ``owned_by: "vllm"``; Ollama answers ``GET /`` with
"Ollama is running". Anything else (a gateway, a proxy, an OpenAI-compatible service, a server
that does not answer) is not known to enforce the bounds. Each server is asked once per process,
with a short timeout.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Literal
from urllib.parse import urlsplit

Server = Literal["llama.cpp", "vllm", "ollama"]
GRAMMAR_SERVERS: tuple[Server, ...] = ("llama.cpp", "vllm", "ollama")
PROBE_SECONDS = 1.5
_OWNERS: dict[str, Server] = {"llamacpp": "llama.cpp", "vllm": "vllm", "ollama": "ollama"}
_known: dict[str, Server | None] = {}
_lock = threading.Lock()


def _get(url: str) -> bytes | None:
    """The body of ``GET url``, or None for any failure (no server, an error status, a timeout)."""
    try:
        with urllib.request.urlopen(url, timeout=PROBE_SECONDS) as reply:
            body: bytes = reply.read(65_536)
            return body
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _json(body: bytes | None) -> object:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None


def _probe(base_url: str) -> Server | None:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    origin = f"{parts.scheme}://{parts.netloc}"
    props = _json(_get(f"{origin}/props"))
    if isinstance(props, dict) and "default_generation_settings" in props:
        return "llama.cpp"
    models = _json(_get(base_url.rstrip("/") + "/models"))
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        for model in models["data"]:
            owner = model.get("owned_by") if isinstance(model, dict) else None
            if isinstance(owner, str) and owner.lower() in _OWNERS:
                return _OWNERS[owner.lower()]
    root = _get(origin + "/")
    if root is not None and b"Ollama is running" in root:
        return "ollama"
    return None


def server_kind(base_url: str) -> Server | None:
    """The kind of server at ``base_url`` by its own signs (asked once per process), or None."""
    key = base_url.rstrip("/")
    with _lock:
        if key in _known:
            return _known[key]
    found = _probe(key)
    with _lock:
        _known[key] = found
    return found
