"""The game file: a TOML file holding what ``mafia play`` is told on its command line, plus the
models of every seat with their call settings. Read and checked whole before a game starts; every
problem is a ``GameFileError`` naming the file, the field and what is allowed."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mafia.context.policy import ContextPolicy
from mafia.models.factory import SPEC_HELP
from mafia.models.settings import ModelSettings, first_error
from mafia.records.cost import PRICE_KEYS
from mafia.run.inputs import policy_from_input

# Top-level keys and the TOML type each takes ("model" and seat entries: a spec or a table).
GAME_KEYS: dict[str, type] = {"seed": int, "players": int, "roles": dict, "names": list, "round_cap": int}
RUN_KEYS: dict[str, type] = {
    "max_retries": int,
    "out": str,
    "reveal": bool,
    "quiet": bool,
    "checkpoint": bool,
}
MODEL_KEYS: dict[str, type | tuple[type, ...]] = {"model": (str, dict), "seats": dict}
OTHER_KEYS: dict[str, type | tuple[type, ...]] = {"policy": (str, dict), "summariser": str, "prices": dict}
TOP_KEYS: dict[str, type | tuple[type, ...]] = {**GAME_KEYS, **RUN_KEYS, **MODEL_KEYS, **OTHER_KEYS}
SETTING_KEYS = tuple(ModelSettings.__dataclass_fields__)
_TYPE_NAMES = {int: "an integer", bool: "true or false", str: "a string", list: "an array", dict: "a table"}


class GameFileError(ValueError):
    """A game file that cannot be used; the one-line message names the file, field and fix."""


@dataclass
class GameFile:
    """A checked game file. ``setup`` holds the game fields it sets (seed, players, roles, names,
    round_cap; their values are checked by the rules once the command line's are added), ``run``
    the run options (max_retries, out, reveal, quiet, checkpoint); ``model`` is
    None when the file names no default model. Each seat's settings are the ``[model]`` table's with
    the seat's own fields over them."""

    path: Path
    setup: dict[str, Any] = field(default_factory=dict)
    run: dict[str, Any] = field(default_factory=dict)
    model: ModelSettings | None = None
    seats: dict[str, ModelSettings] = field(default_factory=dict)
    policy: ContextPolicy | None = None
    """The context policy: a registered name or a table of its settings."""
    summariser: str | None = None
    """Who writes the summaries (a model spec, ``seat:N`` or ``default``), checked once the table's
    size is known (``run_input.summariser_from_input``)."""
    prices: dict[str, float] | None = None
    """Prices per million tokens (input, cached_input, output) for the run's cost."""


def load_game_file(path: Path) -> GameFile:
    """Read and check ``path`` (GameFileError says what is wrong, on one line)."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise GameFileError(f"--config: no file at {path}") from None
    except IsADirectoryError:
        raise GameFileError(f"--config: {path} is a folder; give a TOML file") from None
    except OSError as exc:
        raise GameFileError(f"--config: cannot read {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise GameFileError(f"{path}: not a valid TOML file: {exc}") from None
    return parse_game_file(data, path)


def parse_game_file(data: Mapping[str, Any], path: Path) -> GameFile:
    """Check the parsed TOML ``data`` of ``path``."""
    where = f"{path}:"
    for key, value in data.items():
        if key not in TOP_KEYS:
            raise GameFileError(f"{where} {key}: unknown key; allowed: {', '.join(TOP_KEYS)}")
        _check_type(where, key, value, TOP_KEYS[key])
    file = GameFile(path=path)
    file.setup = {key: data[key] for key in GAME_KEYS if key in data}
    for role, count in file.setup.get("roles", {}).items():
        _check_type(where, f"roles.{role}", count, int)
    for index, name in enumerate(file.setup.get("names", [])):
        _check_type(where, f"names[{index}]", name, str)
    file.run = {key: data[key] for key in RUN_KEYS if key in data}
    if file.run.get("max_retries", 0) < 0:
        raise GameFileError(f"{where} max_retries: must be 0 or more, got {file.run['max_retries']}")
    if file.run.get("out") == "":
        raise GameFileError(f"{where} out: must name a folder, got an empty string")
    if "policy" in data:
        try:
            file.policy = policy_from_input(data["policy"])
        except ValueError as exc:
            raise GameFileError(f"{where} {exc}") from None
    if "prices" in data:
        file.prices = _prices(where, data["prices"])
    file.summariser = data.get("summariser")
    default = _entry(data.get("model", {}))
    if "model" in data:
        file.model = _settings(where, "model", default)
    for seat, entry in data.get("seats", {}).items():
        _check_type(where, f"seats.{seat}", entry, (str, dict))
        file.seats[seat] = _settings(where, f"seats.{seat}", {**default, **_entry(entry)})
    return file


def _prices(where: str, table: Mapping[str, Any]) -> dict[str, float]:
    """The price table: every key of ``PRICE_KEYS``, each a number of 0 or more."""
    for key in table:
        if key not in PRICE_KEYS:
            raise GameFileError(f"{where} prices.{key}: unknown key; allowed: {', '.join(PRICE_KEYS)}")
    for key in PRICE_KEYS:
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise GameFileError(
                f"{where} prices.{key}: must be a number of 0 or more (per million tokens), got {value!r}"
            )
    return {key: float(table[key]) for key in PRICE_KEYS}


def _entry(value: str | dict[str, Any]) -> dict[str, Any]:
    """A model entry as a table: a bare string is the spec."""
    return {"model": value} if isinstance(value, str) else dict(value)


def _settings(where: str, name: str, entry: dict[str, Any]) -> ModelSettings:
    if "model" not in entry:
        raise GameFileError(f"{where} {name}.model: missing; give the model spec ({SPEC_HELP})")
    for key in entry:
        if key not in SETTING_KEYS:
            raise GameFileError(f"{where} {name}.{key}: unknown key; allowed: {', '.join(SETTING_KEYS)}")
    try:
        return ModelSettings(**entry)
    except ValidationError as exc:
        raise GameFileError(f"{where} {name}.{first_error(exc)}") from None


def _check_type(where: str, key: str, value: Any, kind: type | tuple[type, ...]) -> None:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # TOML booleans are Python ints: a seed of `true` is a wrong type, not 1.
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        wanted = " or ".join(_TYPE_NAMES[k] for k in kinds)
        raise GameFileError(f"{where} {key}: must be {wanted}, got {value!r}")
