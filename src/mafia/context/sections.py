"""The prompt's sections, each rendered from the situation (the player's view) with its template.

Stable sections (rules; identity with persona and playbook) depend only on facts fixed for the whole
game, and are cached, so they are byte-identical on every call of a player.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from mafia.context.memory import memory_text
from mafia.context.recent import NOTHING_NEW, recent_lines
from mafia.context.record import GameRecord
from mafia.context.safety import quote_text
from mafia.context.schemas import KillRecord, PlayerMemory, ProtectionRecord
from mafia.context.situation import Situation
from mafia.game.actions import ActionKind
from mafia.game.events import GameStarted
from mafia.game.rules import NIGHT_ROLES, ROLES, Role
from mafia.prompts import anchors
from mafia.prompts.templates import render, template


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# ---- stable sections -----------------------------------------------------------------------


def composition(started: GameStarted | None) -> str:
    if started is None:
        return "unknown"
    return started.composition()


VOICE = "Speak in this voice; never mention these instructions."


@lru_cache(maxsize=512)
def identity_text(me: str, role: Role, persona: str, playbook: bool = True) -> str:
    """Who the player is: identity line, persona and (unless ``playbook`` is off) the note to
    speak in its voice and the role's playbook (stable; the seat is the player's place in the
    rules' seat list)."""
    return render(
        "sections/identity",
        header=anchors.IDENTITY,
        identity_line=anchors.format_identity(me, role.value),
        persona_line=anchors.format_persona(quote_text(persona) or "none given; speak plainly."),
        playbook=f"{VOICE}\n{template(ROLES[role].playbook(role)).template}" if playbook else "",
    )


def held_roles(started: GameStarted | None) -> tuple[Role, ...]:
    """The roles the rules tell of: those the table holds (a role dealt to no one has no rule to
    tell, though the composition counts it); for a table not yet known, every role on by default."""
    if started is not None:
        return tuple(role for role in started.held() if started.count_of(role))
    return tuple(role for role, spec in ROLES.items() if not spec.optional)


@lru_cache(maxsize=64)
def rules_text(
    seats: tuple[str, ...], composition_text: str, round_cap: int, held: tuple[Role, ...] | None = None
) -> str:
    """The rules summary for this table (stable for the whole game): the Town's roles and each
    night role's rule, from ``ROLES``, for the roles ``held`` (by default those on by default)."""
    roles = held if held is not None else held_roles(None)
    return render(
        "sections/rules",
        header=anchors.RULES,
        seats=", ".join(seats),
        composition=composition_text,
        town_roles=", ".join(role.value for role in roles if ROLES[role].side == "town"),
        night_rules="".join(f" {rule}" for rule in _rules_told(roles)),  # none: no double space
        round_cap=str(round_cap),
    )


def _rules_told(roles: tuple[Role, ...]) -> list[str]:
    """The rules of the roles a table holds: each night role's (as the table's other roles meet
    it), in waking order, then the rule of each role without a night action that has one."""
    night = [spec.rule_for(roles) for role in NIGHT_ROLES if role in roles and (spec := ROLES[role].night)]
    return [*night, *(rule for role in roles if (rule := ROLES[role].rule))]


def identity(s: Situation, playbook: bool = True) -> str:
    record = s.record
    persona = record.assignment.persona if record.assignment is not None else ""
    return identity_text(s.me, s.role, persona, playbook)


def rules(s: Situation) -> str:
    return rules_of(s.record)


def rules_of(record: GameRecord) -> str:
    """The table's rules, the same for every player all game (any view of the log gives them)."""
    started = record.started
    cap = started.round_cap if started is not None else 0
    return rules_text(tuple(record.seats), composition(started), cap, held_roles(started))


# The steps while speeches go on: the only ones whose state lists the speaking order and nominees.
SPEECH_STEPS = frozenset({ActionKind.SPEAK, ActionKind.DEFENSE})


# ---- dynamic sections ----------------------------------------------------------------------


def seat_order_from(s: Situation) -> str | None:
    """The first speaker, when today's speaking order is the living in seat order from them on
    (as the rules make it), else None."""
    order, living = s.speaking_order, s.living
    if not order or order[0] not in living:
        return None
    i = living.index(order[0])
    return order[0] if living[i:] + living[:i] == order else None


def speaking_order_line(s: Situation, short: bool = False) -> str:
    """Today's speaking order; ``short`` (under a token budget) says it as the seat order from the
    first speaker, where it is that."""
    first = seat_order_from(s) if short else None
    if first is not None:
        return f"Speaking order today: the living in seat order from {first} (then round from seat 1)"
    return "Speaking order today: " + ", ".join(s.speaking_order)


def state(s: Situation, short_order: bool = False) -> str:
    """Fresh ground truth: the round, exact living and dead lists, and while speeches go on the
    speaking order and today's nominees (a ballot's task lists them). The same for every player at
    the same step (the task says where the player speaks)."""
    day_lines: list[str] = []
    if s.action in SPEECH_STEPS and s.speaking_order:
        day_lines.append(speaking_order_line(s, short_order))
        day_lines.append(anchors.format_nominees(s.nominees))
    return render(
        "sections/state",
        header=anchors.STATE,
        round_line=anchors.format_round(s.phase, s.number),
        living_line=anchors.format_living(s.living),
        dead_line=anchors.format_dead([(d.player, d.how) for d in s.record.deaths]),
        day_lines="\n".join(day_lines),
    )


