"""Action schemas are strict-mode safe, open with the SGR/belief fields and describe every field."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from pydantic import BaseModel

from mafia.context import schemas
from mafia.game.actions import ACTION_SCHEMAS, ActionBase, ActionKind

SGR_FIELDS = [
    "observations",
    "suspicions",
    "relationships",
    "pattern_notes",
    "strategy",
    "reasoning",
]
SCHEMAS = sorted(set(ACTION_SCHEMAS.values()), key=lambda cls: cls.__name__)


def objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every JSON-schema object node (``type: object`` or with ``properties``), nested included."""
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node or "additionalProperties" in node:
            yield node
        for value in node.values():
            yield from objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from objects(item)


def annotation_has_dict(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if annotation is dict or origin is dict or (isinstance(origin, type) and issubclass(origin, Mapping)):
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return False  # nested models are checked through the JSON schema
    args = typing.get_args(annotation)
    return any(annotation_has_dict(a) for a in args if not isinstance(a, types.NoneType))


def test_every_action_kind_has_a_schema() -> None:
    assert set(ACTION_SCHEMAS) == set(ActionKind)
    assert all(issubclass(cls, ActionBase) for cls in ACTION_SCHEMAS.values())


@pytest.mark.parametrize("cls", SCHEMAS, ids=lambda c: c.__name__)
def test_objects_forbid_additional_properties(cls: type[BaseModel]) -> None:
    found = list(objects(cls.model_json_schema()))
    assert found, "the schema has no object at all"
    for node in found:
        assert node.get("additionalProperties") is False, node.get("title")
        assert "properties" in node, f"{node.get('title')} is a free-form (dict) object"


@pytest.mark.parametrize("cls", SCHEMAS, ids=lambda c: c.__name__)
def test_no_dict_fields_and_no_defaults(cls: type[BaseModel]) -> None:
    for name, info in cls.model_fields.items():
        assert not annotation_has_dict(info.annotation), name
        assert info.is_required(), f"{name} has a default (strict mode requires every field)"
    for node in objects(cls.model_json_schema()):
        assert sorted(node["required"]) == sorted(node["properties"]), node.get("title")
        for prop in node["properties"].values():
            assert "default" not in prop


@pytest.mark.parametrize("cls", SCHEMAS, ids=lambda c: c.__name__)
def test_sgr_fields_come_first_in_order(cls: type[BaseModel]) -> None:
    properties = list(cls.model_json_schema()["properties"])
    assert properties[: len(SGR_FIELDS)] == SGR_FIELDS
    assert len(properties) > len(SGR_FIELDS), "an action needs its own field after the SGR ones"
    assert list(cls.model_fields)[: len(SGR_FIELDS)] == SGR_FIELDS


# Nested fields whose names say it all carry no description (the schema is billed on every call).
SELF_EXPLAINING = {"player", "players", "note"}


@pytest.mark.parametrize("cls", SCHEMAS, ids=lambda c: c.__name__)
def test_every_field_has_a_description(cls: type[BaseModel]) -> None:
    schema = cls.model_json_schema()
    assert "description" not in schema, "the answer's docstring stays out of the billed schema"
    for name, prop in schema["properties"].items():
        assert prop.get("description", "").strip(), name
    for node in objects(schema):
        for name, prop in node["properties"].items():
            assert name in SELF_EXPLAINING or prop.get("description", "").strip(), (
                f"{node.get('title')}.{name}"
            )


def test_checks_catch_a_dict_field_and_a_missing_description() -> None:
    class Leaky(BaseModel):
        notes: dict[str, str]
        loose: int

    schema = Leaky.model_json_schema()
    assert annotation_has_dict(Leaky.model_fields["notes"].annotation)
    assert any(node.get("additionalProperties") is not False for node in objects(schema))
    assert not schema["properties"]["loose"].get("description")


def _shapes() -> list[type[BaseModel]]:
    return [
        obj
        for obj in vars(schemas).values()
        if isinstance(obj, type)
        and issubclass(obj, BaseModel)
        and obj.__module__ == schemas.__name__
        and not obj.__name__.startswith("_")
    ]


@pytest.mark.parametrize("cls", _shapes(), ids=lambda c: c.__name__)
def test_context_shapes_have_no_dict_fields(cls: type[BaseModel]) -> None:
    for name, info in cls.model_fields.items():
        assert not annotation_has_dict(info.annotation), name
    for node in objects(cls.model_json_schema()):
        assert node.get("additionalProperties") is False, node.get("title")
        assert "properties" in node, node.get("title")


def test_player_response_keeps_the_action_fields() -> None:
    from mafia.context.schemas import PlayerMemory, PlayerResponse
    from mafia.game.actions import ActionKind, Answer

    vote = Answer(
        observations="o",
        suspicions=[],
        relationships=[],
        pattern_notes=[],
        strategy="s",
        reasoning="r",
        text=None,
        choice="skip",
        claim=None,
    )
    response = PlayerResponse(player="P", action=ActionKind.VOTE, output=vote, memory=PlayerMemory())
    assert response.model_dump()["output"]["choice"] == "skip"


def test_night_death_line_reads_a_quiet_night() -> None:
    from mafia.prompts import anchors

    quiet = anchors.NIGHT_DEATH_LINE.match(anchors.format_night_death(1, None))
    killed = anchors.NIGHT_DEATH_LINE.match(anchors.format_night_death(2, "Player 3"))
    assert quiet is not None and quiet["victim"] is None
    assert killed is not None and killed["victim"] == "Player 3"


def test_the_summary_answer_is_strict_mode_safe() -> None:
    """The summariser's items: every object closed, every field required, no maps, no defaults."""
    from mafia.context.summary_items import PatternItem, SpeechItem, SummaryAnswer

    for cls in (SummaryAnswer, SpeechItem, PatternItem):
        for name, info in cls.model_fields.items():
            assert not annotation_has_dict(info.annotation), name
            assert info.is_required(), name
    for node in objects(SummaryAnswer.model_json_schema()):
        assert node.get("additionalProperties") is False and "properties" in node
        assert sorted(node["required"]) == sorted(node["properties"])
