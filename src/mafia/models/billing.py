"""What a provider bills for a player's calls: tokens sent, tokens a prefix cache serves.

A call is the response-format schema plus the chat messages, serialized once here (``call_text``):
the schema's JSON as the OpenAI client sends it, then each message's role and content. OpenAI
documents that the structured-output schema serves as a prefix to the system message, so it comes
first. The cache model is OpenAI-style automatic prefix caching: a call's cached tokens are the
longest prefix it shares with any earlier call of the same game (any player), counted only from
``CACHE_MIN`` tokens and in steps of ``CACHE_STEP``; billed-equivalent input tokens are the uncached
tokens plus ``CACHED_PRICE`` times the cached ones.

Each call records one key per cacheable prefix length (a chained hash of its first 1,024, 1,152,
... tokens, as a provider's cache does), so a game's prompt records alone are enough to bill it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, cast

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from mafia.context.tokens import count_tokens, encoder, safe_chunks
from mafia.game.state import JSON
from mafia.records.call_records import CallTokens, TurnTokens

CACHE_MIN = 1024
CACHE_STEP = 128
CACHED_PRICE = 0.25

# OpenAI's chat roles for LangChain's message types.
_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}
_CHUNK_LIMIT = 20_000  # lines, as the token counts (``mafia.context.tokens``): bounded for long runs

Schema = type[BaseModel] | Mapping[str, Any]


def response_format(schema: Schema) -> JSON:
    """The ``response_format`` ChatOpenAI sends for ``with_structured_output(schema)`` (its default
    json_schema method). A class goes to the OpenAI client unchanged, which sends its strict
    schema (``strict_schema``); a mapping goes through langchain-openai's converter, loaded only
    then: it brings the OpenAI client, a third of a second at every start of a game."""
    if isinstance(schema, type):
        strict = strict_schema(schema.model_json_schema())
        return {
            "type": "json_schema",
            "json_schema": {"schema": strict, "name": schema.__name__, "strict": True},
        }
    from langchain_openai.chat_models.base import _convert_to_openai_response_format

    return cast(JSON, _convert_to_openai_response_format(dict(schema)))


def strict_schema(schema: JSON) -> JSON:
    """A class's JSON schema made strict as the OpenAI client makes it before sending it
    (``openai.lib._pydantic.to_strict_json_schema``): objects closed, every property required,
    ``None`` defaults dropped, a lone ``allOf`` merged, a ``$ref`` beside other keys inlined.
    Changes ``schema`` in place. The test suite holds it equal to the client's for every schema a
    game sends and for each of these cases."""
    return _strict(schema, schema)


def _strict(node: Any, root: JSON) -> JSON:
    if not isinstance(node, dict):
        raise TypeError(f"expected a JSON schema object, got {node!r}")
    for key in ("$defs", "definitions"):
        if isinstance(defs := node.get(key), dict):
            for sub in defs.values():
                _strict(sub, root)
    if node.get("type") == "object" and "additionalProperties" not in node:
        node["additionalProperties"] = False
    if isinstance(properties := node.get("properties"), dict):
        node["required"] = list(properties)
        node["properties"] = {name: _strict(sub, root) for name, sub in properties.items()}
    if isinstance(items := node.get("items"), dict):
        node["items"] = _strict(items, root)
    if isinstance(any_of := node.get("anyOf"), list):
        node["anyOf"] = [_strict(sub, root) for sub in any_of]
    if isinstance(all_of := node.get("allOf"), list):
        if len(all_of) == 1:
            node.update(_strict(all_of[0], root))
            node.pop("allOf")
        else:
            node["allOf"] = [_strict(sub, root) for sub in all_of]
    if "default" in node and node["default"] is None:
        node.pop("default")
    ref = node.get("$ref")
    if ref and len(node) > 1:
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise ValueError(f"unexpected $ref {ref!r}")
        target: Any = root
        for key in ref[2:].split("/"):
            target = target[key]
        if not isinstance(target, dict):
            raise ValueError(f"$ref {ref} is not a schema object")
        node.update({**target, **node})
        node.pop("$ref")
        return _strict(node, root)
    return node


@lru_cache(maxsize=64)
def _class_schema_text(schema: type[BaseModel]) -> str:
    return json.dumps(response_format(schema), ensure_ascii=False, separators=(",", ":"))


def schema_text(schema: Schema) -> str:
    """The response format as JSON text, compact and unescaped like the OpenAI client's body."""
    if isinstance(schema, type):
        return _class_schema_text(schema)
    return json.dumps(response_format(schema), ensure_ascii=False, separators=(",", ":"))


def call_text(schema: str, messages: Sequence[BaseMessage]) -> str:
    """One call as a provider's cache sees it: the schema line (none where the schema is not part
    of the prompt), then each message's role line and content (and an assistant's tool calls, as
    JSON). Every part starts after a newline and with a letter or "{", so token counts of the parts
    add up to the whole (see ``mafia.context.tokens``)."""
    parts = [schema, "\n"] if schema else []
    for message in messages:
        content = message.content if isinstance(message.content, str) else message.text
        parts += [_ROLES.get(message.type, message.type), "\n", content, "\n"]
        calls = getattr(message, "tool_calls", None)
        if calls:
            args = [{"name": c["name"], "arguments": c["args"]} for c in calls]
            parts += [json.dumps(args, ensure_ascii=False, separators=(",", ":")), "\n"]
    return "".join(parts)


