"""The answer schema in the dialect a model's server speaks: ``stable`` or ``grammar``.

``stable`` suits OpenAI's strict mode, which bills the response-format schema as prompt tokens,
caches it as the start of the prompt and does not support ``maxLength``: the first ask sends the
one game-stable ``Answer`` schema, and only a re-ask narrows the choice to the legal options.

``grammar`` suits servers that compile the schema into a decoding grammar (llama.cpp, vLLM's
guided decoding, Ollama's ``format``): there the schema costs no prompt tokens and leaves the
prompt's prefix alone, so every ask gets a schema made for its turn. The choice is an ``enum`` of
the legal options (null where the action asks none), a claim one of the four roles, a suspicion
names a living player, and every text and list is bounded so that the whole answer fits the
action's output limit by construction (``worst_tokens``). A server that ignores the bounds gets
its answer checked against them all the same: a text or list past its bound is cut (logged as
``text_truncated``) and the answer stands; a choice outside the options is rejected and re-asked.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, create_model

from mafia.game.actions import ActionBase, Answer, Suspicion, TextLimits
from mafia.game.rules import CLAIMABLE, MAX_PLAYERS, NAME_MAX
from mafia.models.server_signs import GRAMMAR_SERVERS, server_kind

Dialect = Literal["grammar", "stable"]
DIALECTS: tuple[Dialect, ...] = ("grammar", "stable")

# Hosts of providers whose structured outputs bill and cache the schema (OpenAI's strict mode).
_STABLE_HOSTS = ("api.openai.com", ".openai.azure.com", ".azure.com")
_STABLE_PROVIDERS = ("azure_openai", "azure")


def infer_dialect(provider: str, base_url: str | None, method: str | None) -> Dialect:
    """The dialect a model's server speaks when its settings do not say: ``grammar`` only for a
    ``base_url`` server known to enforce the schema's bounds, llama.cpp, vLLM or Ollama by its own
    signs (``mafia.models.server_signs``); ``stable`` for everything else: OpenAI's own API, Azure,
    providers reached without a ``base_url``, ``json_mode`` (which enforces no schema), and any
    other server (a gateway or proxy may ignore the bounds: ``stable`` has none to break)."""
    if method == "json_mode" or provider in _STABLE_PROVIDERS or base_url is None:
        return "stable"
    host = (urlsplit(base_url).hostname or "").lower()
    if any(host == h or (h.startswith(".") and host.endswith(h)) for h in _STABLE_HOSTS):
        return "stable"
    return "grammar" if server_kind(base_url) in GRAMMAR_SERVERS else "stable"


# ---- the answer's size in tokens -----------------------------------------------------------

SPACE_TOKENS = 2
"""Tokens allowed for each place the JSON grammar lets whitespace in (after ``{``, around ``:``,
after ``,``, before ``}`` and ``]``): a newline and an indent, as models write them."""
END_TOKENS = 1
"""The end-of-answer token a server counts against the limit."""


def worst_tokens(schema: Mapping[str, Any], defs: Mapping[str, Any] | None = None) -> int:
    """The most output tokens an answer that ``schema`` admits can take: one per character
    (a token holds at least one byte, so this holds for ASCII text) and ``SPACE_TOKENS`` for each
    whitespace slot. Every string needs a ``maxLength`` (or an ``enum``) and every array a
    ``maxItems``: an unbounded schema has no worst case and raises ``ValueError``."""
    defs = schema.get("$defs", {}) if defs is None else defs
    if "$ref" in schema:
        return worst_tokens(defs[str(schema["$ref"]).rsplit("/", 1)[-1]], defs)
    if "enum" in schema:
        return max(len(json.dumps(v, ensure_ascii=False)) for v in schema["enum"])
    if "anyOf" in schema:
        return max(worst_tokens(option, defs) for option in schema["anyOf"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return max(worst_tokens({**schema, "type": k}, defs) for k in kind)
    if kind == "object":
        props: Mapping[str, Any] = schema.get("properties", {})
        keys = sum(len(json.dumps(name, ensure_ascii=False)) + 1 for name in props)  # "name":
        separators = max(len(props) - 1, 0)
        slots = 3 * len(props) + 1 if props else 1
        values = sum(worst_tokens(p, defs) for p in props.values())
        return 2 + keys + separators + SPACE_TOKENS * slots + values
    if kind == "array":
        items = schema.get("maxItems")
        if not isinstance(items, int):
            raise ValueError("an array without maxItems has no longest answer")
        each = worst_tokens(schema.get("items", {}), defs) if items else 0
        return 2 + 2 * SPACE_TOKENS + items * each + max(items - 1, 0) * (1 + SPACE_TOKENS)
    if kind == "string":
        length = schema.get("maxLength")
        if not isinstance(length, int):
            raise ValueError("a string without maxLength has no longest answer")
        return 2 + length
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if not isinstance(low, int) or not isinstance(high, int):
            raise ValueError("an integer without minimum and maximum has no longest answer")
        return max(len(str(low)), len(str(high)))
    if kind == "null":
        return 4
    if kind == "boolean":
        return 5
    raise ValueError(f"no longest answer for the schema type {kind!r}")


# ---- one turn's bounds ---------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerShape:
    """What one turn's answer may hold: the legal ``options`` (empty: no choice is asked), whether
    the choice may be null (a speech nominates no one), the text's limit in characters (None: no
    text is asked), whether the words may claim a role, and the living players it may suspect."""

    options: tuple[str, ...]
    choice_optional: bool
    text_limit: int | None
    claims: bool
    suspects: tuple[str, ...]


@dataclass(frozen=True)
class Bounds:
    """The longest value of each answer field: characters of the text and of each reasoning
    field (observations, strategy, reasoning), items and characters of each list's entries."""

    text: int
    private: int
    suspicions: int
    suspicion_note: int
    notes: int
    note: int


