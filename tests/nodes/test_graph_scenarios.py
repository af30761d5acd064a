"""Scripted games through the compiled graph: ties and revotes, the Mafia's consensus, the night roles,
the end of the game. A scripted model plays every seat; assertions read the event log."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from fakes import Ask, ScriptedModel
from mafia.game.events import (
    DayStarted,
    DefenseSpeech,
    Elimination,
    EventBase,
    GameOver,
    LastWords,
    MafiaDiscussion,
    MafiaVote,
    NightResolution,
    NightZeroStrategy,
    VoteRound,
    parse_event,
)
from mafia.game.rules import GameConfig, Role, assign_roles
from mafia.play.runner import run_game
from mafia.prompts import anchors


class Deal:
    """Who holds which role in a seeded game, by seat order."""

    def __init__(self, seed: int, players: int = 7) -> None:
        self.seats = assign_roles(GameConfig(players=players, seed=seed))
        self.names = [s.name for s in self.seats]

    def of(self, role: Role) -> list[str]:
        return [s.name for s in self.seats if s.role is role]

    @property
    def town_side(self) -> list[str]:
        return [s.name for s in self.seats if s.role is not Role.MAFIA]


class Counted:
    """A script with a per-(player, action) call counter, so steps can say "on the first day"."""

    def __init__(self, rule: Callable[[Ask, int], dict[str, Any] | None]) -> None:
        self.rule = rule
        self.seen: Counter[tuple[str, str]] = Counter()

    def __call__(self, ask: Ask) -> dict[str, Any] | None:
        n = self.seen[(ask.player, ask.action)]
        self.seen[(ask.player, ask.action)] += 1
        return self.rule(ask, n)


def play(
    rule: Callable[[Ask, int], dict[str, Any] | None], seed: int, **config: Any
) -> tuple[list[EventBase], ScriptedModel]:
    model = ScriptedModel(script=Counted(rule))
    state = run_game({"seed": seed, **config}, model=model)
    return [parse_event(e) for e in state["events"]], model


def of_type(events: list[EventBase], kind: type[EventBase]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def tie_day(deal: Deal, *, revote_ties: bool) -> Callable[[Ask, int], dict[str, Any] | None]:
    """Day 1: the first two Town-side players are nominated and tie 3-3 (one skip); the revote
    either ties again or goes 6-1 against the first."""
    t1, t2 = deal.town_side[:2]

    def rule(ask: Ask, n: int) -> dict[str, Any] | None:
        seat = deal.names.index(ask.player)
        split = {"choice": t1 if seat < 3 else t2 if seat < 6 else "skip"}
        if ask.action == "speak" and n == 0:
            return {"choice": t1 if ask.player != t1 else t2}
        if ask.action == "vote" and n == 0:
            return split
        if ask.action == "revote" and n == 0:
            return split if revote_ties else {"choice": t1 if ask.player != t1 else t2}
        return None

    return rule


def test_tie_then_defense_then_revote_eliminates() -> None:
    deal = Deal(seed=11)
    t1, t2 = deal.town_side[:2]
    rule = tie_day(deal, revote_ties=False)
    events, _ = play(rule, seed=11, round_cap=1)
    first, revote = of_type(events, VoteRound)
    assert first.outcome == "tie" and set(first.tied) == {t1, t2}
    defenses = of_type(events, DefenseSpeech)
    assert [d.speaker for d in defenses] == sorted([t1, t2], key=deal.names.index)
    assert revote.revote and revote.outcome == "eliminated" and revote.eliminated == t1
    assert [e.player for e in of_type(events, Elimination)] == [t1]
    assert [w.speaker for w in of_type(events, LastWords)] == [t1]
    kinds = [
        type(e).__name__
        for e in events
        if type(e).__name__ in {"VoteRound", "DefenseSpeech", "Elimination", "LastWords"}
    ]
    assert kinds == [
        "VoteRound",
        "DefenseSpeech",
        "DefenseSpeech",
        "VoteRound",
        "Elimination",
        "LastWords",
    ]


def test_revote_tie_means_no_elimination() -> None:
    rule = tie_day(Deal(seed=11), revote_ties=True)

    events, _ = play(rule, seed=11, round_cap=1)
    first, revote = of_type(events, VoteRound)
    assert first.outcome == "tie"
    assert revote.revote and revote.outcome == "no_elimination" and revote.eliminated is None
    assert of_type(events, Elimination) == []


def _night(
    rule_r1: Callable[[str], str],
    rule_r2: Callable[[str], str] | None,
    seed: int = 11,
    players: int = 7,
) -> list[EventBase]:
    def rule(ask: Ask, n: int) -> dict[str, Any] | None:
        if ask.action == "mafia_round1" and n == 0:
            return {"choice": rule_r1(ask.player)}
        if ask.action == "mafia_round2" and n == 0 and rule_r2 is not None:
            return {"choice": rule_r2(ask.player)}
        return None

    events, _ = play(rule, seed=seed, players=players, round_cap=1)
    return events


def test_round1_agreement_skips_round2() -> None:
    deal = Deal(seed=11)
    victim = deal.town_side[0]
    events = _night(lambda m: victim, None)
    (vote,) = of_type(events, MafiaVote)
    assert vote.decided_by == "round1" and vote.final_target == victim
    assert {d.coordination_round for d in of_type(events, MafiaDiscussion)} == {1}


def test_round2_agreement() -> None:
    deal = Deal(seed=11)
    m1, _m2 = deal.of(Role.MAFIA)
    a, b = deal.town_side[:2]
    events = _night(lambda m: a if m == m1 else b, lambda m: b)
    (vote,) = of_type(events, MafiaVote)
    assert vote.decided_by == "round2" and vote.final_target == b
    rounds = [d.coordination_round for d in of_type(events, MafiaDiscussion)]
    assert rounds == [1, 1, 2, 2]


def test_round2_split_goes_to_lowest_living_seat() -> None:
    deal = Deal(seed=11)
    m1, _m2 = deal.of(Role.MAFIA)
    a, b = deal.town_side[:2]
    events = _night(lambda m: a if m == m1 else b, lambda m: a if m == m1 else b)
    (vote,) = of_type(events, MafiaVote)
    assert vote.decided_by == "lowest_seat" and vote.final_target == a


def test_three_mafia_two_agree_in_round1() -> None:
    deal = Deal(seed=5, players=10)
    mafia = deal.of(Role.MAFIA)
    a, b = deal.town_side[:2]
    events = _night(lambda m: b if m == mafia[-1] else a, None, seed=5, players=10)
    (vote,) = of_type(events, MafiaVote)
    assert vote.decided_by == "round1" and vote.final_target == a


def test_doctor_save_announces_no_death() -> None:
    deal = Deal(seed=11)
    victim = deal.town_side[0]

    def rule(ask: Ask, n: int) -> dict[str, Any] | None:
        if ask.action == "mafia_round1":
            return {"choice": victim}
        if ask.action == "protect":
            return {"choice": victim}
        return None

    events, _ = play(rule, seed=11, round_cap=2)
    (night,) = [e for e in of_type(events, NightResolution) if e.round == 1]
    assert night.intended_kill == victim and night.protected == victim and night.deaths == []
    day2 = next(d for d in of_type(events, DayStarted) if d.round == 2)
    assert day2.night_deaths == [] and victim in day2.living


def test_detective_result_reaches_only_the_detective() -> None:
    deal = Deal(seed=11)
    (detective,) = deal.of(Role.DETECTIVE)
    suspect = deal.of(Role.MAFIA)[0]

    def rule(ask: Ask, n: int) -> dict[str, Any] | None:
        if ask.action == "investigate":
            return {"choice": suspect}
        return None

    _, model = play(rule, seed=11, round_cap=2)
    line = anchors.format_result(1, suspect, "Mafia")
    day2 = [a for a in model.log if a.action == "speak" and "Day 2" in a.text]
    assert day2, "no day-2 speeches were asked"
    for ask in day2:
        assert (line in ask.text) == (ask.player == detective), ask.player
    before = [a for a in model.log if a.player == detective and a.action == "investigate"]
    assert line not in before[0].text


def test_last_mafia_voted_out_ends_game_with_hint() -> None:
    deal = Deal(seed=2, players=5)
    (mafia,) = deal.of(Role.MAFIA)

    def rule(ask: Ask, n: int) -> dict[str, Any] | None:
        if ask.action == "speak" and ask.player != mafia:
            return {"choice": mafia}
        if ask.action == "vote":
            return {"choice": mafia if ask.player != mafia else "skip"}
        return None

    events, model = play(rule, seed=2, players=5)
    (over,) = of_type(events, GameOver)
    assert over.winner == "town" and over.round == 1
    assert not of_type(events, NightResolution), "no night after the last Mafia falls"
    (words,) = [a for a in model.log if a.action == "last_words"]
    assert words.player == mafia and anchors.GAME_OVER_HINT in words.text
    assert isinstance(events[-1], GameOver)


def test_night_zero_has_no_kill_and_mafia_see_earlier_plans() -> None:
    deal = Deal(seed=11)
    m1, m2 = deal.of(Role.MAFIA)

    def rule(ask: Ask, n: int) -> dict[str, Any] | None:
        if ask.action == "night_zero":
            return {"text": f"PLAN-OF-{ask.player}"}
        return None

    events, model = play(rule, seed=11, round_cap=1)
    plans = of_type(events, NightZeroStrategy)
    assert [p.speaker for p in plans] == [m1, m2]
    day1 = of_type(events, DayStarted)[0]
    assert day1.round == 1 and day1.night_deaths == []
    assert not [e for e in of_type(events, NightResolution) if e.round == 0]
    second = next(a for a in model.log if a.action == "night_zero" and a.player == m2)
    assert f"PLAN-OF-{m1}" in second.text


def test_lone_mafia_chooses_directly() -> None:
    deal = Deal(seed=2, players=5)
    victim = deal.town_side[0]

    def rule(ask: Ask, n: int) -> dict[str, Any] | None:
        if ask.action == "night_kill":
            return {"choice": victim}
        return None

    events, model = play(rule, seed=2, players=5, round_cap=1)
    (vote,) = of_type(events, MafiaVote)
    assert vote.decided_by == "direct" and vote.final_target == victim
    assert [d.coordination_round for d in of_type(events, MafiaDiscussion)] == [0]
    assert not [a for a in model.log if a.action.startswith("mafia_round")]


@pytest.mark.parametrize("cap", [1, 3])
def test_round_cap_is_a_draw(cap: int) -> None:
    events, _ = play(lambda ask, n: None, seed=4, round_cap=cap)
    (over,) = of_type(events, GameOver)
    assert over.winner == "draw"
    assert len(of_type(events, DayStarted)) == cap
