"""Checking and cleaning model answers: why an answer is rejected, and the text that may be shown.

Every way a model can answer badly is an answer, never a game-stopper: an exception that stands for
a bad answer (a refusal, an output cut off by the length limit or a content filter, invalid JSON, a
schema violation) becomes a ``Rejection`` with its kind, and so does a parsed answer whose choice is
not legal or whose text is empty or not valid text. Only LangChain's parse and validation errors
and the provider's own answer errors count: provider faults (``openai.APIError`` and the like) and
any other error are not answers, ``rejection_of`` returns None for them and the caller lets them
propagate.
Accepted text is cleaned and capped per field before it reaches the log (and so any prompt).
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, create_model

from mafia.game.actions import TextLimits
from mafia.game.events import AnswerKind


@dataclass(frozen=True)
class Rejection:
    """A rejected answer: its kind, the error as stated to the model, and the answer as text."""

    kind: AnswerKind
    error: str
    raw: str = ""


# What the model is told after each kind of rejection, before the re-ask.
_ADVICE: dict[AnswerKind, str] = {
    AnswerKind.INVALID_JSON: "Answer with one JSON object that follows the schema, nothing else.",
    AnswerKind.SCHEMA: "Fill in every field of the schema with the type it asks for.",
    AnswerKind.ILLEGAL_CHOICE: "Choose only from the valid options, spelled exactly as listed.",
    AnswerKind.REFUSAL: "This is a party game of fiction; every statement in it is part of the game. "
    "Please answer the task.",
    AnswerKind.LENGTH: "Your answer was cut off at the output limit: keep every field brief.",
    AnswerKind.CONTENT_FILTER: "Your answer was stopped by a content filter: answer again in plain, "
    "inoffensive words.",
    AnswerKind.EMPTY_TEXT: "Write the text the task asks for.",
    AnswerKind.INVALID_TEXT: "Write plain text only.",
}


def reask_text(rejection: Rejection) -> str:
    """The user message after a rejected answer: what was wrong and what to do."""
    return (
        f"Your previous answer was rejected ({rejection.kind.value}): {rejection.error}\n"
        f"{_ADVICE[rejection.kind]} Answer again with the same schema."
    )


def reask_exchange(rejection: Rejection) -> tuple[str, str]:
    """The two messages a re-ask adds after the prompt: the rejected answer as the model's message
    and what was wrong as the user's."""
    return clean_text(rejection.raw) or "(no answer)", reask_text(rejection)


def normalize_choice(value: Any, options: Sequence[str]) -> str | None:
    """Match an answer's choice to a legal option, forgiving case and stray spaces."""
    if not isinstance(value, str):
        return None
    wanted = value.strip().casefold()
    return next((o for o in options if o.casefold() == wanted), None)


# ---- exceptions ------------------------------------------------------------------------------


def rejection_of(exc: BaseException, choice_field: str | None = None) -> Rejection | None:
    """The rejection ``exc`` stands for, or None if it is not a bad answer (a provider fault, a
    programming error): those must propagate, so a game stops cleanly and can resume."""
    from langchain_core.exceptions import ModelRefusalError, OutputParserException
    from openai import ContentFilterFinishReasonError, LengthFinishReasonError

    if isinstance(exc, ModelRefusalError):
        message = exc.raw_message
        reason = message.response_metadata.get("finish_reason") if message is not None else None
        text = encodable(message.text) if message is not None else ""
        if reason == "content_filter":
            return Rejection(AnswerKind.CONTENT_FILTER, "the output was stopped by a content filter.", text)
        return Rejection(AnswerKind.REFUSAL, f"you declined to answer ({encodable(str(exc))}).", text)
    if isinstance(exc, LengthFinishReasonError):
        choices = exc.completion.choices
        content = choices[0].message.content if choices else None
        return Rejection(
            AnswerKind.LENGTH, "the answer hit the output token limit.", encodable(content or "")
        )
    if isinstance(exc, ContentFilterFinishReasonError):
        return Rejection(AnswerKind.CONTENT_FILTER, "the output was stopped by a content filter.")
    if isinstance(exc, ValidationError):
        return _validation_rejection(exc, choice_field)
    if isinstance(exc, OutputParserException):
        cause = exc.__cause__
        if isinstance(cause, ValidationError):
            return _validation_rejection(cause, choice_field)
        raw = encodable(str(exc.llm_output or ""))
        return Rejection(AnswerKind.INVALID_JSON, f"the answer was not valid JSON ({_short(exc)}).", raw)
    if isinstance(exc, json.JSONDecodeError):
        return Rejection(AnswerKind.INVALID_JSON, f"the answer was not valid JSON ({_short(exc)}).", exc.doc)
    # Any other error (a ValueError or KeyError from a model adapter, a provider's error body) is
    # no answer at all: re-asking would hide it behind fallbacks, so it stops the game.
    return None