NOTES_MAX = 3
"""Most relationships and most pattern notes an answer holds."""
MIN_NOTE = 24
"""The shortest list entry worth asking for: a list too tight for it holds fewer entries."""
MIN_POOL = 160
"""Tokens that must be left for the answer's words once its structure is paid for."""

# Shares of the tokens left after the structure, with and without a text to write.
_SHARES = {
    True: {"text": 0.40, "private": 0.10, "suspicions": 0.20, "notes": 0.05},
    False: {"text": 0.0, "private": 0.15, "suspicions": 0.35, "notes": 0.10},
}
_ZERO = Bounds(text=0, private=0, suspicions=0, suspicion_note=0, notes=0, note=0)
_SEPARATOR = 1 + SPACE_TOKENS  # "," and its whitespace between two list items


class BudgetTooSmall(ValueError):
    """An output limit that leaves too little of a bounded answer; the message says how much."""


def _list_bound(share: float, item: int, most: int, longest: int) -> tuple[int, int]:
    """(items, characters of each) for a list of up to ``most`` entries costing ``item`` tokens
    each with no words, within ``share`` tokens: every entry while each can say ``MIN_NOTE``
    characters, fewer entries otherwise; no entry longer than ``longest``."""
    if most == 0 or longest == 0:
        return 0, 0
    each = min(longest, int(share) // most - item - _SEPARATOR)
    if each >= MIN_NOTE:
        return most, each
    items = min(most, int(share) // (item + MIN_NOTE + _SEPARATOR))
    return items, (min(longest, MIN_NOTE) if items else 0)


def answer_bounds(shape: AnswerShape, output_tokens: int, limits: TextLimits) -> Bounds:
    """The bounds of ``shape``'s answer within ``output_tokens``: the structure (keys, options,
    punctuation, whitespace) first, then the text takes up to 40% of what is left (never more than
    its text limit), the three reasoning fields 10% each and the lists the rest, each entry within
    the note limit. Raises ``BudgetTooSmall`` when under ``MIN_POOL`` tokens are left for words."""
    zero = _schema_for(shape, _ZERO).model_json_schema()
    pool = output_tokens - worst_tokens(zero) - END_TOKENS
    if pool < MIN_POOL:
        raise BudgetTooSmall(
            f"an output limit of {output_tokens} tokens leaves {max(pool, 0)} for a bounded answer's "
            f"words; at least {output_tokens - pool + MIN_POOL} are needed"
        )
    share = _SHARES[shape.text_limit is not None]
    item = worst_tokens(zero["$defs"]["Suspicion"], zero["$defs"])
    suspicions, suspicion_note = _list_bound(
        pool * share["suspicions"], item, len(shape.suspects), limits.note
    )
    notes, note = _list_bound(pool * share["notes"], 2, NOTES_MAX, limits.note)
    return Bounds(
        text=min(shape.text_limit or 0, int(pool * share["text"])),
        private=min(limits.private, int(pool * share["private"])),
        suspicions=suspicions,
        suspicion_note=suspicion_note,
        notes=notes,
        note=note,
    )


@lru_cache(maxsize=8)
def min_output_tokens(shape: AnswerShape) -> int:
    """The smallest output limit that leaves ``shape``'s answer ``MIN_POOL`` tokens for words."""
    return worst_tokens(_schema_for(shape, _ZERO).model_json_schema()) + END_TOKENS + MIN_POOL


def worst_shape(players: int = MAX_PLAYERS, name_length: int = NAME_MAX) -> AnswerShape:
    """The costliest turn a table allows, for checking an output limit before a game starts:
    ``players`` seats whose names are ``name_length`` characters long, a text and a claim."""
    names = tuple(f"{seat:0{name_length}d}" for seat in range(players))
    return AnswerShape(
        options=(*names[1:], "skip"),
        choice_optional=False,
        text_limit=1,
        claims=True,
        suspects=names[1:],
    )


# ---- the schema ----------------------------------------------------------------------------

_CLAIMS = tuple(role.value for role in CLAIMABLE)

_made: OrderedDict[tuple[Any, ...], type[ActionBase]] = OrderedDict()
SCHEMA_CACHE_SIZE = 512
_lock = threading.Lock()


def _one_of(values: Sequence[str]) -> Any:
    return Literal.__getitem__(tuple(values))


def _described(name: str, model: type[BaseModel] = Answer, **bounds: Any) -> Any:
    """The field ``name`` of ``model`` with its description (the answer guide) and ``bounds``."""
    return Field(description=model.model_fields[name].description, **bounds)


def _schema_for(shape: AnswerShape, bounds: Bounds) -> type[ActionBase]:
    """``Answer`` narrowed to ``shape`` and bounded by ``bounds`` (a pydantic class, so a parsed
    answer is checked against the same bounds the server was asked to enforce)."""
    make: Any = create_model  # its overloads cannot type fields given as a mapping
    # With no one left to suspect the list holds no entry (``answer_bounds``); the name is moot.
    suspect = (_one_of(shape.suspects), ...) if shape.suspects else (str, Field(max_length=0))
    suspicion: Any = make(
        "Suspicion",
        __base__=Suspicion,
        __module__=Suspicion.__module__,
        player=suspect,
        level=(int, _described("level", Suspicion, ge=0, le=10)),
        reasoning=(str, _described("reasoning", Suspicion, max_length=bounds.suspicion_note)),
    )
    note: Any = Annotated[str, Field(max_length=bounds.note)]
    choice: Any = None
    if shape.options:
        choice = _one_of(shape.options) | None if shape.choice_optional else _one_of(shape.options)
    text: Any = (str, _described("text", min_length=1, max_length=bounds.text))
    model: type[ActionBase] = make(
        "Answer",
        __base__=Answer,
        __module__=Answer.__module__,
        __doc__=Answer.__doc__,
        observations=(str, _described("observations", max_length=bounds.private)),
        suspicions=(list[suspicion], _described("suspicions", max_length=bounds.suspicions)),
        relationships=(list[note], _described("relationships", max_length=bounds.notes)),
        pattern_notes=(list[note], _described("pattern_notes", max_length=bounds.notes)),
        strategy=(str, _described("strategy", max_length=bounds.private)),
        reasoning=(str, _described("reasoning", max_length=bounds.private)),
        text=text if shape.text_limit is not None else (None, _described("text")),
        choice=(choice, _described("choice")),
        claim=(_one_of(_CLAIMS) | None if shape.claims else None, _described("claim")),
    )
    return model


def grammar_schema(shape: AnswerShape, output_tokens: int, limits: TextLimits) -> type[ActionBase]:
    """The turn's bounded answer schema (see the module's doc), made once per shape, output limit
    and text limits (least recently used out first)."""
    key = (shape, output_tokens, limits)
    with _lock:
        found = _made.get(key)
        if found is not None:
            _made.move_to_end(key)
            return found
    model = _schema_for(shape, answer_bounds(shape, output_tokens, limits))
    with _lock:
        _made[key] = model
        if len(_made) > SCHEMA_CACHE_SIZE:
            _made.popitem(last=False)
    return model
