"""The house model's use of the ``recall`` tool, read from the messages alone.

Recall: on a speech or a vote, when words the prompt once held in full are gone from it (days
compressed or summarised, today's speeches trimmed to facts, beliefs archived), the house searches
its record once for what its top suspect said, if no word of that player's is left in the prompt,
then answers with the first hit in its reasoning. (Its summaries: ``summarising``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from mafia.context.memory import ARCHIVED_NOTE
from mafia.context.transcript_text import COMPRESSED_LABEL, TRIMMED_LABEL
from mafia.models.house.prompt_reading import PromptView
from mafia.models.house.tactics import Decision

RECALL_TOOL = "recall"
_RECALL_ACTIONS = ("speak", "vote")
_SUMMARY_MARK = "Summary of Days 1-"
# What a prompt says when words it once held in full are gone from it.
OLD_FACTS_GONE = (COMPRESSED_LABEL, _SUMMARY_MARK, TRIMMED_LABEL, ARCHIVED_NOTE)


def conversation(messages: Sequence[BaseMessage]) -> tuple[list[BaseMessage], list[str]]:
    """The prompt's own messages (what decisions are read from) and the recall answers so far."""
    prompt: list[BaseMessage] = []
    answers: list[str] = []
    for message in messages:
        if isinstance(message, ToolMessage):
            answers.append(str(message.content))
        elif not (isinstance(message, AIMessage) and message.tool_calls):
            prompt.append(message)
    return prompt, answers


def offers_recall(tools: Any, tool_choice: Any = None) -> bool:
    """Whether a ``recall`` tool is among the bound tools (OpenAI format) and the tool choice lets
    the model call it (none given, "auto", "any", "required", or recall named)."""
    if isinstance(tool_choice, str) and tool_choice not in ("auto", "any", "required", RECALL_TOOL):
        return False
    if isinstance(tool_choice, dict) and (tool_choice.get("function") or {}).get("name") != RECALL_TOOL:
        return False
    return any(isinstance(t, dict) and t.get("function", {}).get("name") == RECALL_TOOL for t in tools or ())


def recall_query(text: str, view: PromptView, decision: Decision) -> str | None:
    """What to search for, when an old fact is needed and the prompt lacks it: the top suspect's
    words, when the prompt no longer shows some words in full and holds none of that player's."""
    if view.action not in _RECALL_ACTIONS or not decision.suspicions:
        return None
    if not any(mark in text for mark in OLD_FACTS_GONE):
        return None
    top = max(decision.suspicions, key=lambda s: s[1])[0]
    if any(line.speaker == top for line in view.said):
        return None
    return f"speech of {top}"


def use_recall(decision: Decision, answers: Sequence[str]) -> Decision:
    """The decision with the first recalled line in its reasoning (the fact it searched for)."""
    first = next((line for a in answers for line in a.split("\n") if line.startswith("- ")), None)
    if first is None:
        return decision
    reasoning = str(decision.fields.get("reasoning", ""))
    fields = {**decision.fields, "reasoning": f"{reasoning} Recalled: {first[2:][:200]}".strip()}
    return Decision(
        decision.action, fields, decision.suspicions, decision.relationships, decision.pattern_notes
    )
