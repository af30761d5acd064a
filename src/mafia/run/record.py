"""What a run was started as: its models seat by seat (with their settings, never a secret), its
people, its context policy and its settings, recorded once at setup in the game's state (``run``)
and in ``run.json``, so that a resumed run is the same run.

A resume that gives nothing takes the record (the command line, ``resume_game``, and Studio or the
SDK resuming without a context). A setting given that differs from the record is refused with
``RunMismatch``, naming both values, unless the run's context allows that kind of change
(``GameContext.change_run``): then the change is applied and logged as a ``run_changed`` event.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from langchain_core.language_models import BaseChatModel

from mafia.context.policy import UNRECORDED_POLICY, ContextPolicy
from mafia.game.actions import TextLimits
from mafia.game.events import RunChanged, dump_event
from mafia.game.state import JSON
from mafia.models.factory import parse_house_seed, settings_for
from mafia.models.settings import ModelSettings
from mafia.run.runtime import GameContext
from mafia.turn.people import HUMAN, is_human

Recorded = str | JSON


class RunMismatch(ValueError):
    """A resumed run was given a setting other than the one it was started with."""

    def __init__(self, setting: str, before: str, after: str, kind: str) -> None:
        super().__init__(f"{setting}: the run was started with {before}; got {after}")
        self.setting, self.before, self.after, self.kind = setting, before, after, kind


def settings_record(settings: ModelSettings) -> Recorded:
    """A model's settings as recorded: the spec alone when nothing else differs from the defaults
    (or the model is the house model, which ignores them), else the spec and what differs."""
    if parse_house_seed(settings.model) is not None or is_human(settings):
        return settings.model
    defaults = asdict(ModelSettings(model=settings.model))
    changed = {k: v for k, v in asdict(settings).items() if k != "model" and v != defaults[k]}
    return {"model": settings.model, **changed} if changed else settings.model


def describe_model(model: Any) -> Recorded:
    """A seat's model as recorded: its spec and settings; a model given as an instance by what it
    is (the house model's seed, an OpenAI model's name and server) or, failing that, its class."""
    from mafia.models.house import HouseModel

    if isinstance(model, str):
        return HUMAN if is_human(model) else settings_record(settings_for(model))
    if isinstance(model, ModelSettings):
        return settings_record(model)
    if isinstance(model, HouseModel):
        return f"house:{model.seed}"
    if isinstance(model, BaseChatModel) and type(model).__name__ == "ChatOpenAI":
        name, base = getattr(model, "model_name", None), getattr(model, "openai_api_base", None)
        if isinstance(name, str):
            return {"model": f"openai:{name}", "base_url": base} if base else f"openai:{name}"
    return f"<{type(model).__name__}>"


def model_from_record(setting: str, recorded: Recorded) -> Any:
    """The model a record names, as a spec or settings (a model given as an instance cannot be
    rebuilt: it must be given again)."""
    if isinstance(recorded, dict):
        return ModelSettings(**recorded)
    if recorded.startswith("<"):
        raise RunMismatch(setting, f"a model given from Python ({recorded})", "none; give it again", "model")
    return recorded


def seat_number(key: str, names: Sequence[str]) -> str:
    """A per-seat key (a seat number or a player's name, any case) as its seat number; a key that
    names no seat is left as it is, for the seat checks to refuse."""
    stripped = key.strip()
    if stripped.isdigit():
        return stripped
    by_name = {name.casefold(): str(k) for k, name in enumerate(names, 1)}
    return by_name.get(stripped.casefold(), key)


def describe_context(context: GameContext, names: Sequence[str]) -> JSON:
    """The record of a run's context: models by seat number, the people, the policy, the settings."""
    seats = {seat_number(k, names): describe_model(m) for k, m in context.seat_models.items()}
    return {
        "model": describe_model(context.model),
        "seat_models": dict(sorted(seats.items(), key=lambda kv: (not kv[0].isdigit(), kv[0].zfill(4)))),
        "humans": [k for k, m in seats.items() if m == HUMAN],
        "policy": asdict(context.policy),
        "summariser": _summariser_record(context.summariser),
        "max_retries": context.max_retries,
        "text_limits": asdict(context.text_limits),
    }


def _summariser_record(summariser: Any) -> Recorded | None:
    """Who writes a run's summaries as recorded: none (the default model), a seat, or a model."""
    if summariser is None or (isinstance(summariser, str) and summariser.startswith("seat:")):
        return summariser
    return describe_model(summariser)


def _summariser_from(recorded: Recorded | None) -> Any:
    """The summariser a record names (None: the default model)."""
    return None if recorded is None else model_from_record("summariser", recorded)


def policy_from_record(run: Mapping[str, Any]) -> ContextPolicy:
    """The run's context policy rebuilt from its record (a setting added since the run was
    recorded takes its default, which plays as the run did before the setting existed)."""
    known = {f.name for f in fields(ContextPolicy)}
    return ContextPolicy(**{k: v for k, v in run["policy"].items() if k in known})


def context_from_record(run: Mapping[str, Any], change: Sequence[str] = ()) -> GameContext:
    """The run's context rebuilt from its record."""
    return GameContext(
        model=model_from_record("model", run["model"]),
        seat_models={k: model_from_record(f"seat_models.{k}", m) for k, m in run["seat_models"].items()},
        policy=policy_from_record(run),
        summariser=None
        if run.get("summariser") is None
        else model_from_record("summariser", run["summariser"]),
        max_retries=run["max_retries"],
        text_limits=TextLimits(**run.get("text_limits", {})),
        change_run=list(change),
    )


def _canonical(recorded: Recorded) -> Recorded:
    """A recorded model in one spelling: ``house`` is ``house:0`` (a variant keeps its name:
    ``random-legal`` is not ``house``), settings as recorded."""
    if isinstance(recorded, str) and not recorded.startswith("<") and recorded != HUMAN:
        seed = parse_house_seed(recorded)
        return f"{recorded.partition(':')[0]}:{seed}" if seed is not None else recorded
    return recorded


def shown(value: Any) -> str:
    """A recorded value as text: a string as it is, a table as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))


def _policy_texts(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[str, str]:
    """Two differing policies as a message names them: by name, and by the settings that differ
    where the names are the same (a policy given by its fields, or changed since the run began)."""
    if before.get("name") != after.get("name"):
        return str(before.get("name")), str(after.get("name"))
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))

    def text(policy: Mapping[str, Any]) -> str:
        return f"{policy.get('name')} ({', '.join(f'{k}={shown(policy.get(k))}' for k in changed)})"

    return text(before), text(after)


def differences(recorded: Mapping[str, Any], given: Mapping[str, Any]) -> list[RunMismatch]:
    """Every setting of ``given`` that differs from ``recorded``, as the mismatch it would be."""
    found: list[RunMismatch] = []

    def model(setting: str, before: Recorded | None, after: Recorded | None) -> None:
        default_before = recorded["model"] if before is None else before
        default_after = given["model"] if after is None else after
        if _canonical(default_before) != _canonical(default_after):
            before_text, after_text = repr(shown(default_before)), repr(shown(default_after))
            found.append(RunMismatch(setting, before_text, after_text, "model"))

    model("model", recorded["model"], given["model"])
    for seat in sorted(set(recorded["seat_models"]) | set(given["seat_models"]), key=lambda k: k.zfill(4)):
        model(f"seat_models.{seat}", recorded["seat_models"].get(seat), given["seat_models"].get(seat))
    before_policy = asdict(policy_from_record(recorded))
    after_policy = asdict(policy_from_record(given))
    if before_policy != after_policy:
        before_text, after_text = _policy_texts(before_policy, after_policy)
        found.append(RunMismatch("policy", before_text, after_text, "policy"))
    if recorded.get("summariser") != given.get("summariser"):
        before, after = recorded.get("summariser"), given.get("summariser")
        found.append(RunMismatch("summariser", repr(shown(before)), repr(shown(after)), "model"))
    for setting in ("max_retries", "text_limits"):
        before, after = recorded.get(setting), given.get(setting)
        if before != after:
            found.append(RunMismatch(setting, shown(before), shown(after), "model"))
    return found


@functools.cache
def _default_record() -> JSON:
    """The record of a context that says nothing (Studio or the SDK resuming without one)."""
    return describe_context(GameContext(), ())


@dataclass
class RunOf:
    """The context a step plays with, and what a turn node adds to its update when the run was
    changed on resume (the new record and a ``run_changed`` event per setting)."""

    context: GameContext
    changes: list[JSON]
    record: JSON | None

    def applied(self, update: dict[str, Any]) -> dict[str, Any]:
        """``update`` with the changes logged first and the record replaced."""
        if not self.changes:
            return update
        return {**update, "run": self.record, "events": [*self.changes, *update.get("events", [])]}


def run_of(state: Mapping[str, Any], context: GameContext | None) -> RunOf:
    """The run's context for a step: the recorded one when the step was given none (or the empty
    default), else the given one checked against the record (RunMismatch for a change it does not
    allow; an allowed change is returned as events)."""
    recorded = state.get("run")
    names = [s["name"] for s in state.get("seats", [])]
    # Described once per step: a context without seat models reads the same with or without names.
    given = describe_context(context, names) if context is not None else None
    if context is None or given is None or (not context.change_run and given == _default_record()):
        if recorded is None:  # a game checkpointed before runs were recorded: the defaults it was
            # started under, never a default that came later
            return RunOf(GameContext(policy=UNRECORDED_POLICY), [], None)
        return RunOf(context_from_record(recorded), [], recorded)
    if recorded is None:
        return RunOf(context, [], None)
    mismatches = differences(recorded, given)
    refused = [m for m in mismatches if m.kind not in context.change_run]
    if refused:
        raise refused[0]
    changes = [
        dump_event(
            RunChanged(
                round=state.get("round", 0),
                setting=m.setting,
                before=_plain(m.before),
                after=_plain(m.after),
            )
        )
        for m in mismatches
    ]
    return RunOf(context, changes, given if changes else recorded)


def _plain(text: str) -> str:
    """A mismatch's value without the quotes the message puts around a model spec."""
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == "'" else text
