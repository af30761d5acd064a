"""What every house decision shares: play-style knobs, the decision being built, the context it
is built in, and the helpers the day and night tactics use (thresholds, the Mafia's view of who
threatens them, plans and proposals read from the prompt).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mafia.game.rules import SKIP
from mafia.models.house.board import Board, assess
from mafia.models.house.phrasing import Style, line
from mafia.models.house.prompt_reading import PromptView
from mafia.models.house.text_reading import names_pattern
from mafia.prompts.anchors import NONE

_VAGUE_WHY = (
    "their story does not add up",
    "they keep steering the talk away from themselves",
    "something in their tone is off",
    "they have been careful in a way that worries me",
)
_NO_CHOICE = {"", NONE, "null", SKIP}
# How much the bandwagon (nominations and accusations by others) counts next to the evidence.
FOLLOW_NOMINATE, FOLLOW_READ, FOLLOW_VOTE = 0.35, 0.5, 0.7


@dataclass(frozen=True, slots=True)
class Knobs:
    """Play-style settings: ``skill`` is the chance of the reasoned choice (else a random legal
    one); ``aggression`` lowers the evidence needed to nominate or vote and raises the chance of
    early reads and of Mafia counterclaims."""

    skill: float = 1.0
    aggression: float = 0.5


@dataclass(slots=True)
class Decision:
    """The answer's content, independent of the schema it will be written into."""

    action: str
    fields: dict[str, Any] = field(default_factory=dict)
    suspicions: list[tuple[str, int, str]] = field(default_factory=list)
    relationships: list[str] = field(default_factory=list)
    pattern_notes: list[str] = field(default_factory=list)

    def reply(self) -> str:
        """A plain-text answer for a call without tools or a response format."""
        text = self.fields.get("text")
        if isinstance(text, str) and text:
            return text
        choice = self.fields.get("choice")
        if isinstance(choice, str) and choice:
            return f"My choice: {choice}."
        return str(self.fields.get("strategy", "I am thinking it over."))


@dataclass(slots=True)
class Ctx:
    """One decision's inputs: the prompt's view, the board read from it, the seeded RNG."""

    view: PromptView
    board: Board
    rng: random.Random
    knobs: Knobs
    style: Style
    _table: Board | None = None

    @property
    def table(self) -> Board:
        """How an ordinary Town player would score the table (the Mafia read the room with it)."""
        if self._table is None:
            self._table = assess(self.view, private=False)
        return self._table

    def sloppy(self) -> bool:
        return self.knobs.skill < 1.0 and self.rng.random() >= self.knobs.skill


def best(rng: random.Random, cands: Sequence[str], key: Callable[[str], float]) -> str | None:
    """The highest-keyed candidate; ties broken by the seeded RNG."""
    if not cands:
        return None
    scored = [(key(c), c) for c in cands]
    top = max(s for s, _ in scored)
    tied = [c for s, c in scored if s >= top - 1e-9]
    return tied[0] if len(tied) == 1 else rng.choice(tied)


def listed_options(ctx: Ctx) -> list[str]:
    """The task's valid targets as listed. Without a "Valid targets" line: for a ballot, the tied
    players or today's nominees (and skip); otherwise every other living player (and skip)."""
    view = ctx.view
    if view.targets is not None:
        return list(view.targets)
    if view.action == "revote" and view.tied:
        return [*view.tied, SKIP]
    if view.action in ("vote", "revote") and view.nominees:
        return [*view.nominees, SKIP]
    return [*ctx.board.others, SKIP]


def skip_option(options: Sequence[str]) -> str | None:
    """The skip option as ``options`` spell it (matched in any case), or None if absent."""
    return next((o for o in options if o.lower() == SKIP), None)


def names_only(options: Sequence[str]) -> list[str]:
    """The player names among the options (no "skip" or "none")."""
    return [o for o in options if o.lower() not in _NO_CHOICE]


def public_why(board: Board, player: str, rng: random.Random) -> str:
    """A reason to say out loud (it never names another player), else a vague one."""
    reason = board.why(player)
    if reason is not None and reason.public:
        return reason.public
    counted = [r.public for r in board.reasons.get(player, []) if r.public and r.weight == 0.0]
    return counted[0] if counted else rng.choice(_VAGUE_WHY)


