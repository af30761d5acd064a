"""Every prompt template's placeholders are exactly those its renderer supplies."""

from __future__ import annotations

from unittest import mock

import pytest

from logbuilder import context_cases
from mafia.context import build_context
from mafia.context.policy import ContextPolicy
from mafia.game.actions import ActionKind
from mafia.game.rules import Role
from mafia.prompts import templates


def test_every_template_file_is_declared_and_every_declaration_has_a_file() -> None:
    assert set(templates.template_files()) == set(templates.TEMPLATE_FIELDS)


@pytest.mark.parametrize("name", sorted(templates.TEMPLATE_FIELDS))
def test_template_placeholders_match_declaration(name: str) -> None:
    assert templates.placeholders(name) == templates.TEMPLATE_FIELDS[name]


def test_each_action_has_a_task_template_and_each_role_a_playbook() -> None:
    for action in ActionKind:
        assert f"tasks/{action.value}" in templates.TEMPLATE_FIELDS
    for role in Role:
        assert f"playbooks/{role.value.lower()}" in templates.TEMPLATE_FIELDS


def test_render_refuses_missing_or_extra_values() -> None:
    with pytest.raises(KeyError, match="missing"):
        templates.render("sections/transcript", header="[TRANSCRIPT]")
    with pytest.raises(KeyError, match="unexpected"):
        templates.render("sections/transcript", header="[TRANSCRIPT]", body="x", extra="y")


def test_empty_optional_line_is_dropped() -> None:
    text = templates.render("sections/transcript", header="[TRANSCRIPT]", body="")
    assert text == "[TRANSCRIPT]"


def test_renderer_supplies_exactly_the_declared_placeholders() -> None:
    """Every template used while building all prompts was filled with exactly its declared names
    (render checks this on every call), and every template was used."""
    used: set[str] = set()
    real = templates.render

    def spy(name: str, **values: str) -> str:
        assert values.keys() == templates.TEMPLATE_FIELDS[name], name
        used.add(name)
        return real(name, **values)

    from mafia.context import clear_caches

    clear_caches()
    with (
        mock.patch("mafia.context.sections.render", spy),
        mock.patch("mafia.context.tasks.render", spy),
    ):
        for events, player, action, game_over in context_cases().values():
            build_context(events, player, action, ContextPolicy(recent_events=True), game_over=game_over)
    clear_caches()
    playbooks = {n for n in templates.TEMPLATE_FIELDS if n.startswith("playbooks/")}
    assert used | playbooks == set(templates.TEMPLATE_FIELDS)