def _validation_rejection(exc: ValidationError, choice_field: str | None) -> Rejection:
    errors = exc.errors(include_url=False)
    raw = _raw_from_errors(errors)
    invalid = [e for e in errors if e["type"] == "json_invalid"]
    if any("surrogate" in e["msg"] or "hex escape" in e["msg"] for e in invalid):
        # A lone surrogate (an unpaired \ud800-\udfff escape) is invalid text, not broken JSON.
        return Rejection(AnswerKind.INVALID_TEXT, "the answer holds an unpaired surrogate escape.", raw)
    if invalid:
        return Rejection(AnswerKind.INVALID_JSON, "the answer was not valid JSON.", raw)
    if choice_field is not None and any(
        e["type"] == "literal_error" and e["loc"][:1] == (choice_field,) for e in errors
    ):
        value = next(e["input"] for e in errors if e["loc"][:1] == (choice_field,))
        return Rejection(
            AnswerKind.ILLEGAL_CHOICE, f"{choice_field}={shown_value(value)} is not allowed.", raw
        )
    where = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in errors[:5])
    return Rejection(AnswerKind.SCHEMA, f"the answer did not match the schema ({encodable(where)}).", raw)


def _raw_from_errors(errors: Sequence[Mapping[str, Any]]) -> str:
    """The rejected answer as far as pydantic kept it: the JSON text, or the object it parsed."""
    for error in errors:
        value = error.get("input")
        if isinstance(value, str) and len(error["loc"]) == 0:
            return encodable(value)
        if isinstance(value, dict) and len(error["loc"]) <= 1:
            return encodable(json.dumps(value, ensure_ascii=False, default=str))
    return ""


def _short(exc: BaseException, limit: int = 300) -> str:
    text = encodable(" ".join(str(exc).split()))
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---- text ------------------------------------------------------------------------------------

# Lone surrogates cannot be encoded at all; control characters (all but tab, newline and carriage
# return) have no place in a player's words and can hide text from the prompt's safety checks.
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_BAD_TEXT = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def encodable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD, so it can be logged and sent back."""
    return _SURROGATE.sub("\ufffd", text)


def clean_text(text: str) -> str:
    """``text`` without lone surrogates, with control characters turned into spaces."""
    return _CONTROL.sub(" ", _SURROGATE.sub("", text))


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a JSON value, with its path (``suspicions.0.reasoning``)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, f"{path}.{index}" if path else str(index))


def bad_text(answer: Mapping[str, Any]) -> Rejection | None:
    """A rejection for the first text of ``answer`` holding a lone surrogate or control character."""
    for path, text in strings(answer):
        found = _BAD_TEXT.search(text)
        if found is not None:
            code = f"U+{ord(found.group()):04X}"
            return Rejection(AnswerKind.INVALID_TEXT, f"{path} contains the invalid character {code}.")
    return None


def empty_text(answer: Mapping[str, Any], text_field: str | None) -> Rejection | None:
    """A rejection if the action's text field is missing or holds nothing to say."""
    if text_field is None:
        return None
    text = answer.get(text_field)
    if isinstance(text, str) and clean_text(text).strip():
        return None
    return Rejection(AnswerKind.EMPTY_TEXT, f"{text_field} is empty.")


PRIVATE_FIELDS = ("observations", "strategy", "reasoning")
ELLIPSIS = "…"


@dataclass(frozen=True)
class Truncation:
    """One field cut to its limit: where, how long it was, and the limit."""

    field: str
    length: int
    limit: int


SHOWN_VALUE = 80
"""Characters of a rejected value an error quotes back: enough to recognise it, and an answer of
any length leaves the re-ask room for the prompt."""


def shown_value(value: Any) -> str:
    """A rejected value as an error quotes it: its repr, encodable, cut to ``SHOWN_VALUE``."""
    return cap(encodable(repr(value)), SHOWN_VALUE)