def private_note(board: Board, player: str) -> str:
    """The private notes behind a score: the two weightiest reasons, and who pointed at them."""
    reasons = board.reasons.get(player) or []
    if len(reasons) > 2:
        reasons = sorted(reasons, key=lambda r: -abs(r.weight))[:2]
    notes = [r.note for r in reasons if r.note]
    by = board.pointed_by.get(player)
    if by:
        notes.append("pointed at by " + ", ".join(dict.fromkeys(by)))
    return "; ".join(notes) or "no evidence yet"


def urgency(board: Board) -> float:
    """Each day without the Mafia found makes waiting costlier: thresholds drop."""
    return min(0.75, 0.25 * max(0, board.today - 1))


def nominate_threshold(ctx: Ctx) -> float:
    base = 1.5 - 0.8 * ctx.knobs.aggression - ctx.style.eagerness - urgency(ctx.board)
    return max(0.3, base)


def vote_threshold(ctx: Ctx) -> float:
    base = 1.1 - 0.5 * ctx.knobs.aggression - 0.5 * ctx.style.eagerness - urgency(ctx.board)
    return max(0.3, base)


def gut_chance(ctx: Ctx) -> float:
    base = 0.1 + 0.25 * ctx.knobs.aggression + ctx.style.eagerness + 0.5 * urgency(ctx.board)
    return max(0.0, base)


def is_early(board: Board) -> bool:
    """Day 1 with nothing to go on: no findings claimed, no one killed yet."""
    return board.today <= 1 and not board.findings and not board.night_victims


def mafia_found_alive(board: Board, cands: Sequence[str]) -> list[str]:
    return [t for t, r in board.my_results.items() if r == "Mafia" and t in cands]


def detective_report(ctx: Ctx) -> list[str]:
    b, rng = ctx.board, ctx.rng
    core = [line(rng, "detective_again" if b.i_claimed_detective else "detective_intro")]
    for _night, target, result in sorted(ctx.view.results):
        core.append(line(rng, "finding", t=target, r=result))
    return core


def exposing_claimants(ctx: Ctx) -> list[str]:
    """Detective claimants (not on the team) whose findings name a Mafia player."""
    b = ctx.board
    team = b.team
    out: list[str] = []
    for claimant, target, result in b.findings:
        if (
            result == "Mafia"
            and target in team
            and claimant not in team
            and claimant in b.living
            and claimant not in out
        ):
            out.append(claimant)
    return out


def plan_target(ctx: Ctx, cands: Sequence[str]) -> str | None:
    """The day push a partner's night-zero plan names ("Day push: X."), if still a candidate."""
    pattern = names_pattern(tuple(cands))
    if pattern is None:
        return None
    for speaker, text in ctx.view.plans:
        if speaker == ctx.board.me:
            continue
        head, _, tail = text.partition("Day push:")
        found = pattern.search(tail or head)
        if found:
            return found.group(0)
    return None


def counterclaimer(ctx: Ctx) -> str | None:
    """The living teammate the plans designate to counterclaim Detective ("X counterclaims")."""
    team = tuple(sorted(ctx.board.team))
    pattern = names_pattern(team)
    if pattern is None:
        return None
    for _speaker, text in ctx.view.plans:
        idx = text.find(" counterclaims")
        if idx > 0:
            found = pattern.findall(text[:idx])
            if found and found[-1] in ctx.board.living:
                return str(found[-1])
    return None


def danger_scores(ctx: Ctx) -> dict[str, float]:
    """How much each non-Mafia player threatens the Mafia (for kills and day pushes)."""
    b = ctx.board
    team = b.team
    table = ctx.table
    danger = {p: 0.0 for p in b.others if p not in team}
    for p in danger:
        if p in b.detective_claims:
            danger[p] += 10.0
        if p in b.doctor_claims:
            danger[p] += 5.0
        danger[p] -= 0.4 * max(0.0, table.total(p, FOLLOW_READ))
    for said, reading in b.readings:
        if said.speaker not in danger:
            continue
        pointed = set(reading.accused)
        if said.nomination:
            pointed.add(said.nomination)
            danger[said.speaker] += 0.3
        danger[said.speaker] += 0.8 * len(pointed & team)
    if ctx.view.kills:
        target, outcome = ctx.view.kills[-1]
        if outcome == "survived" and target in danger:
            danger[target] -= 6.0  # the Doctor was on them last night
    return danger


def decision_with(fields: dict[str, Any], strategy: str, reasoning: str) -> Decision:
    """A decision with its action fields and the strategy and reasoning behind them."""
    fields["strategy"] = strategy
    fields["reasoning"] = reasoning
    return Decision(action="", fields=fields)
