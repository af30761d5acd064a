"""A validation instrument, never a player to rate: ``RoleKnowingHouse`` is the house model told
every player's role beforehand, which states suspicion level 10 for each Mafia and 0 for everyone
else in every answer. Judged play's calibration metrics must score it near-perfect; it lives in the
tests alone, so no model spec, default or command can seat it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from mafia.game.rules import assign_roles, on_mafia
from mafia.models.house import HouseModel
from mafia.run.settings import config_from_input


def dealt_roles(setup: Mapping[str, Any]) -> dict[str, str]:
    """Every player's role in the deal of a game's setup (a pure function of its seed)."""
    return {s.name: s.role.value for s in assign_roles(config_from_input(dict(setup)))}


class RoleKnowingHouse(HouseModel):
    """The house model whose every stated suspicion is the truth (see the module doc)."""

    roles: dict[str, str]
    """Each player's role in the one deal this model plays."""

    def _true(self, notes: Any) -> Any:
        if not isinstance(notes, list):
            return notes
        return [
            {**n, "level": 10 if on_mafia(self.roles.get(str(n.get("player")))) else 0}
            if isinstance(n, dict)
            else n
            for n in notes
        ]

    def answer(self, messages: list[BaseMessage] | Any, **kwargs: Any) -> AIMessage:
        reply = super().answer(messages, **kwargs)
        calls = [
            {**c, "args": {**c["args"], "suspicions": self._true(c["args"].get("suspicions"))}}
            if "suspicions" in c["args"]
            else c
            for c in reply.tool_calls
        ]
        content = reply.content
        if isinstance(content, str) and '"suspicions"' in content:
            data = json.loads(content)
            data["suspicions"] = self._true(data.get("suspicions"))
            content = json.dumps(data, ensure_ascii=False)
        return reply.model_copy(update={"tool_calls": calls, "content": content})
