"""The house model's paired dice (``house-paired``): seeded by the decision's moment, which every
context policy renders alike, so that policies compared in an arena differ by what they show the
model and not by dice rolled anew for every change of wording."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from fact_presence import Built, capture_prompts
from mafia.arena.outcomes import play_digest
from mafia.context import build_context
from mafia.context.policy import POLICIES, policy_by_name
from mafia.game.events import parse_event
from mafia.models.factory import build_model
from mafia.models.house import HouseModel
from mafia.models.house.prompt_reading import moment_text
from mafia.play.runner import run_game


@pytest.fixture(scope="module")
def built() -> list[Built]:
    """Every prompt of a 7-seat game under the default policy, with the log it was built from."""
    with pytest.MonkeyPatch.context() as patch, capture_prompts(patch) as got:
        run_game({"seed": 4, "players": 7}, policy=policy_by_name("seed-window"))
    return got


def test_every_policy_renders_a_moment_alike_and_no_two_moments_alike(built: list[Built]) -> None:
    """Each decision's moment text is the same under every registered policy, and the game's
    decisions have as many moment texts as there are decisions."""
    texts = [moment_text(f"{b.prompt.system}\n\n{b.prompt.user}") for b in built]
    differing = []
    for b in built:
        rendered = {
            name: build_context(b.events, b.player, b.action, policy) for name, policy in POLICIES.items()
        }
        text = moment_text(f"{rendered['seed-window'].system}\n\n{rendered['seed-window'].user}")
        for name, other in rendered.items():
            if moment_text(f"{other.system}\n\n{other.user}") != text:
                differing.append(f"{name}: {b.player} {b.action.value} after {len(b.events)} events")
    assert differing == []
    assert len(set(texts)) == len(built) > 20


def _answer(model: HouseModel, system: str, user: str) -> str:
    return str(model.invoke([SystemMessage(system), HumanMessage(user)]).content)


def test_paired_dice_follow_the_moment_not_the_wording(built: list[Built]) -> None:
    """A line the house model does not read (a note appended to the memory) changes the default
    model's answers (its dice follow the whole text) and never the paired model's."""
    plain, paired = HouseModel(seed=3), HouseModel(seed=3, paired_dice=True)
    speeches = [b for b in built if b.action.value == "speak"]
    assert len(speeches) >= 10
    changed = {"plain": 0, "paired": 0}
    for b in speeches:
        reworded = b.prompt.user.replace("[YOUR TASK", "Note: stay calm.\n\n[YOUR TASK", 1)
        assert reworded != b.prompt.user
        for name, model in (("plain", plain), ("paired", paired)):
            once = _answer(model, b.prompt.system, b.prompt.user)
            changed[name] += once != _answer(model, b.prompt.system, reworded)
    assert changed["paired"] == 0
    assert changed["plain"] > 0


def test_the_paired_variant_is_a_model_spec_with_a_seed() -> None:
    model = build_model("house-paired:5")
    assert isinstance(model, HouseModel) and model.paired_dice and model.seed == 5
    assert not build_model("house:5").paired_dice  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lean_plays_the_default_policys_games_move_for_move_with_paired_dice(seed: int) -> None:
    """`lean` keeps every fact the house model acts on: with paired dice, its 8-seat games make the
    default policy's moves (the paired arenas: 100 of 100 seeds at 8 seats)."""
    games = {
        name: run_game({"seed": seed, "players": 8}, model="house-paired", policy=policy_by_name(name))
        for name in ("seed-window", "lean")
    }
    moves = {name: play_digest(map(parse_event, final["events"])) for name, final in games.items()}
    assert moves["lean"] == moves["seed-window"]