_chunk_ids: dict[str, tuple[int, ...]] = {}


def encode(text: str) -> list[int]:
    """The o200k_base token ids of ``text``; lines encoded before are not encoded again."""
    ids: list[int] = []
    for chunk in safe_chunks(text):
        known = _chunk_ids.get(chunk)
        if known is None:
            known = tuple(encoder().encode_ordinary(chunk))
            if len(_chunk_ids) >= _CHUNK_LIMIT:
                _chunk_ids.clear()
            _chunk_ids[chunk] = known
        ids.extend(known)
    return ids


def prefix_keys(ids: Sequence[int]) -> list[str]:
    """One key per cacheable prefix of ``ids`` (its first 1,024 tokens, 1,152, ...): a hash chained
    from the previous key, so equal keys mean equal prefixes."""
    data = array("I", ids)
    if sys.byteorder == "big":  # the same keys on every machine
        data.byteswap()
    raw = memoryview(data.tobytes())
    size = data.itemsize
    keys: list[str] = []
    previous = b""
    start = 0
    for end in range(CACHE_MIN, len(ids) + 1, CACHE_STEP):
        digest = hashlib.blake2b(previous, digest_size=8)
        digest.update(raw[start * size : end * size])
        previous = digest.digest()
        keys.append(previous.hex())
        start = end
    return keys


def billed(total: int, cached: int) -> float:
    """Billed-equivalent input tokens: the uncached ones plus the cached at ``CACHED_PRICE``."""
    return total - cached + CACHED_PRICE * cached


def call_tokens(
    messages: Sequence[BaseMessage],
    schema: Schema | None,
    raw: str,
    tools: Sequence[Mapping[str, Any]] = (),
) -> CallTokens:
    """The token fields of one call (an attempt of a turn): the messages, the schema (None where
    the server compiles it into a grammar and bills none of it; any other tools offered follow it
    as JSON), the raw answer, and the keys of its cacheable prefixes for ``GameCache``."""
    ids, schema_tokens = _call_ids(messages, schema, tools)
    return {
        "prompt_tokens": len(ids) - schema_tokens,
        "schema_tokens": schema_tokens,
        "output_tokens": count_tokens(raw) if raw else 0,
        "prefix_keys": prefix_keys(ids),
    }


def _call_ids(
    messages: Sequence[BaseMessage], schema: Schema | None, tools: Sequence[Mapping[str, Any]]
) -> tuple[list[int], int]:
    """A call's token ids as a provider's cache sees them, and how many of them are the schema's
    and the tools'."""
    text = schema_text(schema) if schema is not None else ""
    for tool in tools:
        text += json.dumps(tool, ensure_ascii=False, separators=(",", ":"))
    return encode(call_text(text, messages)), (len(encode(text + "\n")) if text else 0)


def input_tokens(
    messages: Sequence[BaseMessage], schema: Schema | None, tools: Sequence[Mapping[str, Any]] = ()
) -> int:
    """A call's input tokens as billed (``prompt_tokens + schema_tokens`` of ``call_tokens``): its
    messages with their role lines, the schema and the tools. What a token budget bounds."""
    return len(_call_ids(messages, schema, tools)[0])


SUMMED = ("prompt_tokens", "schema_tokens", "output_tokens")


def turn_tokens(attempts: Iterable[Mapping[str, Any]]) -> TurnTokens:
    """A turn's token fields: the sums over its calls (every attempt is a call)."""
    attempts = list(attempts)
    return cast(TurnTokens, {name: sum(int(a.get(name, 0)) for a in attempts) for name in SUMMED})


class GameCache:
    """The prefix cache of one game: fed its prompt records in their final written order, it adds
    ``cached_tokens`` and ``billed_tokens`` to each call (attempt) and to each record."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def serve(self, keys: Sequence[str]) -> int:
        """Cached tokens of a call with these prefix keys: the longest of its cacheable prefixes
        (``CACHE_MIN`` plus whole ``CACHE_STEP``s) that an earlier call had too, else none. The call
        then counts as earlier for the next ones."""
        hits = 0
        for key in keys:
            if key not in self.seen:
                break
            hits += 1
        self.seen.update(keys)
        return 0 if hits == 0 else CACHE_MIN + CACHE_STEP * (hits - 1)

    def bill(self, record: Mapping[str, Any]) -> JSON:
        """``record`` with the cache fields added to it and to each of its attempts (a new record:
        the one given, which may live in the game's state, is left as it is)."""
        attempts: list[JSON] = []
        for attempt in record.get("attempts", []):
            if "prefix_keys" in attempt:
                cached = self.serve(attempt["prefix_keys"])
                cost = billed(attempt["prompt_tokens"] + attempt["schema_tokens"], cached)
                attempt = {**attempt, "cached_tokens": cached, "billed_tokens": cost}
            attempts.append(attempt)
        return {
            **record,
            "attempts": attempts,
            "cached_tokens": sum(a.get("cached_tokens", 0) for a in attempts),
            "billed_tokens": sum((a.get("billed_tokens", 0.0) for a in attempts), 0.0),
        }
