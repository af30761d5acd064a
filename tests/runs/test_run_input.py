"""A run's input and context given to the graph (Studio, the SDK, ``graph.invoke``) are checked as
the command line checks its own: a policy by name or by fields, and every unknown key or wrong type
refused with one line naming the key and what is allowed."""

from __future__ import annotations

from typing import Any

import pytest

from mafia.context.policy import POLICIES
from mafia.graph import compile_graph
from mafia.play.runner import RECURSION_LIMIT
from mafia.run.runtime import GameContext
from mafia.run.settings import SetupError

CFG: Any = {"recursion_limit": RECURSION_LIMIT}


def test_a_policy_is_taken_by_name() -> None:
    assert GameContext(policy="full-history").policy == POLICIES["full-history"]
    out = compile_graph().invoke(
        {"setup": {"seed": 1, "players": 5}}, CFG, context={"policy": "one-round-window"}
    )
    assert out["winner"] is not None


@pytest.mark.parametrize(
    ("context", "pattern"),
    [
        ({"policy": "fullhistory"}, r"^policy: no context policy 'fullhistory'; use one of .*full-history"),
        ({"policy": 3}, r"^policy: must be a policy name \(.*\) or a table of its settings, got 3$"),
        ({"policy": {"verbatim_rounds": "x"}}, r"^policy\.verbatim_rounds: must be an integer, got 'x'$"),
        ({"policy": {"token_budget": 1.5}}, r"^policy\.token_budget: must be an integer or null, got 1\.5$"),
        (
            {"policy": {"full_transcript": "yes"}},
            r"^policy\.full_transcript: must be true or false, got 'yes'$",
        ),
        ({"max_retries": "2"}, r"^max_retries: must be an integer of 0 or more, got '2'$"),
        ({"seat_modles": {"3": "human"}}, r"^seat_modles: unknown context key; allowed: model, seat_models"),
    ],
)
def test_a_bad_context_is_one_line_naming_the_key(context: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ValueError) as refused:
        compile_graph().invoke({"setup": {"seed": 1}}, CFG, context=context)
    message = str(refused.value)
    assert "\n" not in message and not isinstance(refused.value, TypeError | AttributeError)
    assert __import__("re").search(pattern, message), message


@pytest.mark.parametrize(
    ("setup", "pattern"),
    [
        (
            "x",
            r"^invalid game setting setup: must be a table of game settings \(players, names, .*\), got 'x'$",
        ),
        (
            {"names": "A,B,C,D,E"},
            r"^invalid game setting names: must be a list of player names, got 'A,B,C,D,E'$",
        ),
        (
            {"roles": "mafia=2"},
            r"^invalid game setting roles: must map roles to counts, e\.g\. .*got 'mafia=2'$",
        ),
        ({"roles": {"mafia": "2"}}, r"^invalid game setting roles\.mafia: must be an integer, got '2'$"),
        ({"names": ["A", 2, "C", "D", "E"]}, r"^invalid game setting names\[1\]: must be a string, got 2$"),
    ],
)
def test_a_bad_setup_is_one_line_naming_the_field(setup: Any, pattern: str) -> None:
    with pytest.raises(SetupError) as refused:
        compile_graph().invoke({"setup": setup}, CFG)
    assert __import__("re").search(pattern, str(refused.value)), str(refused.value)


@pytest.mark.parametrize(
    "run_input",
    [
        {"setpu": {"seed": 3}},
        {"setup": {"seed": 3}, "seed": 3},
        {"Setup": {}},
        {"context": {"policy": "lean"}},
    ],
)
def test_an_unknown_input_key_is_one_line_naming_it_and_the_allowed_keys(run_input: dict[str, Any]) -> None:
    """LangGraph drops an input key its input schema lacks; the graph refuses it instead of playing
    the default game."""
    (wrong,) = set(run_input) - {"setup"}
    with pytest.raises(ValueError) as refused:
        compile_graph().invoke(run_input, CFG)
    assert str(refused.value) == f"{wrong}: unknown input key; allowed: setup"


def test_an_input_of_known_keys_plays_and_a_resumed_thread_keeps_its_state_keys() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    game = compile_graph(checkpointer=InMemorySaver())
    cfg: Any = {**CFG, "configurable": {"thread_id": "t"}}
    assert compile_graph().invoke({}, CFG)["winner"] is not None
    assert game.invoke({"setup": {"seed": 3, "players": 5}}, cfg)["winner"] is not None
    # a second run on the thread: the router sees the state's keys beside the input's
    assert game.invoke({"setup": {"seed": 4, "players": 5}}, cfg)["winner"] is not None
