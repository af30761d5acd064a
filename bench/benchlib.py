"""Shared pieces of the benchmark scripts: timed and delayed house models, timing of the engine's
model calls, log arithmetic. Importing it also puts ``tests/`` on the import path (for the test
suite's fakes and log builder) and turns LangSmith tracing off before LangChain loads."""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("LANGSMITH_TRACING", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
from repo import test_folders

sys.path[:0] = [str(folder) for folder in test_folders()]

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import PrivateAttr

import mafia.nodes.recall_step as answer_call
from mafia.models.house import HouseModel

QUICK_FLAG = "--quick"
QUICK_HELP = "a few small games, for the test suite's smoke run (seconds; the figures mean little)"


def quick() -> bool:
    """Whether the script was asked for its quick mode (``--quick``): every bench has one, which
    the test suite runs so that no bench can break unnoticed."""
    return QUICK_FLAG in sys.argv[1:]


def timed(func: Callable[..., Any], record: Callable[[float], None]) -> Callable[..., Any]:
    """``func``, handing the seconds every call spends inside it to ``record`` (raising or not)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            record(time.perf_counter() - start)

    return wrapper


class _TimedCall:
    """A structured-output runnable whose ``invoke`` is timed."""

    def __init__(self, call: Any, record: Callable[[float], None]) -> None:
        self.invoke = timed(call.invoke, record)


def time_structured_calls(record: Callable[[float], None]) -> None:
    """Patch the engine's structured model calls (``mafia.nodes.recall_step.structured``, which
    ``ask_answer`` calls) so the time of every ``invoke`` (LangChain's wrapper and the model) goes
    to ``record``."""
    structured = answer_call.structured  # type: ignore[attr-defined]  # the module's own import, patched

    def timed_structured(model: Any, schema: Any) -> Any:
        return _TimedCall(structured(model, schema), record)

    answer_call.structured = timed_structured  # type: ignore[attr-defined]  # the module's own import, patched


class TimedHouseModel(HouseModel):
    """The house model, counting its calls and the time spent inside them (``delay`` adds a wait)."""

    delay: float = 0.0
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _calls: int = PrivateAttr(default=0)
    _seconds: float = PrivateAttr(default=0.0)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        start = time.perf_counter()
        if self.delay:
            time.sleep(self.delay)
        result = super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        with self._lock:
            self._calls += 1
            self._seconds += time.perf_counter() - start
        return result

    def reset(self) -> tuple[int, float]:
        """Calls and seconds since the last reset."""
        with self._lock:
            out = (self._calls, self._seconds)
            self._calls, self._seconds = 0, 0.0
        return out


def critical_path_calls(events: list[dict[str, Any]]) -> int:
    """Model calls on the rules' critical path: sequential turns count one each, every
    simultaneous step (a vote, a revote, Mafia Round 2, the night roles beside the Mafia) one."""
    calls = 0
    round2_nights: set[int] = set()
    for e in events:
        kind = e["type"]
        if kind in ("night_zero_strategy", "speech", "defense", "last_words") or (
            kind == "vote_round" and e["ballots"]
        ):
            calls += 1
        elif kind == "mafia_discussion":
            if e["coordination_round"] in (0, 1):
                calls += 1
            elif e["round"] not in round2_nights:
                round2_nights.add(e["round"])
                calls += 1
    return calls


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (centre - half, centre + half)
