"""Offline players of graded strength, registered as model specs, so that a tournament ranks
something without an API key: ``house`` (every choice reasoned), ``house-sloppy`` (half its choices
a random legal one) and ``random-legal`` (every choice a random legal one), each with ``:SEED``.

They differ only in the house model's ``skill`` knob, the chance of the reasoned choice (and of the
reasoned suspicion level of each player, else a random level), so the three play the same game
with the same wording and answer format and only the judgement differs: ``random-legal``'s stated
beliefs are chance, which judged play's calibration metrics are checked against.
``house-paired`` is ``house`` with its dice seeded by the decision's moment rather than the whole
prompt (``HouseModel.paired_dice``): an arena of context policies with it compares what the
policies show, free of the dice that any change of wording otherwise rolls anew.
"""

from __future__ import annotations

from mafia.models.house.model import HouseModel

# Spec name -> skill: the chance that a choice is the reasoned one rather than a random legal one.
SKILLS: dict[str, float] = {"house": 1.0, "house-paired": 1.0, "house-sloppy": 0.5, "random-legal": 0.0}
PAIRED = frozenset({"house-paired"})  # the variants whose dice are paired across context policies


def house_variant(name: str, seed: int) -> HouseModel:
    """The offline player registered as ``name`` (a key of SKILLS), seeded with ``seed``."""
    skill = SKILLS[name]
    if name in PAIRED:
        return HouseModel(seed=seed, paired_dice=True)
    return HouseModel(seed=seed) if skill == 1.0 else HouseModel(seed=seed, skill=skill)
