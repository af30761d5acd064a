"""Which edges of the game graph and of the player subgraph a game takes, from its streamed steps.

A step of the game graph runs one node (simultaneous turns run inside their node), so consecutive
updates give the game's edges; each turn's subgraph steps, streamed under its own namespace, give
the subgraph's edges (a re-ask takes ``commit -> decide``).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

from mafia.play.runner import RECURSION_LIMIT

Edge = tuple[str, str]
TURN_NODES = ("build_context", "decide", "recall", "commit")


def drawn_edges(drawing: Any) -> set[Edge]:
    """The edges of a drawing (``get_graph()``) by node id."""
    return {(e.source, e.target) for e in drawing.edges}


def path_edges(path: list[str]) -> set[Edge]:
    full = ["__start__", *path, "__end__"]
    return set(itertools.pairwise(full))


def taken_edges(graph: Any, setup: dict[str, Any], context: Any) -> tuple[set[Edge], set[Edge]]:
    """(game edges, player-subgraph edges) that one game of ``graph`` takes."""
    game: list[str] = []
    turns: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for namespace, chunk in graph.stream(
        {"setup": setup},
        {"recursion_limit": RECURSION_LIMIT},
        context=context,
        stream_mode="updates",
        subgraphs=True,
    ):
        for node in chunk:
            if not namespace and node in graph.nodes:  # not a turn task's result
                game.append(node)
            elif node in TURN_NODES:
                turns[namespace].append(node)
    inner = set().union(*(path_edges(p) for p in turns.values())) if turns else set()
    return path_edges(game), inner


def untaken(drawn: set[Edge], taken: set[Edge]) -> list[Edge]:
    """Drawn edges no game took, sorted (an edge no game can take should not be drawn)."""
    return sorted(drawn - taken)
