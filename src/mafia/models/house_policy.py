"""The house model's decisions: read the board, pick the action's tactic, fill in the beliefs.

``decide`` is the single entry point: the prompt's task picks a day (``house_day``) or night
(``house_night``) tactic, and every answer carries the SGR fields (observations, one suspicion per
other living player, relationships, pattern notes, strategy, reasoning) from the same board.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from mafia.actions import ACTION_SCHEMAS, ActionBase
from mafia.models import house_day as day
from mafia.models import house_night as night
from mafia.models.house_board import assess
from mafia.models.house_reading import PromptView
from mafia.models.house_speech import style_for
from mafia.models.house_tactics import Ctx, Decision, Knobs, private_note

__all__ = ["FIELDS_OF", "Decision", "Knobs", "decide"]


def decide(view: PromptView, props: frozenset[str], rng: random.Random, knobs: Knobs) -> Decision:
    """Decide the prompt's task; ``props`` are the bound schema's field names (used only when the
    prompt names no task)."""
    action = view.action
    if not action or props & _CHOICE_FIELDS - FIELDS_OF.get(action, frozenset()):
        # No task named, or the bound schema asks for another action's fields: go by the schema.
        action = _infer_action(view, props)
    board = assess(view)
    ctx = Ctx(view, board, rng, knobs, style_for(view.persona))
    handler = _HANDLERS.get(action, day.speak)
    decision = handler(ctx)
    decision.action = action
    _fill_beliefs(ctx, decision)
    return decision


FIELDS_OF: dict[str, frozenset[str]] = {
    kind.value: frozenset(schema.model_fields) - frozenset(ActionBase.model_fields)
    for kind, schema in ACTION_SCHEMAS.items()
}
"""Each action's own answer fields (beyond the reasoning fields every action shares)."""
_CHOICE_FIELDS = frozenset({"nomination", "vote", "target", "plan"})


def _infer_action(view: PromptView, props: frozenset[str]) -> str:
    if "vote" in props:
        return "vote"
    if "nomination" in props:
        return "speak"
    if "plan" in props:
        return "night_zero"
    if "target" in props:
        if view.role == "Mafia":
            return "mafia_round1" if "message" in props else "mafia_round2"
        return "protect" if view.role == "Doctor" else "investigate"
    if "speech" in props and view.game_over:
        return "last_words"
    return "speak"


_HANDLERS: dict[str, Callable[[Ctx], Decision]] = {
    "speak": day.speak,
    "vote": day.vote,
    "revote": day.vote,
    "defense": day.defense,
    "last_words": day.last_words,
    "night_zero": night.night_zero,
    "mafia_round1": night.mafia_round1,
    "mafia_round2": night.mafia_round2,
    "night_kill": night.mafia_round2,
    "protect": night.protect,
    "investigate": night.investigate,
}


# ---- beliefs -------------------------------------------------------------------------------


def _fill_beliefs(ctx: Ctx, decision: Decision) -> None:
    b, view = ctx.board, ctx.view
    for p in b.others:
        if p in b.partners:
            decision.suspicions.append((p, 0, "My Mafia partner."))
        else:
            note = private_note(b, p)
            decision.suspicions.append((p, b.level(p), note[:1].upper() + note[1:] + "."))
    facts = [f"{len(b.living)} players alive."]
    if b.nominations_today:
        noms = ", ".join(f"{p} ({n})" for p, n in b.nominations_today.most_common(4))
        facts.append(f"Nominated today: {noms}.")
    if b.detective_claims:
        facts.append("Detective claims: " + ", ".join(b.detective_claims) + ".")
    if b.doctor_claims:
        facts.append("Doctor claims: " + ", ".join(b.doctor_claims) + ".")
    killed = [name for name, how, _ in view.dead if how == "night"]
    if killed:
        facts.append("Killed at night: " + ", ".join(killed) + ".")
    if b.role == "Detective" and view.results:
        found = ", ".join(f"{t} is {r}" for _, t, r in sorted(view.results))
        facts.append(f"My results: {found}.")
    if b.partners:
        facts.append("Partners: " + ", ".join(sorted(b.partners)) + ".")
    decision.fields["observations"] = " ".join(facts)
    notes = [f"{c} claimed Detective." for c in b.detective_claims[:2]]
    for p, who in list(b.nominators_today.items())[:2]:
        notes.append(f"{p} was nominated by {', '.join(who)}.")
    decision.pattern_notes = notes[:3]
    rels: list[tuple[list[str], str, str]] = []
    for p, who in b.nominators_today.items():
        for w in who:
            if len(rels) < 3 and w != p:
                rels.append(([w, p], "conflict", f"{w} nominated {p}."))
    decision.relationships = rels
