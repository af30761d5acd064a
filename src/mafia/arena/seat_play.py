"""How each seat of a finished game played, read from its logs alone (events.jsonl for the game,
prompts.jsonl for re-asks and fallbacks): for every metric of ``METRICS`` a tally, a numerator
and a denominator, that adds up over seats and games, so a model's figure in a role is the ratio
of its seats' sums and a bootstrap over games resamples whole games' tallies (``bootstrap``).

A metric reads only the seats of the side it judges (``Metric.side``); the others get no tally.
The per-day calibration figures are tallies too, named ``brier.d<day>`` and ``auc.d<day>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mafia.arena.reads import stated_beliefs
from mafia.arena.turns import player_turns, seats
from mafia.game.events import (
    DefenseSpeech,
    Elimination,
    EventBase,
    GameOver,
    Investigation,
    LastWords,
    MafiaVote,
    NightResolution,
    Speech,
    VoteRound,
    roles_from_log,
)
from mafia.game.rules import ROLES, SKIP, Role, on_mafia
from mafia.records.call_kinds import kinds_of

JSON = dict[str, Any]
Tally = dict[str, list[float]]  # metric (or metric.d<day>) -> [numerator, denominator]
Side = Literal["town", "mafia", "all"]


@dataclass(frozen=True)
class Metric:
    """One judged metric: its key, its short title, its one-line definition, the side whose seats
    it judges, whether higher is better, and the figure a player choosing at random would get
    (None where no fixed chance level exists)."""

    key: str
    title: str
    definition: str
    side: Side
    higher_is_better: bool
    chance: float | None = None


METRICS: tuple[Metric, ...] = (
    Metric(
        "brier",
        "belief Brier",
        "Brier score of a Town-side player's stated suspicion levels (level/10 as the chance of "
        "Mafia) at its last thought of each day, over the living players it rated, against their "
        "true sides; 0 is perfect, uniformly random levels score 0.35.",
        "town",
        False,
        0.35,
    ),
    Metric(
        "auc",
        "belief rank AUC",
        "Of the pairs (a living Mafia, a living Town-side player) rated in the same last thought of "
        "a day by a Town-side player, the share with the Mafia rated higher (ties count half); "
        "1 is perfect, 0.5 is chance.",
        "town",
        True,
        0.5,
    ),
    Metric(
        "ballots_on_mafia",
        "Town ballots on Mafia",
        "Of the ballots a Town-side seat cast (skips included), the share on a Mafia player.",
        "town",
        True,
    ),
    Metric(
        "mafia_exiles",
        "eliminations of Mafia",
        "Of the players exiled by a vote in which a Town-side seat cast its ballot on them, the "
        "share who were Mafia.",
        "town",
        True,
    ),
    Metric(
        "misfires",
        "misfires",
        "Of the ballots a seat cast (skips included), the share on a player of its own side.",
        "all",
        False,
    ),
    Metric(
        "influence",
        "influence",
        "Of the ballots other players cast on a day the seat nominated someone, the share on its nominee.",
        "all",
        True,
    ),
    Metric(
        "survival",
        "survival depth",
        "The round the seat died in (the last round if it lived) over the rounds the game lasted.",
        "all",
        True,
    ),
    Metric(
        "claims_true",
        "Town claims true",
        "Of the role claims a Town-side seat made (speech, defense, last words), the share that "
        "named its own role.",
        "town",
        True,
    ),
    Metric(
        "fake_claims_believed",
        "Mafia fake claims believed",
        "Of the claims of a Town role a Mafia seat made in a speech or defense, the share after "
        "which it was not exiled that day.",
        "mafia",
        True,
    ),
    Metric(
        "follow_through",
        "Detective follow-through",
        "Of the Detective's checks that found a Mafia who lived to the next day, the share exiled "
        "by vote that day.",
        "town",
        True,
    ),
    Metric(
        "round1_agreement",
        "Mafia Round 1 agreement",
        "Of the nights a Mafia seat lived through with two or more Mafia alive, the share whose "
        "kill was agreed in Round 1.",
        "mafia",
        True,
    ),
    Metric(
        "reasks",
        "re-asks",
        "Re-asks of rejected answers per decision the seat made.",
        "all",
        False,
        0.0,
    ),
    Metric(
        "fallbacks",
        "fallbacks",
        "Decisions that fell back to the legal default after the last rejected answer, per "
        "decision the seat made.",
        "all",
        False,
        0.0,
    ),
)
METRIC_KEYS = tuple(m.key for m in METRICS)
BY_DAY = ("brier", "auc")
"""The metrics also tallied day by day (``<key>.d<day>``)."""


def side_of(role: Role) -> str:
    """The side a role plays on: ``mafia`` or ``town``."""
    return ROLES[role].side


def _add(tally: Tally, key: str, numerator: float, denominator: float) -> None:
    row = tally.setdefault(key, [0.0, 0.0])
    row[0] += numerator
    row[1] += denominator


def _beliefs(events: Sequence[EventBase], mafia: set[str], tallies: dict[str, Tally]) -> None:
    """Brier and rank AUC of every scored thought, overall and by day."""
    for beliefs in stated_beliefs(events):
        tally = tallies[beliefs.player]
        stated = beliefs.stated
        brier = sum((p - (name in mafia)) ** 2 for name, p in stated.items())
        bad = [p for name, p in stated.items() if name in mafia]
        good = [p for name, p in stated.items() if name not in mafia]
        above = sum((m > t) + 0.5 * (m == t) for m in bad for t in good)
        for suffix in ("", f".d{beliefs.round}"):
            _add(tally, f"brier{suffix}", brier, len(stated))
            _add(tally, f"auc{suffix}", above, len(bad) * len(good))


def _ballots(events: Sequence[EventBase], roles: Mapping[str, Role], tallies: dict[str, Tally]) -> None:
    """Ballots on Mafia, misfires, eliminations of Mafia, and the influence of nominations."""
    rounds = [e for e in events if isinstance(e, VoteRound)]
    nominated: dict[tuple[int, str], str] = {}
    for event in events:
        if isinstance(event, Speech) and event.nomination:
            nominated.setdefault((event.round, event.speaker), event.nomination)
    for vote in rounds:
        for ballot in vote.ballots:
            voter, target = ballot.voter, ballot.target
            if voter not in roles:
                continue
            tally, side = tallies[voter], side_of(roles[voter])
            on = roles.get(target) if target != SKIP else None
            _add(tally, "misfires", on is not None and side_of(on) == side, 1)
            if side == "town":
                _add(tally, "ballots_on_mafia", on_mafia(on), 1)
                if vote.eliminated is not None and target == vote.eliminated:
                    _add(tally, "mafia_exiles", on_mafia(on), 1)
    for (number, speaker), nominee in nominated.items():
        if speaker not in roles:
            continue
        others = [b for v in rounds if v.round == number for b in v.ballots if b.voter != speaker]
        _add(tallies[speaker], "influence", sum(b.target == nominee for b in others), len(others))


def _survival(events: Sequence[EventBase], order: Sequence[str], tallies: dict[str, Tally]) -> None:
    """The round each seat died in, or the last round, over the rounds played."""
    over = next((e for e in reversed(events) if isinstance(e, GameOver)), None)
    last = over.round if over is not None else max((e.round for e in events), default=0)
    died: dict[str, int] = {}
    for event in events:
        if isinstance(event, Elimination):
            died.setdefault(event.player, event.round)
        elif isinstance(event, NightResolution):
            for victim in event.deaths:
                died.setdefault(victim, event.round)
    if last < 1:
        return
    for player in order:
        _add(tallies[player], "survival", min(died.get(player, last), last), last)


def _claims(events: Sequence[EventBase], roles: Mapping[str, Role], tallies: dict[str, Tally]) -> None:
    """Town claims that were true, and Mafia claims of a Town role not followed by an exile."""
    exiled = {(e.round, e.player) for e in events if isinstance(e, Elimination)}
    for event in events:
        if not isinstance(event, Speech | DefenseSpeech | LastWords) or event.claim is None:
            continue
        role = roles.get(event.speaker)
        if role is None:
            continue
        if side_of(role) == "town":
            _add(tallies[event.speaker], "claims_true", event.claim is role, 1)
        elif side_of(event.claim) == "town" and not isinstance(event, LastWords):
            believed = (event.round, event.speaker) not in exiled
            _add(tallies[event.speaker], "fake_claims_believed", believed, 1)


def _follow_through(events: Sequence[EventBase], tallies: dict[str, Tally]) -> None:
    """The Detective's Mafia findings on players alive at the next dawn, and whether that day's
    vote exiled them."""
    killed = {(e.round, v) for e in events if isinstance(e, NightResolution) for v in e.deaths}
    exiled = {(e.round, e.player) for e in events if isinstance(e, Elimination)}
    for event in events:
        if not isinstance(event, Investigation) or event.result != Role.MAFIA.value:
            continue
        if (event.round, event.target) in killed or event.detective not in tallies:
            continue
        _add(tallies[event.detective], "follow_through", (event.round + 1, event.target) in exiled, 1)


def _round1(events: Sequence[EventBase], roles: Mapping[str, Role], tallies: dict[str, Tally]) -> None:
    """Team nights (two or more Mafia alive) each living Mafia seat took part in, and whether the
    kill was agreed in Round 1."""
    gone: set[str] = set()
    mafia = [p for p, r in roles.items() if on_mafia(r)]
    for event in events:
        if isinstance(event, Elimination):
            gone.add(event.player)
        elif isinstance(event, NightResolution):
            gone.update(event.deaths)
        elif isinstance(event, MafiaVote) and event.decided_by != "direct":
            for player in (p for p in mafia if p not in gone):
                _add(tallies[player], "round1_agreement", event.decided_by == "round1", 1)


def _answers(prompts: Sequence[JSON], tallies: dict[str, Tally]) -> None:
    """Re-asks and fallbacks per decision, from each seat's prompt records."""
    by_player: dict[str, list[JSON]] = {}
    for record in player_turns(prompts):
        by_player.setdefault(str(record.get("player")), []).append(record)
    for player, records in by_player.items():
        if player not in tallies:
            continue
        kinds = kinds_of(records)
        _add(tallies[player], "reasks", kinds.reasks, len(records))
        _add(tallies[player], "fallbacks", sum(kinds.fallbacks.values()), len(records))


def seat_tallies(events: Sequence[EventBase], prompts: Sequence[JSON] = ()) -> dict[str, Tally]:
    """Every seat's tallies in a finished game (by player name, in seat order)."""
    roles = roles_from_log(events)
    order = seats(events)
    tallies: dict[str, Tally] = {player: {} for player in order}
    mafia = {p for p, r in roles.items() if on_mafia(r)}
    _beliefs(events, mafia, tallies)
    _ballots(events, roles, tallies)
    _survival(events, order, tallies)
    _claims(events, roles, tallies)
    _follow_through(events, tallies)
    _round1(events, roles, tallies)
    _answers(prompts, tallies)
    return tallies


ALL = "all"


def role_tallies(events: Sequence[EventBase], prompts: Sequence[JSON] = ()) -> dict[str, Tally]:
    """A game's seat tallies summed per role and over every seat (``all``): what an arena, whose
    seats all hold one model, judges its model by."""
    roles = roles_from_log(events)
    out: dict[str, Tally] = {}
    for player, tally in seat_tallies(events, prompts).items():
        for group in (ALL, roles[player].value):
            for key, (num, den) in tally.items():
                _add(out.setdefault(group, {}), key, num, den)
    return out
