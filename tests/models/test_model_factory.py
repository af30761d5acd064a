"""The model factory's caches: structured runnables are reused per model, and stay bounded."""

from __future__ import annotations

import gc
import weakref

import pytest

from mafia.game.actions import ActionBase, Answer
from mafia.models import factory
from mafia.models.house import HouseModel


def test_structured_runnables_are_built_once_per_model_and_schema() -> None:
    model = HouseModel(seed=1)
    first = factory.structured(model, Answer)
    assert factory.structured(model, Answer) is first
    assert factory.structured(model, ActionBase) is not first
    assert factory.structured(HouseModel(seed=1), Answer) is not first


def test_a_long_run_of_new_models_does_not_keep_them_all() -> None:
    first = HouseModel(seed=0)
    gone = weakref.ref(first)
    factory.structured(first, Answer)
    del first
    for seed in range(1, factory.STRUCTURED_CACHE_SIZE + 5):
        factory.structured(HouseModel(seed=seed), Answer)
    gc.collect()
    assert len(factory._structured) <= factory.STRUCTURED_CACHE_SIZE
    assert gone() is None


@pytest.mark.parametrize("spec", ["house:--5", "house:²", "house:-", "house:5a", "house: 5"])
def test_a_malformed_house_seed_is_a_spec_error(spec: str) -> None:
    """Not a bare ValueError from int() (a traceback in the CLI): a ModelSpecError saying why."""
    with pytest.raises(factory.ModelSpecError, match="the house seed must be an integer"):
        factory.resolve_model(spec)


@pytest.mark.parametrize(("spec", "seed"), [("house", 0), ("house:7", 7), ("house:-5", -5)])
def test_a_house_spec_gives_its_seed(spec: str, seed: int) -> None:
    assert factory.parse_house_seed(spec) == seed
