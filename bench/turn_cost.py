"""Where the CPU time of one sequential turn goes (speeches, defenses, last words, night-zero plans).

Plays the games of ``bench/parallel.py`` with its random-legal test model, without the 50 ms wait,
and times the parts of every sequential turn on the thread that runs it:

- ``context_ms``: rendering the player's prompt (``build_context``);
- ``model_call_ms``: the structured model call (LangChain's chat-model wrapper and the test model);
- ``subgraph_ms``: the whole player subgraph (build context -> decide -> commit), so
  ``subgraph_ms - context_ms - model_call_ms`` is LangGraph's cost of running the subgraph plus
  our commit step (``subgraph_overhead_ms``);
- ``turn_ms``: the turn's share of the game's wall time (the whole game's wall time spread over
  its model calls, parallel ones included), so ``turn_ms - subgraph_ms`` is about the game
  graph's own cost per step.

Every sequential turn adds ``turn_ms`` to a game's critical path on top of the model's wait, and
every simultaneous turn adds roughly its part before the model call, because the GIL runs those
one at a time: this is the floor ``critical_path_ratio`` rests on.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from benchlib import quick, time_structured_calls, timed
from fakes import RandomLegalModel
from mafia.nodes import player as player_node
from mafia.play.runner import run_game
from parallel import GAMES  # one small game in quick mode (benchlib.quick)

SEQUENTIAL = ("speak", "defense", "last_words", "night_zero")


class Parts:
    """Durations of the timed parts, per turn (the turn running on the current thread)."""

    def __init__(self) -> None:
        self.current = threading.local()
        self.game = 0
        self.seconds: dict[tuple[int, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))

    def recorder(self, part: str) -> Callable[[float], None]:
        """Adds seconds to ``part`` of the turn running on the current thread, if any."""

        def record(seconds: float) -> None:
            turn = getattr(self.current, "turn", None)
            if turn is not None:
                self.seconds[self.game, turn][part] += seconds

        return record

    def timed(self, part: str, func: Callable[..., Any]) -> Callable[..., Any]:
        return timed(func, self.recorder(part))


PARTS = Parts()


def timed_subgraph(graph: Any) -> None:
    """Times every run of the compiled player subgraph ``graph``, marking which turn the thread is
    running (the turn nodes hold the graph object itself, so its ``invoke`` is wrapped in place)."""
    invoke = graph.invoke

    def timed_invoke(payload: dict[str, Any], config: Any = None, **kwargs: Any) -> Any:
        PARTS.current.turn = payload["request"]["id"]
        try:
            return PARTS.timed("subgraph", invoke)(payload, config, **kwargs)
        finally:
            PARTS.current.turn = None

    graph.invoke = timed_invoke


def install() -> None:
    timed_subgraph(player_node.PLAYER_GRAPH)
    build = player_node.build_context  # type: ignore[attr-defined]  # the module's own import, patched
    player_node.build_context = PARTS.timed("context", build)  # type: ignore[attr-defined]
    time_structured_calls(PARTS.recorder("model_call"))


def main() -> None:
    install()
    if not quick():
        run_game({"seed": 0}, model=RandomLegalModel(seed=0))  # warm up imports and caches
    PARTS.seconds.clear()
    calls = 0
    wall = 0.0
    for PARTS.game, (players, seed) in enumerate(GAMES):
        model = RandomLegalModel(seed=seed)
        start = time.perf_counter()
        run_game({"seed": seed, "players": players}, model=model)
        wall += time.perf_counter() - start
        calls += model.calls
    turns = [t for (_, turn_id), t in PARTS.seconds.items() if turn_id.split(":")[1] in SEQUENTIAL]

    def median_ms(part: str) -> float:
        return statistics.median(t[part] for t in turns) * 1000

    context, model_call, subgraph = median_ms("context"), median_ms("model_call"), median_ms("subgraph")
    print(f"games={len(GAMES)} calls={calls} sequential_turns={len(turns)}")
    print(f"context_ms={context:.2f}")
    print(f"model_call_ms={model_call:.2f}")
    print(f"subgraph_ms={subgraph:.2f}")
    print(f"subgraph_overhead_ms={subgraph - context - model_call:.2f}")
    print(f"turn_ms={wall * 1000 / calls:.2f}")


if __name__ == "__main__":
    main()