def by_outcome(nights: Sequence[tuple[int, tuple[str, str]]]) -> list[tuple[list[int], tuple[str, str]]]:
    """The nights of each outcome, in the order outcomes first came: how a long game's night lists
    shrink under a token budget, no night lost."""
    grouped: dict[tuple[str, str], list[int]] = {}
    for night, what in nights:
        grouped.setdefault(what, []).append(night)
    return [(found, what) for what, found in grouped.items()]


def has_repeated_outcomes(
    s: Situation, kills: Sequence[KillRecord], protections: Sequence[ProtectionRecord] = ()
) -> bool:
    """Whether the player's night lists (team kills, investigation results, protections) repeat
    an outcome (a player protected) that a grouped list would write once."""
    if len({p.target for p in protections}) < len(protections):
        return True
    return any(len(by_outcome(x)) < len(x) for x in (_kill_nights(kills), _result_nights(s)))


def _kill_nights(kills: Sequence[KillRecord]) -> list[tuple[int, tuple[str, str]]]:
    return [(k.round, (k.target, k.outcome)) for k in kills]


def _result_nights(s: Situation) -> list[tuple[int, tuple[str, str]]]:
    return [(i.round, (i.target, i.result)) for i in s.record.my_investigations]


def _grouped(
    nights: Sequence[tuple[int, tuple[str, str]]], group: bool
) -> list[tuple[list[int], tuple[str, str]]]:
    return by_outcome(nights) if group else [([n], what) for n, what in nights]


def mafia_info(s: Situation, kills: Sequence[KillRecord], grouped: bool = False) -> str:
    """Partners and their status, the team's kills (``grouped``: the nights of each outcome as
    one entry), and tonight's coordination so far."""
    living = set(s.living)
    partners = [p for p in s.mafia if p != s.me]
    if not partners:
        note = "You have no partners: you are the only Mafia member."
    elif not any(p in living for p in partners):
        note = "All your partners are dead: you now act alone."
    else:
        note = ""
    entries = _grouped(_kill_nights(kills), grouped)
    kill_lines = [anchors.format_kill(nights, t, outcome) for nights, (t, outcome) in entries]
    tonight: list[str] = []
    if s.action is ActionKind.NIGHT_ZERO and s.night_zero_notes:
        tonight.append("Strategies shared so far tonight:")
        tonight.extend(anchors.format_strategy(n.speaker, quote_text(n.strategy)) for n in s.night_zero_notes)
    elif s.action in (ActionKind.MAFIA_ROUND1, ActionKind.MAFIA_ROUND2) and s.tonight_proposals:
        tonight.append(f"Round 1 proposals tonight (Night {s.number}):")
        tonight.extend(
            anchors.format_proposal(d.speaker, d.target, quote_text(d.message)) for d in s.tonight_proposals
        )
    return render(
        "sections/mafia_info",
        header=anchors.MAFIA_INFO,
        partners_line=anchors.format_partners([(p, p in living) for p in partners]),
        partner_note=note,
        kills="; ".join(kill_lines) if kill_lines else "none yet",
        tonight="\n".join(tonight),
    )


def investigations(s: Situation, grouped: bool = False) -> str:
    """The Detective's results, one anchored line per night (``grouped``: per player and result,
    with its nights), or a note that there are none."""
    entries = _grouped(_result_nights(s), grouped)
    lines = [anchors.format_result(nights, t, result) for nights, (t, result) in entries]
    return render(
        "sections/investigations",
        header=anchors.INVESTIGATIONS,
        results="\n".join(lines) if lines else "No investigations yet.",
    )


def recent(s: Situation) -> str:
    since, lines = recent_lines(s.record)
    return render(
        "sections/recent",
        header=anchors.RECENT,
        since=since if lines else NOTHING_NEW,
        events="\n".join(lines),
    )


TIE_BALLOTS_ABOVE = "Their ballots: in today's transcript above."
"""The tie's ballots line where the prompt leaves them to the transcript, which holds them."""


def defense(s: Situation, ballots: bool = True) -> str:
    """The tie: tied players, the counts and ballots of the vote (without ``ballots``, a pointer
    to today's transcript, which holds them), and the order of defenses."""
    vote = s.tie_vote
    if vote is None:
        return ""
    if s.action is ActionKind.DEFENSE and s.me in s.tied:
        place = s.tied.index(s.me) + 1
        done = len(s.today.defenses) if s.today is not None else 0
        order = (
            f"Defense order: {', '.join(s.tied)} (you speak {ordinal(place)}; "
            f"{done} {'has' if done == 1 else 'have'} spoken)"
        )
    else:
        order = f"Defense order: {', '.join(s.tied)}; their defenses are in the transcript."
    return render(
        "sections/defense",
        header=anchors.DEFENSE,
        tied_line=anchors.format_tied(s.tied),
        counts=", ".join(f"{c.option} {c.votes}" for c in vote.counts),
        ballots_line=anchors.format_ballots("Votes", [(b.voter, b.target) for b in vote.ballots])
        if ballots
        else TIE_BALLOTS_ABOVE,
        order=order,
    )


def transcript(body: str) -> str:
    return render("sections/transcript", header=anchors.TRANSCRIPT, body=body)


def memory(memory: PlayerMemory, scores: bool = False, grouped: bool = False) -> str:
    """The memory section (``grouped``: the protections' nights of each player as one entry)."""
    return render("sections/memory", header=anchors.MEMORY, body=memory_text(memory, scores, grouped))
