"""Writing an answer into any JSON schema: known fields from the decision, defaults elsewhere.

A schema is compiled once into a tree of small functions (``hint -> value``) and cached by object
identity, so filling the action schemas costs a few microseconds per field. The filler honours
``$ref``/``$defs``, ``anyOf``/``oneOf``/``allOf``, ``enum``/``const``, type lists with ``null``,
string lengths, number bounds and array sizes, so an unknown schema still gets a valid instance.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

MISSING: Any = object()
"""The hint for a field the decision says nothing about."""

Fill = Callable[[Any, dict[str, Any]], Any]  # (hint, the top-level hints) -> value
_MAX_DEPTH = 12
_CACHE_SIZE = 64
_cache: OrderedDict[int, tuple[Mapping[str, Any], Fill]] = OrderedDict()
_lock = threading.Lock()  # votes and night actions fan out in parallel threads

_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda h: isinstance(h, str),
    "integer": lambda h: isinstance(h, int) and not isinstance(h, bool),
    "number": lambda h: isinstance(h, int | float) and not isinstance(h, bool),
    "boolean": lambda h: isinstance(h, bool),
    "array": lambda h: isinstance(h, list),
    "object": lambda h: isinstance(h, dict),
    "null": lambda h: h is None,
}


def fill(schema: Mapping[str, Any], hints: Mapping[str, Any]) -> dict[str, Any]:
    """An instance of the object ``schema`` with ``hints`` where their names and types fit."""
    key = id(schema)
    entry = _cache.get(key)
    if entry is None or entry[0] is not schema:
        entry = (schema, compile_schema(schema))
        with _lock:
            _cache[key] = entry  # the entry keeps the schema alive, so its id is not reused
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    root = dict(hints)
    value = entry[1](root, root)
    return value if isinstance(value, dict) else {}


def compile_schema(schema: Mapping[str, Any]) -> Fill:
    """The filling function of a JSON schema (its ``$defs`` resolved against itself)."""
    defs = schema.get("$defs") or schema.get("definitions") or {}
    return _Compiler(defs if isinstance(defs, Mapping) else {}).compile(schema, 0)


def _fits(kind: Any, hint: Any) -> bool:
    if hint is MISSING:
        return True
    check = _CHECKS.get(kind) if isinstance(kind, str) else None
    return check(hint) if check is not None else True


class _Compiler:
    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs

    def resolve(self, schema: Any) -> Mapping[str, Any]:
        for _ in range(32):
            if not (isinstance(schema, Mapping) and "$ref" in schema):
                break
            schema = self.defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
        return schema if isinstance(schema, Mapping) else {}

    def compile(self, schema: Any, depth: int) -> Fill:
        s = self.resolve(schema)
        if depth > _MAX_DEPTH:
            return lambda _h, _r: None
        if "const" in s:
            const = s["const"]
            return lambda _h, _r: const
        enum = s.get("enum")
        if isinstance(enum, list) and enum:
            first = enum[0]
            return lambda h, _r: h if h in enum else first
        for key in ("anyOf", "oneOf"):
            options = s.get(key)
            if isinstance(options, list) and options:
                return self.union([self.resolve(o) for o in options], depth)
        parts = s.get("allOf")
        if isinstance(parts, list) and parts:
            merged: dict[str, Any] = {}
            for part in parts:
                merged.update(self.resolve(part))
            return self.compile(merged, depth)
        kind = s.get("type")
        if isinstance(kind, list):
            return self.union([{**s, "type": k} for k in kind], depth)
        if kind == "object" or (kind is None and "properties" in s):
            return self.obj(s, depth)
        if kind == "array":
            return self.array(s, depth)
        if kind == "string":
            return self.string(s)
        if kind in ("integer", "number"):
            return self.number(s, kind)
        if kind == "boolean":
            return lambda h, _r: h if isinstance(h, bool) else False
        if kind == "null":
            return lambda _h, _r: None
        return lambda h, _r: "" if h is MISSING else h

    def union(self, options: list[Mapping[str, Any]], depth: int) -> Fill:
        nullable = any(o.get("type") == "null" for o in options)
        typed = [o for o in options if o.get("type") != "null"]
        concrete = [(o.get("type"), self.compile(o, depth)) for o in typed]

        def fill_union(h: Any, root: dict[str, Any]) -> Any:
            if h is None and nullable:
                return None
            if h is MISSING and nullable:
                return None
            for kind, f in concrete:
                if _fits(kind, h):
                    return f(h, root)
            return concrete[0][1](h, root) if concrete else None

        return fill_union

    def obj(self, s: Mapping[str, Any], depth: int) -> Fill:
        props = s.get("properties")
        fields = (
            [(name, self.compile(sub, depth + 1)) for name, sub in props.items()]
            if isinstance(props, Mapping)
            else []
        )

        def fill_obj(h: Any, root: dict[str, Any]) -> dict[str, Any]:
            # A nested object nothing is known about gets the top-level hints by field name.
            known = h if isinstance(h, dict) else root
            return {name: f(known.get(name, MISSING), root) for name, f in fields}

        return fill_obj

    def array(self, s: Mapping[str, Any], depth: int) -> Fill:
        item = self.compile(s.get("items", {}), depth + 1)
        low = s.get("minItems")
        high = s.get("maxItems")
        low = low if isinstance(low, int) else 0
        high = high if isinstance(high, int) else None

        def fill_array(h: Any, root: dict[str, Any]) -> list[Any]:
            hints: list[Any] = h if isinstance(h, list) else []
            if len(hints) < low:
                hints = hints + [MISSING] * (low - len(hints))
            if high is not None:
                hints = hints[:high]
            return [item(x, root) for x in hints]

        return fill_array

    def string(self, s: Mapping[str, Any]) -> Fill:
        low, high = s.get("minLength"), s.get("maxLength")
        low = low if isinstance(low, int) else 0
        high = high if isinstance(high, int) else None
        if not low and high is None:  # the common case, kept cheap
            return lambda h, _r: h if isinstance(h, str) else "n/a"

        def fill_string(h: Any, _root: dict[str, Any]) -> str:
            text = h if isinstance(h, str) else "n/a"
            if len(text) < low:
                text += "." * (low - len(text))
            if high is not None and len(text) > high:
                text = text[:high]
            return text

        return fill_string

    def number(self, s: Mapping[str, Any], kind: str) -> Fill:
        low: float | None = None
        high: float | None = None
        step = 1.0 if kind == "integer" else 1e-6
        for key, bump in (("minimum", 0.0), ("exclusiveMinimum", step)):
            value = s.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                low = float(value) + bump
        for key, bump in (("maximum", 0.0), ("exclusiveMaximum", step)):
            value = s.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                high = float(value) - bump

        if low is None and high is None and kind == "integer":
            return lambda h, _r: h if type(h) is int else round(h) if type(h) is float else 5

        def fill_number(h: Any, _root: dict[str, Any]) -> int | float:
            ok = isinstance(h, int | float) and not isinstance(h, bool)
            value = float(h) if ok else 5.0
            if low is not None:
                value = max(value, low)
            if high is not None:
                value = min(value, high)
            return round(value) if kind == "integer" else value

        return fill_number
