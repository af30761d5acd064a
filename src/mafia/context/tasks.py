"""The task that ends every prompt: what to do now, the constraints, valid targets, what to answer.

One template per action under prompts/tasks/ (named, with its answer line, in the action's row of
mafia.game.protocol); the values each template takes are computed here. The nomination rule appears
only in the speech task; night-kill targets exclude every Mafia member; last words carry the
game_over hint when the engine says the elimination ends the game.
"""

from __future__ import annotations

from collections.abc import Callable

from mafia.context.sections import ordinal
from mafia.context.situation import Situation
from mafia.game.actions import ActionKind
from mafia.game.events import RoleNightEvent
from mafia.game.protocol import ACTIONS
from mafia.prompts import anchors
from mafia.prompts.templates import render


def _targets(s: Situation) -> str:
    return anchors.format_targets(s.targets or [])


def _speak(s: Situation) -> dict[str, str]:
    order = s.speaking_order
    place = order.index(s.me) + 1 if s.me in order else len(s.speeches) + 1
    total = len(order) if order else len(s.living)
    return {
        "day": str(s.number),
        "position": f"{ordinal(place)} of {total}",
        "targets_line": _targets(s),
    }


def _vote(s: Situation) -> dict[str, str]:
    return {"day": str(s.number), "targets_line": _targets(s)}


def _revote(s: Situation) -> dict[str, str]:
    return {"targets_line": _targets(s)}


def _defense(s: Situation) -> dict[str, str]:
    counts = {c.option: c.votes for c in s.tie_vote.counts} if s.tie_vote is not None else {}
    rivals = [p for p in s.tied if p != s.me]
    votes = counts.get(s.me)
    tie = "tied with " + (", ".join(rivals) if rivals else "another player")
    if votes is not None:
        tie += f" at {votes} votes each"
    return {"day": str(s.number), "tie": tie}


def _last_words(s: Situation) -> dict[str, str]:
    hint = ""
    if s.game_over:
        hint = f"{anchors.GAME_OVER_HINT}\nYour elimination ends the game: these words close it."
    return {"day": str(s.number), "game_over": hint}


def _night_zero(s: Situation) -> dict[str, str]:
    earlier = [n for n in s.night_zero_notes if n.speaker != s.me]
    if earlier:
        note = "Your partners' plans so far are under Mafia info; build on them."
    else:
        note = "You write first; later partners see your plan."
    return {"earlier": note}


def _round1(s: Situation) -> dict[str, str]:
    if s.tonight_proposals:
        note = "Earlier proposals tonight are under Mafia info."
    else:
        note = "You propose first; later partners see your proposal and message."
    return {
        "night": str(s.number),
        "need": str(s.consensus_need),
        "count": str(len(s.living_mafia)),
        "earlier": note,
        "targets_line": _targets(s),
    }


def _round2(s: Situation) -> dict[str, str]:
    return {
        "night": str(s.number),
        "need": str(s.consensus_need),
        "count": str(len(s.living_mafia)),
        "lowest": s.living_mafia[0] if s.living_mafia else s.me,
        "targets_line": _targets(s),
    }


def _night_kill(s: Situation) -> dict[str, str]:
    return {"night": str(s.number), "targets_line": _targets(s)}


def _protect(s: Situation) -> dict[str, str]:
    done = [f"Night {p.round}: {p.protected}" for p in s.record.my_protections]
    return {
        "night": str(s.number),
        "history": "; ".join(done) if done else "none yet",
        "targets_line": _targets(s),
    }


def _investigate(s: Situation) -> dict[str, str]:
    done = [f"{i.target} (Night {i.round}: {i.result})" for i in s.record.my_investigations]
    return {
        "night": str(s.number),
        "history": "; ".join(done) if done else "no one yet",
        "targets_line": _targets(s),
    }


def _night_choice(s: Situation) -> dict[str, str]:
    """A role's night task unless its action has values of its own: the night, the player's
    earlier choices of it ("Night 1: X") and the targets."""
    done = [
        f"Night {e.round}: {e.chosen()}"
        for e in s.record.view
        if isinstance(e, RoleNightEvent) and e.role() is s.role and e.chooser() == s.me
    ]
    return {
        "night": str(s.number),
        "history": "; ".join(done) if done else "no one yet",
        "targets_line": _targets(s),
    }


_VALUES: dict[ActionKind, Callable[[Situation], dict[str, str]]] = {
    ActionKind.SPEAK: _speak,
    ActionKind.VOTE: _vote,
    ActionKind.REVOTE: _revote,
    ActionKind.DEFENSE: _defense,
    ActionKind.LAST_WORDS: _last_words,
    ActionKind.NIGHT_ZERO: _night_zero,
    ActionKind.MAFIA_ROUND1: _round1,
    ActionKind.MAFIA_ROUND2: _round2,
    ActionKind.NIGHT_KILL: _night_kill,
    ActionKind.PROTECT: _protect,
    ActionKind.INVESTIGATE: _investigate,
}


# Where else the prompt lists a night role's past choices, for a task told not to repeat them.
HISTORY_ELSEWHERE: dict[ActionKind, str] = {
    ActionKind.PROTECT: "listed in your memory",
    ActionKind.INVESTIGATE: "listed under your investigation results",
}


def repeats_history(s: Situation) -> bool:
    """Whether the task repeats a history the prompt lists elsewhere (a Doctor's protections, a
    Detective's results), which a token budget may leave to that list."""
    if s.action is ActionKind.PROTECT:
        return bool(s.record.my_protections)
    return s.action is ActionKind.INVESTIGATE and bool(s.record.my_investigations)


def task(s: Situation, history_elsewhere: bool = False) -> str:
    """The task section for the situation's action (header, constraints, targets, what to answer);
    ``history_elsewhere`` points to the list of past protections or results instead of repeating it."""
    spec = ACTIONS[s.action]
    values = _VALUES.get(s.action, _night_choice)(s)
    if history_elsewhere and s.action in HISTORY_ELSEWHERE:
        values["history"] = HISTORY_ELSEWHERE[s.action]
    return render(
        spec.template, header=anchors.format_task_header(s.action.value), answer=spec.answer, **values
    )
