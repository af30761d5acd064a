"""The leak audit of the model-driven doors, read where players receive them: games at 7 and 12
seats under every policy with recall and summaries switched on, canaries planted in every private
answer field (``test_leak_audit.CanaryHouseModel``), and seats that search their record at every
turn offered the tool, for every other seat's canaries and for the words of private facts (night
results, protections, the team's talk, roles). Audited: every prompt (the summary block as players
see it, and the summariser's own prompt, which may hold nothing private), and every answer the
recall node returned, as recorded with its turn: no canary outside the players entitled to it, and
no recalled line outside the player's own record of the game.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.outputs import ChatResult

from fakes import read_ask, tool_call_result
from mafia.context.policy import POLICIES, ContextPolicy
from mafia.context.recall import documents
from mafia.context.record import read_view
from mafia.context.views import player_view
from mafia.game.events import EventBase, parse_event, roles_from_log
from mafia.game.rules import Role
from mafia.models.house import HouseModel
from mafia.models.house.recalling import RECALL_TOOL, offers_recall
from mafia.play.runner import run_game
from mafia.prompts.anchors import IDENTITY_LINE
from sampling import policy_kept, sample
from test_leak_audit import CanaryHouseModel, Plant, audit_records

# What a seat asks for besides the canaries: other seats' night results, protections and the
# team's talk, and the roles of the dead.
PRIVATE_WORDS = "checked Mafia Not protected team talk chose plan role Detective Doctor killed"
POLICY_CASES = {
    name: dataclasses.replace(
        p,
        recall=True,
        summary=True,
        summary_every=1,
        verbatim_rounds=min(p.verbatim_rounds, 2),  # so that days go cold within these games
        bullet_rounds=0,
        name=f"{name}+recall+summary",
    )
    for name, p in POLICIES.items()
}
SEATS = (7, 12)
OWN_BELIEF = re.compile(r"Round \d+, your archived ")


class SearchingCanaryModel(CanaryHouseModel):
    """The canary model, searching its record twice a turn whenever the recall tool is offered:
    first for every other seat's canaries planted so far, then for the words of private facts. As
    the summariser (a prompt with no identity) it is the house model, planting nothing."""

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        if not any(IDENTITY_LINE.search(m.text) for m in messages):  # the summariser's call
            return HouseModel._generate(self, messages, stop=stop, run_manager=run_manager, **kwargs)
        searched = sum(1 for m in messages if isinstance(m, ToolMessage))
        if not offers_recall(kwargs.get("tools")) or searched >= 2:
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        me = read_ask(messages).player
        with self._lock:
            others = [c for c, p in self.plants.items() if p.player != me]
        query = " ".join(others[-40:]) if searched == 0 and others else PRIVATE_WORDS
        return tool_call_result(RECALL_TOOL, {"query": query}, f"r{searched}")


def recall_answers(records: Sequence[dict[str, Any]]) -> list[tuple[str, str, int]]:
    """(player, answer, round) for every answer the recall node returned, as its turn recorded it."""
    return [
        (r["player"], a["recall"]["answer"], r["round"])
        for r in records
        for a in r["attempts"]
        if a.get("recall")
    ]


def audit_recall(
    seed: int,
    events: Sequence[EventBase],
    records: Sequence[dict[str, Any]],
    plants: dict[str, Plant],
    roles: dict[str, Role],
) -> list[str]:
    """What the recall answers leaked: a canary of a field the searcher may not read, or a line
    that is in no record of the searcher's own view of the game."""
    answers = recall_answers(records)
    as_prompts = [{"player": p, "system": "", "user": a} for p, a, _ in answers]
    problems = [p for p in audit_records(seed, as_prompts, plants, roles) if " never saw " not in p]
    own: dict[tuple[str, int], set[str]] = {}
    for player, answer, number in answers:
        if (player, number) not in own:  # its record as of the turn's round (beliefs move on)
            upto = [e for e in events if e.round <= number]
            own[player, number] = {d.line for d in documents(read_view(player_view(upto, player), player))}
        for line in answer.split("\n"):
            hit = line.removeprefix("- ")
            # An archived belief is the player's own note as of that turn (a later thought in the
            # same round replaces it); its text is audited by its canaries above.
            if line.startswith("- ") and not OWN_BELIEF.match(hit) and hit not in own[player, number]:
                problems.append(f"seed {seed}: {player} recalled a line not in its record: {hit[:100]!r}")
    return problems


def audit_game(seed: int, players: int, policy: ContextPolicy) -> tuple[list[str], int, int]:
    """One game under ``policy`` with searching seats: the problems, the recall answers and the
    prompts that showed a summary."""
    model = SearchingCanaryModel(seed=seed)
    records: list[dict[str, Any]] = []
    state = run_game({"seed": seed, "players": players}, model=model, policy=policy, on_prompt=records.append)
    events = [parse_event(e) for e in state["events"]]
    roles = roles_from_log(events)
    # Only leaks: under a token budget or pruned beliefs a player's own notes may leave its prompt.
    problems = [p for p in audit_records(seed, records, model.plants, roles) if " never saw " not in p]
    problems += audit_recall(seed, events, records, model.plants, roles)
    summaries = sum(1 for r in records if "Summary of Days" in r["user"])
    return problems, len(recall_answers(records)), summaries


# The 7-seat games of the policies that search, summarise or trim run by default; the plain
# windows' and the 12-seat ones with the slow tests.
CASES = [
    sample(
        policy,
        players,
        kept=players == 7 and policy_kept(name),  # by the registered name, not the case's
        id=f"{policy.name}-{players}",
    )
    for players in SEATS
    for name, policy in POLICY_CASES.items()
]


@pytest.mark.parametrize(("policy", "players"), CASES)
def test_no_canary_or_foreign_line_reaches_a_player_through_recall_or_summaries(
    policy: ContextPolicy, players: int
) -> None:
    problems, recalls, summaries = audit_game(3, players, policy)
    assert recalls > 10
    assert summaries > 0 or policy.full_transcript  # a full transcript leaves no day cold
    assert problems == [], "\n".join(problems[:20])