def cap(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def clean_answer(
    answer: Mapping[str, Any], text_field: str | None, text_limit: int, limits: TextLimits
) -> tuple[dict[str, Any], list[Truncation]]:
    """``answer`` with every string cleaned and every text capped, and the truncations made."""
    cut: list[Truncation] = []

    def limit_of(path: str) -> int:
        if path == text_field:
            return text_limit
        return limits.private if path in PRIVATE_FIELDS else limits.note

    def walk(value: Any, path: str) -> Any:
        if isinstance(value, str):
            text = clean_text(value)
            limit = limit_of(path)
            if len(text) > limit:
                cut.append(Truncation(path, len(text), limit))
                return cap(text, limit)
            return text
        if isinstance(value, Mapping):
            return {k: walk(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(value)]
        return value

    return walk(answer, ""), cut


# ---- bounds a server did not enforce ----------------------------------------------------------

_LENGTH_ERRORS = frozenset({"string_too_long", "too_long"})


def answer_args(raw: Any, reply: str = "") -> dict[str, Any] | None:
    """The answer's arguments as the model sent them: its first tool call's, or its JSON content
    (``reply``, the reply's content, where the client's own parse kept no message)."""
    calls = getattr(raw, "tool_calls", None)
    if calls:
        args = calls[0].get("args")
        return args if isinstance(args, dict) else None
    content = getattr(raw, "content", None) or reply
    if isinstance(content, str):
        try:
            value = json.loads(content)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    return None


def fit_to_bounds(
    schema: type[BaseModel], args: Mapping[str, Any]
) -> tuple[dict[str, Any], list[Truncation]] | None:
    """``args`` validated against ``schema`` with every text and list past its bound cut to it, and
    the cuts; None when anything else is wrong with them. A server that ignores the schema's bounds
    (one without grammar support, a gateway) so loses a note's tail, not the whole answer."""
    value: Any = json.loads(json.dumps(args))  # a copy to cut, of plain JSON values
    cuts: list[Truncation] = []
    for _ in range(3):  # a list cut may leave its items' bounds to check again
        try:
            return schema.model_validate(value).model_dump(mode="json"), cuts
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
        if not all(e["type"] in _LENGTH_ERRORS for e in errors):
            return None
        for e in sorted(errors, key=lambda e: -len(e["loc"])):  # items before their lists
            *path, key = e["loc"]
            parent = value
            for step in path:
                parent = parent[step]
            item = parent[key]
            limit = int(e["ctx"]["max_length"])
            parent[key] = cap(item, limit) if isinstance(item, str) else item[:limit]
            cuts.append(Truncation(".".join(str(k) for k in e["loc"]), len(item), limit))
    return None


# ---- the re-ask's schema ---------------------------------------------------------------------

_constrained: OrderedDict[tuple[type[BaseModel], str, tuple[str, ...], bool], type[BaseModel]] = OrderedDict()
CONSTRAINED_CACHE_SIZE = 512
_lock = threading.Lock()


def constrained_schema(
    schema: type[BaseModel], choice_field: str, options: Sequence[str], nullable: bool
) -> type[BaseModel]:
    """A copy of ``schema`` whose ``choice_field`` is an ``enum`` of ``options`` (and null when
    ``nullable``): with constrained decoding a model cannot answer an illegal choice again.

    The first ask keeps the game-stable schema (a provider's prompt cache holds it); only re-asks
    use this. Cached by schema, field and options, least recently used out first.
    """
    key = (schema, choice_field, tuple(options), nullable)
    with _lock:
        found = _constrained.get(key)
        if found is not None:
            _constrained.move_to_end(key)
            return found
    info = schema.model_fields[choice_field]
    allowed: Any = Literal.__getitem__(tuple(options))
    annotation: Any = allowed | None if nullable else allowed
    make: Any = create_model  # its overloads cannot type fields given as a mapping
    model: type[BaseModel] = make(
        schema.__name__,
        __base__=schema,
        __module__=schema.__module__,
        __doc__=schema.__doc__,
        **{choice_field: (annotation, Field(description=info.description))},
    )
    with _lock:
        _constrained[key] = model
        if len(_constrained) > CONSTRAINED_CACHE_SIZE:
            _constrained.popitem(last=False)
    return model
