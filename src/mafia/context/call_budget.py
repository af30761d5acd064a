"""A token budget per call, not only per prompt: what a re-ask or a recall exchange may add.

Under a policy with ``token_budget`` the prompt is built to fit it; a call may carry more: a re-ask
adds the rejected answer and the error, a recall exchange its call and the hits. The rejected
answer is cut to the room the prompt and the error leave (or left out, the error saying what was
wrong), recall queries are capped and hits fitted to the room (``nodes.recall_step``), and a call
that still runs over is logged with why (``over_budget`` on its attempt in prompts.jsonl).

What the budget bounds is the text of a call's messages (``context_tokens``). The answer schema and
the recall tool are billed on top of it (``schema_tokens``: 427 tokens for an answer beside the
recall tool, more on a re-ask whose schema lists the legal options), and so are the messages' role
lines. Counted inside the budget they would leave the prompt 427 tokens less room, and a prompt
with less room leaves more facts to recall (``bench/budget.py`` measures how many).
"""

from __future__ import annotations

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
    when fewer than ``MIN_SHOWN`` tokens are free."""
    if count_tokens(text) <= room:
        return text
    if room < MIN_SHOWN:
        return LEFT_OUT
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits, found by halving
        mid = (low + high + 1) // 2
        if count_tokens(text[:mid] + ELLIPSIS) <= room:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + ELLIPSIS


def over_budget(messages: Sequence[BaseMessage], prompt_tokens: int, used: int, budget: int) -> str:
    """Why a call of ``used`` tokens is over ``budget``: the prompt itself (its untrimmable part),
    a recall exchange, or a re-ask."""
    if prompt_tokens > budget:
        return f"the prompt alone is {prompt_tokens} tokens: what a budget never trims (facts, task)"
    if any(isinstance(m, ToolMessage) for m in messages):
        return f"the recall exchange brought the call to {used} tokens"
    return f"the re-ask (the rejected answer and the error) brought the call to {used} tokens"
