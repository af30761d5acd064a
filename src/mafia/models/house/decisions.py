"""The house model's decisions: read the board, pick the action's tactic, fill in the beliefs.

``decide`` is the single entry point: the prompt's task picks a day (``day_tactics``) or night
(``night_tactics``) tactic, and every answer carries the SGR fields (observations, one suspicion per
other living player, relationships, pattern notes, strategy, reasoning) from the same board.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from mafia.game.actions import ActionKind
from mafia.game.rules import ROLES, Role, on_mafia
from mafia.models.house import day_tactics as day
from mafia.models.house import night_tactics as night
from mafia.models.house.board import assess
from mafia.models.house.phrasing import claimed_in, style_for
from mafia.models.house.prompt_reading import PromptView
from mafia.models.house.tactics import Ctx, Decision, Knobs, private_note

__all__ = ["HANDLERS", "Decision", "Knobs", "UnhandledAction", "decide"]


class UnhandledAction(ValueError):
    """A prompt asks for an action the house model has no tactic for: refused, never answered
    with some other action's answer."""


_SPOKEN = frozenset({"speak", "defense", "last_words"})


def decide(view: PromptView, props: frozenset[str], rng: random.Random, knobs: Knobs) -> Decision:
    """Decide the prompt's task; ``props`` are the bound schema's field names (used only when the
    prompt names no task)."""
    action = view.action or _infer_action(view, props)
    board = assess(view)
    ctx = Ctx(view, board, rng, knobs, style_for(view.persona))
    handler = _HANDLERS.get(action)
    if handler is None:
        raise UnhandledAction(f"the house model has no tactic for the action {action!r}")
    decision = handler(ctx)
    decision.action = action
    text = decision.fields.get("text")
    if action in _SPOKEN and isinstance(text, str):
        decision.fields["claim"] = claimed_in(text)  # states in the answer the role its words claim
    _fill_beliefs(ctx, decision)
    return decision


def _infer_action(view: PromptView, props: frozenset[str]) -> str:
    """The likeliest action of a prompt without a task header: a night action at night (by role),
    last words when the prompt says the game is over, otherwise a speech (or a ballot when the
    schema has no text field)."""
    if view.phase == "Night":
        if on_mafia(view.role):
            return ActionKind.MAFIA_ROUND2.value
        own = {role.value: spec.night_action for role, spec in ROLES.items() if spec.night_action}
        return own[view.role].value if view.role in own else ActionKind.SPEAK.value
    if view.game_over:
        return "last_words"
    return "speak" if "text" in props or not props else "vote"


HANDLERS: dict[ActionKind, Callable[[Ctx], Decision]] = {
    ActionKind.SPEAK: day.speak,
    ActionKind.VOTE: day.vote,
    ActionKind.REVOTE: day.vote,
    ActionKind.DEFENSE: day.defense,
    ActionKind.LAST_WORDS: day.last_words,
    ActionKind.NIGHT_ZERO: night.night_zero,
    ActionKind.MAFIA_ROUND1: night.mafia_round1,
    ActionKind.MAFIA_ROUND2: night.mafia_round2,
    ActionKind.NIGHT_KILL: night.mafia_round2,
    ActionKind.PROTECT: night.protect,
    ActionKind.INVESTIGATE: night.investigate,
    ActionKind.GUARD: night.guard,
    ActionKind.SHOOT: night.shoot,
}
"""How the house model plays each action (a role's night action included): its tactic."""
_HANDLERS: dict[str, Callable[[Ctx], Decision]] = {kind.value: tactic for kind, tactic in HANDLERS.items()}


# ---- beliefs -------------------------------------------------------------------------------


def _fill_beliefs(ctx: Ctx, decision: Decision) -> None:
    b, view = ctx.board, ctx.view
    for p in b.others:
        if p in b.partners:
            decision.suspicions.append((p, 0, "My Mafia partner."))
        elif ctx.sloppy():  # a weaker player's belief is as careless as its choices
            decision.suspicions.append((p, ctx.rng.randint(0, 10), "A guess."))
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
    if b.role == Role.DETECTIVE and view.results:
        found = ", ".join(f"{t} is {r}" for _, t, r in sorted(view.results))
        facts.append(f"My results: {found}.")
    if b.partners:
        facts.append("Partners: " + ", ".join(sorted(b.partners)) + ".")
    decision.fields["observations"] = " ".join(facts)
    notes = [f"{c} claimed Detective." for c in b.detective_claims[:2]]
    for p, who in list(b.nominators_today.items())[:2]:
        notes.append(f"{p} was nominated by {', '.join(who)}.")
    decision.pattern_notes = notes[:3]
    rels: list[str] = []
    for p, who in b.nominators_today.items():
        for w in who:
            if len(rels) < 3 and w != p:
                rels.append(f"{w} & {p} (conflict): {w} nominated {p}.")
    decision.relationships = rels
