"""One pass over a player's view, sorted into what a context is made of.

Everything the builder, the transcript and the memory need is read here from the events the player
may see (``views.player_view``), never from engine state: the table, the player's own role, the
rounds with their speeches, votes and nights, deaths with how they happened, and the player's own
thoughts and fallbacks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mafia.game.events import (
    ColdSummary,
    DayStarted,
    DefenseSpeech,
    DoctorProtection,
    Elimination,
    EventBase,
    Fallback,
    GameStarted,
    Investigation,
    LastWords,
    MafiaDiscussion,
    MafiaVote,
    NightResolution,
    NightZeroStrategy,
    RoleAssigned,
    Speech,
    Thought,
    VoteRound,
)
from mafia.game.rules import Role


@dataclass
class RoundRecord:
    """Round k as the player saw it: Day k (speeches, votes, elimination), then Night k."""

    number: int
    day: DayStarted | None = None
    speeches: list[Speech] = field(default_factory=list)
    votes: list[VoteRound] = field(default_factory=list)
    defenses: list[DefenseSpeech] = field(default_factory=list)
    last_words: LastWords | None = None
    discussions: list[MafiaDiscussion] = field(default_factory=list)
    mafia_vote: MafiaVote | None = None
    protections: list[DoctorProtection] = field(default_factory=list)
    investigations: list[Investigation] = field(default_factory=list)
    resolution: NightResolution | None = None

    @property
    def night_open(self) -> bool:
        """Whether night events of this round have started (so its day is over)."""
        return bool(
            self.discussions or self.mafia_vote or self.protections or self.investigations or self.resolution
        )


@dataclass(frozen=True)
class Death:
    """A death as the table knows it: who, and how ("night 1" or "voted day 2")."""

    player: str
    kind: str  # "night" or "vote"
    round: int

    @property
    def how(self) -> str:
        return f"night {self.round}" if self.kind == "night" else f"voted day {self.round}"


@dataclass
class GameRecord:
    """A player's view sorted by kind: the table, their role, the rounds and their own notes."""

    me: str
    view: list[EventBase]
    started: GameStarted | None = None
    assignment: RoleAssigned | None = None
    rounds: dict[int, RoundRecord] = field(default_factory=dict)
    strategies: list[NightZeroStrategy] = field(default_factory=list)
    thoughts: list[tuple[int, Thought]] = field(default_factory=list)
    fallbacks: list[tuple[int, Fallback]] = field(default_factory=list)
    deaths: list[Death] = field(default_factory=list)
    summary: ColdSummary | None = None
    """The latest summary of the earlier days (policies with summaries), if any was written."""

    @property
    def seats(self) -> list[str]:
        """Every player in seat order (from the game's start, else from the first day)."""
        if self.started is not None:
            return list(self.started.players)
        first = next((r.day for r in self.rounds.values() if r.day is not None), None)
        return list(first.living) if first is not None else [self.me]

    @property
    def role(self) -> Role:
        """The player's own role (Town if the log never told them, which the engine prevents)."""
        return self.assignment.role if self.assignment is not None else Role.TOWN

    @property
    def partners(self) -> list[str]:
        return list(self.assignment.partners) if self.assignment is not None else []

    @property
    def dead(self) -> set[str]:
        return {d.player for d in self.deaths}

    @property
    def living(self) -> list[str]:
        dead = self.dead
        return [p for p in self.seats if p not in dead]

    @property
    def current_round(self) -> int:
        """The latest round whose day has started (0 before day 1: setup and night zero)."""
        days = [n for n, r in self.rounds.items() if r.day is not None]
        return max(days, default=0)

    @property
    def my_protections(self) -> list[DoctorProtection]:
        """The player's own protections, round by round (the Doctor's history)."""
        return [p for n in sorted(self.rounds) for p in self.rounds[n].protections if p.protector == self.me]

    @property
    def my_investigations(self) -> list[Investigation]:
        """The player's own investigations, round by round (the Detective's results)."""
        return [
            i for n in sorted(self.rounds) for i in self.rounds[n].investigations if i.detective == self.me
        ]

    def round(self, number: int) -> RoundRecord:
        """The record of round ``number`` (created empty when first referenced)."""
        record = self.rounds.get(number)
        if record is None:
            record = self.rounds[number] = RoundRecord(number)
        return record

    def _died(self, player: str | None, kind: str, number: int) -> None:
        if player is not None and player not in self.dead:
            self.deaths.append(Death(player=player, kind=kind, round=number))


def read_view(view: Sequence[EventBase], me: str) -> GameRecord:
    """Sort a player's view into a GameRecord in one pass, in log order."""
    record = GameRecord(me=me, view=list(view))
    for index, event in enumerate(record.view):
        number = event.round
        if isinstance(event, Speech):
            record.round(number).speeches.append(event)
        elif isinstance(event, Thought):
            if event.player == me:
                record.thoughts.append((index, event))
        elif isinstance(event, VoteRound):
            record.round(number).votes.append(event)
        elif isinstance(event, DefenseSpeech):
            record.round(number).defenses.append(event)
        elif isinstance(event, DayStarted):
            record.round(number).day = event
            for victim in event.night_deaths:
                record._died(victim, "night", number - 1)
        elif isinstance(event, Elimination):
            record._died(event.player, "vote", number)
        elif isinstance(event, LastWords):
            record.round(number).last_words = event
        elif isinstance(event, MafiaDiscussion):
            record.round(number).discussions.append(event)
        elif isinstance(event, MafiaVote):
            record.round(number).mafia_vote = event
        elif isinstance(event, DoctorProtection):
            record.round(number).protections.append(event)
        elif isinstance(event, Investigation):
            record.round(number).investigations.append(event)
        elif isinstance(event, NightResolution):
            record.round(number).resolution = event
            for victim in event.deaths:
                record._died(victim, "night", number)
        elif isinstance(event, NightZeroStrategy):
            record.strategies.append(event)
        elif isinstance(event, Fallback):
            if event.player == me:
                record.fallbacks.append((index, event))
        elif isinstance(event, RoleAssigned):
            if event.player == me:
                record.assignment = event
        elif isinstance(event, GameStarted):
            record.started = event
        elif isinstance(event, ColdSummary):
            record.summary = event
    return record
