"""The fact-presence audit of prompts built in a test: every engine fact a player is entitled to
is in every prompt they get (the facts and how they are found: ``mafia.context.facts``).

``capture_prompts`` records every prompt a game builds together with the log it was built from,
so games played through the graph can be audited prompt by prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

import mafia.nodes.player as player_node
from mafia.context import RenderedPrompt
from mafia.context.facts import missing_facts
from mafia.game import events as ev
from mafia.game.actions import ActionKind

__all__ = ["Built", "audit_prompts", "capture_prompts", "left_to_recall", "missing_facts"]


@dataclass(frozen=True)
class Built:
    """One prompt as the engine built it, with the log it was built from."""

    events: tuple[ev.EventBase, ...]
    player: str
    action: ActionKind
    prompt: RenderedPrompt


@contextmanager
def capture_prompts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Built]]:
    """Record every prompt the player subgraph builds while the block runs."""
    built: list[Built] = []
    build = player_node.build_context  # type: ignore[attr-defined]  # the module's own import, patched

    def recording(
        events: Sequence[ev.EventBase], player: str, action: ActionKind, *args: Any, **kwargs: Any
    ) -> RenderedPrompt:
        prompt = build(events, player, action, *args, **kwargs)
        built.append(Built(tuple(events), player, action, prompt))
        return prompt

    with monkeypatch.context() as patch:
        patch.setattr(player_node, "build_context", recording)
        yield built


_DAY_OF_FACT = re.compile(r"day (\d+)")
_LEFT = re.compile(r"^(?:(?P<ballots>ballots of )?day (?P<day>\d+)) left to recall$")


def left_to_recall(fact: str, trimmed: Sequence[str]) -> bool:
    """Whether the prompt's own notes left ``fact`` to recall: a fact of a day whose lines the
    prompt left to the player's record, or a ballot of a day whose ballots it left there (the
    prompt says so, and a search finds them). Facts bound to no day (the living, the dead, the
    player's own results and the claims ledger) are never excused."""
    days = _DAY_OF_FACT.findall(fact)
    if not days or fact.startswith(("death of ", "claim: ", "investigation", "protection", "team kill")):
        return False
    day = int(days[-1])
    left = [m for m in map(_LEFT.match, trimmed) if m is not None and int(m["day"]) == day]
    return any(m["ballots"] is None or " ballot " in fact for m in left)


def audit_prompts(built: Sequence[Built]) -> list[str]:
    """Every missing fact of every captured prompt, named by player, action and log length; a fact
    the prompt says it left to recall (a policy with recall, over its budget) is not missing."""
    problems: list[str] = []
    for b in built:
        text = f"{b.prompt.system}\n\n{b.prompt.user}"
        for fact in missing_facts(b.events, b.player, text):
            if not left_to_recall(fact, b.prompt.trimmed):
                problems.append(f"{b.player} {b.action.value} after {len(b.events)} events: {fact}")
    return problems
