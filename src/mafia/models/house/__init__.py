"""The house model: an offline, deterministic chat model that plays Mafia from its prompts alone.

``HouseModel`` (``model``) reads the prompt (``prompt_reading``, free text in ``text_reading``),
scores the table (``board``), picks the task's tactic (``decisions``: ``day_tactics``,
``night_tactics``, sharing ``tactics``), words it (``phrasing``) and writes the answer into the bound
schema (``schema_fill``). Import it from here: the modules inside are the model's own business.
"""

from mafia.models.house.model import HouseModel, prompt_text

__all__ = ["HouseModel", "prompt_text"]
