"""Checks of a run's input and context as the graph receives them (Studio, the SDK, ``graph.invoke``),
made as the command line makes its own: every unknown key and wrong type is refused with one line
naming the key and what is allowed, and a context policy is taken by name or by its settings."""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, Field, fields
from typing import Any, TypeVar, Union, cast, get_args, get_origin, get_type_hints

from mafia.context.policy import POLICIES, ContextPolicy, UnknownPolicy, policy_by_name
from mafia.game.rules import ConfigError

T = TypeVar("T")

_KINDS = {int: "an integer", bool: "true or false", str: "a string", float: "a number"}


def _wanted(hint: Any) -> tuple[tuple[type, ...], bool]:
    """The plain types a field's annotation allows, and whether it allows null."""
    if get_origin(hint) in (Union, types.UnionType):
        options = get_args(hint)
        return tuple(o for o in options if o is not type(None)), type(None) in options
    return (hint,), False


def check_value(where: str, value: Any, hint: Any) -> None:
    """``value`` has the plain type ``hint`` names (a bool is no integer), else a one-line error."""
    kinds, nullable = _wanted(hint)
    if value is None and nullable:
        return
    ok = any(
        isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
        for kind in kinds
        if isinstance(kind, type)
    )
    if not ok and all(kind in _KINDS for kind in kinds):
        wanted = " or ".join(_KINDS[kind] for kind in kinds) + (" or null" if nullable else "")
        raise ValueError(f"{where}: must be {wanted}, got {value!r}")


def from_mapping(where: str, kind: type[T], values: Mapping[str, Any]) -> T:
    """``kind`` (a dataclass) built from a JSON mapping: an unknown key is refused naming the
    allowed ones, and a value of the wrong type naming the type."""
    known = {f.name: f for f in fields(cast(Any, kind)) if f.init}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown setting; allowed: {', '.join(known)}")
    hints = get_type_hints(kind)
    for name, value in values.items():
        check_value(f"{where}.{name}", value, hints[name])
    return kind(**values)


def policy_from_input(value: Any) -> ContextPolicy:
    """A context policy given by its registered name, by its settings, or as a policy."""
    if isinstance(value, ContextPolicy):
        return value
    if isinstance(value, str):
        try:
            return policy_by_name(value)
        except UnknownPolicy as exc:
            raise ValueError(f"policy: {exc}") from None
    if isinstance(value, Mapping):
        try:
            return from_mapping("policy", ContextPolicy, value)
        except ValueError as exc:
            message = str(exc)
            raise ValueError(message if message.startswith("policy") else f"policy.{message}") from None
    raise ValueError(
        f"policy: must be a policy name ({', '.join(POLICIES)}) or a table of its settings, got {value!r}"
    )


def refuse_unknown(
    given: Iterable[str], known: Iterable[str], what: str, allowed: Iterable[str] = ()
) -> None:
    """One line for the first of ``given`` that is not ``known``, naming the keys a user may give
    (``allowed``, else ``known``)."""
    known = list(known)
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown {what} key; allowed: {', '.join(allowed or known)}")


def init_fields(target: object, values: Mapping[str, Any], what: str) -> None:
    """Set a dataclass's fields from keyword ``values``, the defaults for the rest; an unknown key
    is refused with one line (a run's context from Studio or the SDK arrives as keywords)."""
    known: dict[str, Field[Any]] = {f.name: f for f in fields(cast(Any, target)) if f.init}
    refuse_unknown(values, known, what)
    for name, f in known.items():
        if name in values:
            value = values[name]
        elif f.default is not MISSING:
            value = f.default
        else:
            value = cast(Any, f.default_factory)()
        setattr(target, name, value)


def check_setup_shape(raw: Any, keys: Iterable[str]) -> None:
    """A game's setup is a table; its names a list of strings and its roles a table of counts
    (their values are checked by the rules)."""
    if not isinstance(raw, Mapping):
        raise ConfigError("setup", f"must be a table of game settings ({', '.join(keys)}), got {raw!r}")
    names = raw.get("names")
    if names is not None:
        if not isinstance(names, list | tuple):
            raise ConfigError("names", f"must be a list of player names, got {names!r}")
        for index, name in enumerate(names):
            if not isinstance(name, str):
                raise ConfigError(f"names[{index}]", f"must be a string, got {name!r}")
    roles = raw.get("roles")
    if roles is not None:
        if not isinstance(roles, Mapping):
            raise ConfigError("roles", f"must map roles to counts, e.g. {{'mafia': 2}}, got {roles!r}")
        for role, count in roles.items():
            if not isinstance(count, int) or isinstance(count, bool):
                raise ConfigError(f"roles.{role}", f"must be an integer, got {count!r}")


SUMMARISER_FORMS = "a model spec (house, house:SEED, openai:MODEL...), seat:N (that seat's model) or default"
DEFAULT_SUMMARISER = "default"


def summariser_from_input(where: str, value: str, players: int) -> str | None:
    """The summariser a command line or game file names, as the Python API takes it: None for
    ``default`` (the model of every seat), ``seat:N`` with N a seat of the table, or a model spec
    (built once here, so a bad one is refused before the game); else one line naming the forms."""
    # The models load here, not with this module: the command line names settings without them.
    from mafia.models.factory import ModelSpecError, resolve_model
    from mafia.turn.people import is_human

    text = value.strip()
    if text.casefold() == DEFAULT_SUMMARISER:
        return None
    seat = text.removeprefix("seat:")
    if seat != text:
        if not seat.isdigit() or not 1 <= int(seat) <= players:
            raise ValueError(f"{where}: {value!r} names no seat (1-{players}); use {SUMMARISER_FORMS}")
        return f"seat:{int(seat)}"
    if is_human(text):
        raise ValueError(f"{where}: a person cannot write the summaries; use {SUMMARISER_FORMS}")
    try:
        resolve_model(text)
    except ModelSpecError:
        raise ValueError(f"{where}: {value!r} is no model spec; use {SUMMARISER_FORMS}") from None
    return text
