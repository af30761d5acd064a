"""Prompt templates (package data under prompts/) and the exact placeholders each one takes.

Templates are ``string.Template`` texts (``$name``). ``TEMPLATE_FIELDS`` is the contract between a
template and its renderer: ``render`` refuses a call whose values are not exactly those names, and
a test checks every file against the table, so a template and its renderer cannot drift apart.
A line holding only a placeholder whose value is empty is dropped, so optional parts leave no
blank lines.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

from mafia.game.protocol import ACTIONS
from mafia.game.rules import ROLES

_SECTION = frozenset({"header"})
_TASK = frozenset({"header", "answer"})

_GIVEN: dict[str, frozenset[str]] = {
    "sections/identity": _SECTION | {"identity_line", "persona_line", "playbook"},
    "sections/rules": _SECTION | {"seats", "composition", "town_roles", "night_rules", "round_cap"},
    "sections/state": _SECTION | {"round_line", "living_line", "dead_line", "day_lines"},
    "sections/mafia_info": _SECTION | {"partners_line", "partner_note", "kills", "tonight"},
    "sections/investigations": _SECTION | {"results"},
    "sections/recent": _SECTION | {"since", "events"},
    "sections/defense": _SECTION | {"tied_line", "counts", "ballots_line", "order"},
    "sections/transcript": _SECTION | {"body"},
    "sections/memory": _SECTION | {"body"},
    "tasks/speak": _TASK | {"day", "position", "targets_line"},
    "tasks/vote": _TASK | {"day", "targets_line"},
    "tasks/revote": _TASK | {"targets_line"},
    "tasks/defense": _TASK | {"day", "tie"},
    "tasks/last_words": _TASK | {"day", "game_over"},
    "tasks/night_zero": _TASK | {"earlier"},
    "tasks/mafia_round1": _TASK | {"night", "need", "count", "earlier", "targets_line"},
    "tasks/mafia_round2": _TASK | {"night", "need", "count", "lowest", "targets_line"},
    "tasks/night_kill": _TASK | {"night", "targets_line"},
    "tasks/protect": _TASK | {"night", "history", "targets_line"},
    "tasks/investigate": _TASK | {"night", "history", "targets_line"},
}
_NIGHT_CHOICE = _TASK | {"night", "history", "targets_line"}
"""A role's night task, unless given above (its values: context/tasks.py's ``_night_choice``)."""
TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    **{ACTIONS[s.night_action].template: _NIGHT_CHOICE for s in ROLES.values() if s.night_action is not None},
    **_GIVEN,
    **{spec.playbook(role): frozenset() for role, spec in ROLES.items()},
}
"""Every template's placeholders: those given, each role's night task and its playbook (none)."""

_EMPTY = "\x00"


def template_files() -> list[str]:
    """Every template shipped under prompts/ (names without ``.txt``), sorted."""
    root = resources.files("mafia.prompts")
    names: list[str] = []
    for folder in sorted(p.name for p in root.iterdir() if p.is_dir() and p.name[0] != "_"):
        for item in (root / folder).iterdir():
            if item.name.endswith(".txt"):
                names.append(f"{folder}/{item.name[:-4]}")
    return sorted(names)


@cache
def template(name: str) -> Template:
    """The template ``name`` (e.g. "tasks/speak"), read once from package data."""
    text = (resources.files("mafia.prompts") / f"{name}.txt").read_text(encoding="utf-8")
    return Template(text.rstrip("\n"))


def placeholders(name: str) -> frozenset[str]:
    """The placeholder names that appear in the template file ``name``."""
    return frozenset(template(name).get_identifiers())


def render(name: str, **values: str) -> str:
    """Fill template ``name`` with exactly its declared placeholders (anything else is an error)."""
    expected = TEMPLATE_FIELDS[name]
    if values.keys() != expected:
        missing = sorted(expected - values.keys())
        extra = sorted(values.keys() - expected)
        raise KeyError(f"template {name}: missing {missing}, unexpected {extra}")
    filled = {k: (v if v else _EMPTY) for k, v in values.items()}
    text = template(name).substitute(filled)
    if _EMPTY not in text:
        return text
    return "\n".join(line for line in text.split("\n") if line != _EMPTY).replace(_EMPTY, "")
