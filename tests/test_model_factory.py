"""The model factory's caches: structured runnables are reused per model, and stay bounded."""

from __future__ import annotations

import gc
import weakref

from mafia.actions import SpeakAction, VoteAction
from mafia.models import factory
from mafia.models.house import HouseModel


def test_structured_runnables_are_built_once_per_model_and_schema() -> None:
    model = HouseModel(seed=1)
    first = factory.structured(model, SpeakAction)
    assert factory.structured(model, SpeakAction) is first
    assert factory.structured(model, VoteAction) is not first
    assert factory.structured(HouseModel(seed=1), SpeakAction) is not first


def test_a_long_run_of_new_models_does_not_keep_them_all() -> None:
    first = HouseModel(seed=0)
    gone = weakref.ref(first)
    factory.structured(first, SpeakAction)
    del first
    for seed in range(1, factory.STRUCTURED_CACHE_SIZE + 5):
        factory.structured(HouseModel(seed=seed), SpeakAction)
    gc.collect()
    assert len(factory._structured) <= factory.STRUCTURED_CACHE_SIZE
    assert gone() is None
