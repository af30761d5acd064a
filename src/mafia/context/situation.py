"""The situation of one decision, derived from the player's view: phase, day, nominees, tie, night.

Everything a section or a task needs to know about "now" is computed here once, from the sorted
view (``record``) and the action the engine asks for, so renderers stay simple and never look at
anything but the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from mafia.context.memory import NIGHT_ACTIONS
from mafia.context.record import GameRecord, RoundRecord
from mafia.game.actions import ActionKind
from mafia.game.events import MafiaDiscussion, NightZeroStrategy, Speech, VoteRound
from mafia.game.protocol import ACTIONS, Board
from mafia.game.rules import (
    Role,
    consensus_threshold,
    on_mafia,
)

VOTE_ACTIONS = frozenset({ActionKind.VOTE, ActionKind.REVOTE})


@dataclass
class Situation:
    """One player's decision point: who they are, what is happening, and what they may choose."""

    record: GameRecord
    action: ActionKind
    game_over: bool = False
    options: Sequence[str] | None = None
    """The legal choices the engine computed for this turn, when it did (see ``targets``)."""

    # ---- who and when ----------------------------------------------------------------------

    @property
    def me(self) -> str:
        return self.record.me

    @property
    def role(self) -> Role:
        return self.record.role

    @property
    def is_night(self) -> bool:
        return self.action in NIGHT_ACTIONS

    @property
    def phase(self) -> str:
        return "Night" if self.is_night else "Day"

    @cached_property
    def number(self) -> int:
        """The round of this decision (Day k or Night k; night zero is 0)."""
        if self.action is ActionKind.NIGHT_ZERO:
            return 0
        return self.record.current_round

    @cached_property
    def today(self) -> RoundRecord | None:
        """The current round's record, if its day has started."""
        rnd = self.record.rounds.get(self.record.current_round)
        return rnd if rnd is not None and rnd.day is not None else None

    @cached_property
    def living(self) -> list[str]:
        return self.record.living

    @cached_property
    def others(self) -> list[str]:
        """Living players other than me, in seat order (whom the suspicions must cover)."""
        return [p for p in self.living if p != self.me]

    # ---- day -------------------------------------------------------------------------------

    @cached_property
    def speeches(self) -> list[Speech]:
        return list(self.today.speeches) if self.today is not None else []

    @cached_property
    def speaking_order(self) -> list[str]:
        if self.today is None or self.today.day is None:
            return []
        return list(self.today.day.speaking_order)

    @cached_property
    def nominees(self) -> list[str]:
        """Players nominated today, in seat order (the ballot's candidates)."""
        named = {s.nomination for s in self.speeches if s.nomination}
        return [p for p in self.record.seats if p in named]

    @cached_property
    def tie_vote(self) -> VoteRound | None:
        """Today's first vote if it ended in a tie (the defense and revote follow it)."""
        if self.today is None:
            return None
        return next((v for v in self.today.votes if not v.revote and v.outcome == "tie"), None)

    @cached_property
    def tied(self) -> list[str]:
        return list(self.tie_vote.tied) if self.tie_vote is not None else []

    # ---- night -----------------------------------------------------------------------------

    @cached_property
    def mafia(self) -> list[str]:
        """The whole Mafia team as this player knows it (only a Mafia player knows it)."""
        if not on_mafia(self.role):
            return []
        team = {self.me, *self.record.partners}
        return [p for p in self.record.seats if p in team]

    @cached_property
    def living_mafia(self) -> list[str]:
        living = set(self.living)
        return [p for p in self.mafia if p in living]

    @cached_property
    def consensus_need(self) -> int:
        return consensus_threshold(len(self.living_mafia))

    @cached_property
    def tonight_proposals(self) -> list[MafiaDiscussion]:
        """Round 1 proposals made so far tonight (what later Mafia and Round 2 see)."""
        rnd = self.record.rounds.get(self.number)
        if rnd is None or rnd.mafia_vote is not None:
            return []
        return [d for d in rnd.discussions if d.coordination_round == 1]

    @cached_property
    def night_zero_notes(self) -> list[NightZeroStrategy]:
        return [s for s in self.record.strategies if s.round == 0]

    # ---- choices ---------------------------------------------------------------------------

    @cached_property
    def targets(self) -> list[str] | None:
        """The legal choices of this action, or None when it has no target: the engine's own list
        when it gave one (the list the answer is checked against), else the rules' from the view."""
        if self.options is not None:
            return list(self.options) if self.options else None
        targets = ACTIONS[self.action].targets
        if targets is None:
            return None
        view = Board(self.living, self.me, self.mafia, self.nominees, self.tied)
        return targets(view)

    @property
    def keeps_current_round(self) -> bool:
        """Votes always see the full current round, whatever the token budget."""
        return self.action in VOTE_ACTIONS
