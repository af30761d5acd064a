"""The few exact line formats a rendered prompt always contains, in one place.

The context builder writes these lines with the ``format_*`` helpers; anything reading a prompt
(the house model, tests, log tools) parses them with the matching patterns. Keeping both sides here
means a format change cannot silently break a reader.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Section headers, in the order they appear. Task headers are "[YOUR TASK: SPEAK]" etc.
IDENTITY = "[YOUR IDENTITY]"
RULES = "[GAME RULES]"
STATE = "[CURRENT STATE]"
MAFIA_INFO = "[MAFIA INFO]"
INVESTIGATIONS = "[INVESTIGATION RESULTS]"
RECENT = "[RECENT EVENTS]"
DEFENSE = "[DEFENSE CONTEXT]"
TRANSCRIPT = "[TRANSCRIPT]"
MEMORY = "[YOUR MEMORY]"
TASK_PREFIX = "[YOUR TASK: "

SECTION_HEADER = re.compile(r"^\[(?:[A-Z][A-Z ]+|YOUR TASK: [A-Z_0-9]+)\]$")

IDENTITY_LINE = re.compile(
    r"^You are (?P<name>.+?)\. Your role is (?P<role>Mafia|Detective|Doctor|Town)\.$", re.M
)
TASK_LINE = re.compile(r"^\[YOUR TASK: (?P<action>[A-Z_0-9]+)\]$", re.M)
TARGETS_LINE = re.compile(r"^Valid targets: (?P<targets>.*)$", re.M)
LIVING_LINE = re.compile(r"^Living: (?P<names>.*)$", re.M)
PARTNERS_LINE = re.compile(r"^Your Mafia partners: (?P<partners>.*)$", re.M)
RESULT_LINE = re.compile(
    r"^- Night (?P<night>\d+): (?P<target>.+?) is (?P<result>Mafia|Not Mafia)$", re.M
)
SPEECH_LINE = re.compile(
    r'^- (?P<speaker>.+?) said: "(?P<text>.*)"(?: \(nominated (?P<nomination>.+?)\))?$', re.M
)
GAME_OVER_HINT = "game_over: true"


def format_identity(name: str, role: str) -> str:
    return f"You are {name}. Your role is {role}."


def format_task_header(action: str) -> str:
    return f"{TASK_PREFIX}{action.upper()}]"


def format_targets(targets: Sequence[str]) -> str:
    return "Valid targets: " + ", ".join(targets)


def format_living(names: Sequence[str]) -> str:
    return "Living: " + ", ".join(names)


def format_partners(partners: Sequence[tuple[str, bool]]) -> str:
    """Partners with their status, e.g. "Player 2 (alive), Player 5 (dead)"."""
    return "Your Mafia partners: " + ", ".join(
        f"{name} ({'alive' if alive else 'dead'})" for name, alive in partners
    )


def format_result(night: int, target: str, result: str) -> str:
    return f"- Night {night}: {target} is {result}"


def format_speech(speaker: str, text: str, nomination: str | None) -> str:
    """A speech on one line; ``text`` must already be made safe (one line, quotes escaped)."""
    tail = f" (nominated {nomination})" if nomination else ""
    return f'- {speaker} said: "{text}"{tail}'


def split_names(field: str) -> list[str]:
    """The names of a comma-separated list line (as written by the formatters above)."""
    return [part.strip() for part in field.split(",") if part.strip()]
