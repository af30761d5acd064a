"""A token budget per call, not only per prompt: what a re-ask or a recall exchange may add.

What the budget bounds is a call's input as a provider bills it: the messages with their role
lines, the answer schema and the tools (``prompt_tokens + schema_tokens`` on its attempt in
prompts.jsonl; a grammar server bills no schema). Under a policy with ``token_budget`` the prompt
is built to fit what the schema and tools leave; a call may carry more: a re-ask adds the rejected
answer and the error, a recall exchange its call and the hits. The rejected answer is cut to the
room the prompt and the error leave (or left out, the error saying what was wrong), recall queries
are capped and hits fitted to the room (``nodes.recall_step``), and a call that still runs over is
logged with why (``over_budget`` on its attempt). ``context_tokens`` keeps the text of the call's
messages alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage, ToolMessage

from mafia.context.tokens import count_tokens

ELLIPSIS = "…"
"""What ends a cut answer (as ``answers.cap`` ends a cut text)."""
LEFT_OUT = "(your rejected answer, left out for length; the error below says what was wrong)"
MIN_SHOWN = 24
"""Tokens of a rejected answer worth showing at all; with less room it is left out."""


def fit_tokens(text: str, room: int) -> str:
    """``text`` cut to at most ``room`` tokens, ending in an ellipsis when cut, or ``LEFT_OUT``
    when fewer than ``MIN_SHOWN`` tokens are free (the ellipsis alone when even it does not fit)."""
    if count_tokens(text) <= room:
        return text
    if room < MIN_SHOWN:  # the note where it fits, else the ellipsis alone
        return LEFT_OUT if count_tokens(LEFT_OUT) <= room else ELLIPSIS
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits, found by halving
        mid = (low + high + 1) // 2
        if count_tokens(text[:mid] + ELLIPSIS) <= room:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + ELLIPSIS


QUOTED = re.compile(r'"([^"\n]*)"')
"""A player's words in a prompt: engine lines quote them, and quoted text holds no quote."""


def cut_quotes(text: str, cap: int) -> str:
    """``text`` with every quoted passage of a player's words longer than ``cap`` tokens cut to
    it (``fit_tokens``): the engine's unquoted facts stay whole."""

    def cut(match: re.Match[str]) -> str:
        return f'"{fit_tokens(match[1], cap)}"'

    return QUOTED.sub(cut, text)


def over_budget(messages: Sequence[BaseMessage], prompt_tokens: int, used: int, budget: int) -> str:
    """Why a call of ``used`` tokens is over ``budget``: the prompt itself with the schema and
    tools (``prompt_tokens``: its untrimmable part), a recall exchange, or a re-ask."""
    if prompt_tokens > budget:
        return (
            f"the prompt alone is {prompt_tokens} tokens with the schema and tools: "
            "what a budget never trims (facts, task)"
        )
    if any(isinstance(m, ToolMessage) for m in messages):
        return f"the recall exchange brought the call to {used} tokens"
    return f"the re-ask (the rejected answer and the error) brought the call to {used} tokens"
