"""The game graph, built from the protocol table (mafia.game.protocol): one node per step and one
router per step (``route``), whose destinations are the followers the step's row declares.

``build_graph()`` returns the uncompiled builder (tests compile it with their own checkpointer);
``graph`` is the compiled export, without a checkpointer, that ``langgraph dev`` loads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.graph import END, START, StateGraph

from mafia.game.protocol import FIRST_STEP, STEPS, route
from mafia.game.state import GameState, GameUpdate, StepName
from mafia.nodes.setup import setup
from mafia.nodes.summary import summary
from mafia.nodes.turns import turn_node
from mafia.run.inputs import refuse_unknown
from mafia.run.runtime import GameContext
from mafia.state import GraphState, InputState, OutputState

__all__ = ["NODES", "build_graph", "compile_graph", "graph"]


OWN_NODES: dict[StepName, Callable[..., GameUpdate]] = {"setup": setup, "summary": summary}
"""The steps whose node does more than the table's pure function: setup checks the run's models and
context, and the summary's step asks the summariser when a summary is due."""


def _node(name: StepName) -> Callable[..., GameUpdate]:
    """A step's node: setup (which checks the run's context), a bookkeeping step's own function,
    or a turn node that runs the player subgraph (build_context -> decide -> commit) for the
    players its step asks."""
    spec = STEPS[name]
    if name in OWN_NODES:
        return OWN_NODES[name]
    return spec.run if spec.run is not None else turn_node(name, spec)


NODES: dict[StepName, Callable[..., GameUpdate]] = {name: _node(name) for name in STEPS}


class InlineRouter(Runnable[GameState, str]):
    """A step's router, called where the step's writes are made, with nothing awaited in between.

    LangGraph runs a plain function router of an async run (a server's) in a thread, after the
    node's state writes and before its routing write; a run cancelled in that wait saves the
    writes made so far with the cancel, and a resumed run takes the step as done: its turn
    recorded, no step next. Called inline, a step's writes are all made or none are."""

    def __init__(self, route: Callable[[GameState], str]) -> None:
        self.route = route
        self.name = route.__name__

    def invoke(self, input: GameState, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return self.route(input)

    async def ainvoke(self, input: GameState, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return self.route(input)


def checked_input(value: GameState) -> StepName:
    """START's router: a run's input may hold only ``InputState``'s keys (``setup``). LangGraph
    drops any other key unseen, so a misspelt ``{"setpu": ...}`` would play the default game; it
    is refused here with one line naming it and the allowed keys. The router reads the input with
    the state over it, so a key the state holds (a thread that has played) is not refused."""
    refuse_unknown(value, GraphState.__annotations__, "input", InputState.__annotations__)
    return FIRST_STEP


def build_graph() -> StateGraph[GraphState, GameContext, InputState, OutputState]:
    """The game's graph builder, uncompiled: compile it with the checkpointer you want. Every
    conditional edge lists exactly the followers its row declares and its router checks, so
    the drawing holds only edges a game can take."""
    builder = StateGraph(
        GraphState, context_schema=GameContext, input_schema=InputState, output_schema=OutputState
    )
    for name, node in NODES.items():
        builder.add_node(name, node)
    builder.add_conditional_edges(START, InlineRouter(checked_input), [FIRST_STEP])
    for name, spec in STEPS.items():
        if spec.follows:
            builder.add_conditional_edges(name, InlineRouter(route(name)), list(spec.follows))
        else:
            builder.add_edge(name, END)
    return builder


def compile_graph(**kwargs: Any) -> Any:
    """``build_graph().compile(**kwargs)`` (a checkpointer, interrupt points, a name...)."""
    return build_graph().compile(**kwargs)


graph = compile_graph(name="mafia")
