"""The graph as a LangGraph server (``langgraph dev``, Studio) serves it. ``langgraph.json`` names
``served_graph``, a graph factory the server calls before each run with the run's context as the
caller sent it. The server itself drops the context keys the graph's context schema does not list
before the graph sees them (``langgraph_api.stream._filter_context_by_schema``), which would let
a misspelt key pass silently; the factory refuses it first, with the line ``graph.invoke`` gives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph_sdk.runtime import ServerRuntime

from mafia.graph import graph
from mafia.run.runtime import GameContext


def served_graph(runtime: ServerRuntime[Any]) -> Any:
    """The uncheckpointed module-level graph (the server brings its own checkpointer); for a run,
    its context is first checked whole as a Python caller's is (``GameContext``: an unknown key,
    a wrong type or a bad value is one line naming the key and what is allowed)."""
    run = runtime.execution_runtime
    if run is not None and isinstance(run.context, Mapping):
        GameContext(**{k: v for k, v in run.context.items() if not _server_key(k)})
    return graph


# A run sent with ``config.configurable`` instead of ``context`` has it copied in as the context,
# and LangGraph's own keys there (``thread_id``, ``checkpoint_id``, ...) are not the game's to refuse.
_SERVER_KEYS = frozenset({"thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "run_id"})
_SERVER_PREFIXES = ("__", "langgraph_", "x-", "assistant_", "graph_", "user_", "cron_")


def _server_key(key: object) -> bool:
    """Whether ``key`` is one that LangGraph or its server sets in a run's configurable."""
    return isinstance(key, str) and (key in _SERVER_KEYS or key.startswith(_SERVER_PREFIXES))
