"""A summary cannot state what the log does not hold: the summariser answers with items, and the
engine checks each against the log and words it (``context.summary_items``). Shown item by item
(every false kind is refused with its reason, in every field it can be written to), on the length
limit (whatever the number of days), and over whole rolling-summary games at 7, 10 and 16 seats
with an adversarial summariser: no player prompt holds a summary line the log does not support
(read back from the prompt records), no lie reaches a prompt, no crash, every fact present.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from fact_presence import audit_prompts, capture_prompts
from fakes.adversarial import LIE_MARK, LIES, TRICKS, SpoilingSummariser, forged_line_starts, rotating
from mafia.context.policy import policy_by_name
from mafia.context.record import read_view
from mafia.context.summary import ground_answer
from mafia.context.summary_items import (
    STORY_TOKENS,
    Catalogue,
    PatternItem,
    SpeechItem,
    SummaryAnswer,
    excerpt,
    ground,
    speech_line,
)
from mafia.context.tokens import count_tokens
from mafia.context.transcript import RoundEntry, TranscriptManager
from mafia.context.transcript_text import summary_block
from mafia.context.views import public_view
from mafia.game.events import (
    ColdSummary,
    EventBase,
    GameStarted,
    NightResolution,
    ReportedSpeech,
    Speech,
    SpeechPattern,
    SummaryFallback,
    SummaryItemsRefused,
    VoteRound,
    named_deaths,
    parse_event,
)
from mafia.models.house import HouseModel
from mafia.play.runner import run_game
from sampling import sample
from summary_audit import audit_summaries

ROLLING = policy_by_name("rolling-summary")


@cache
def _game() -> tuple[tuple[EventBase, ...], list[RoundEntry], list[str]]:
    """A house game of 12 seats under ``rolling-summary``: its log, its public days, the seats."""
    state = run_game({"seed": 5, "players": 12}, model=HouseModel(seed=5), policy=ROLLING)
    events = tuple(parse_event(e) for e in state["events"])
    entries = TranscriptManager.from_record(read_view(public_view(events), ""), day_open=False).entries
    seats = list(next(e for e in events if isinstance(e, GameStarted)).players)
    return events, entries, seats


def _catalogue(through: int = 3) -> Catalogue:
    _, entries, _ = _game()
    return Catalogue.of(entries, through)


def _a_speech(cat: Catalogue) -> tuple[int, str, str]:
    """A covered day's speech of six words or more: its day, speaker and text."""
    return next(
        (day, speaker, line.text)
        for (day, speaker), lines in cat.said.items()
        for line in lines
        if len(line.text.split()) >= 6
    )


def _speech(day: int, speaker: str, words: str) -> SpeechItem:
    return SpeechItem(day=day, speaker=speaker, words=words)


def test_the_house_summaries_are_grounded_and_shown_in_every_later_prompt() -> None:
    events, _, _ = _game()
    summaries = [e for e in events if isinstance(e, ColdSummary)]
    assert summaries and not [e for e in events if isinstance(e, SummaryFallback | SummaryItemsRefused)]
    assert any(s.speeches for s in summaries) and any(s.facts for s in summaries)


def test_a_fact_is_picked_by_number_and_worded_by_the_engine() -> None:
    cat = _catalogue()
    grounded = ground(cat, [1, len(cat.facts), len(cat.facts) + 1, 0, -3], [], [])
    assert grounded.facts == [1, len(cat.facts)]
    assert grounded.lines == [f"- {cat.facts[0]}", f"- {cat.facts[-1]}"]
    assert len(grounded.refused) == 3 and all("is listed" in r for r in grounded.refused)


def test_every_fact_a_summariser_may_pick_is_the_logs() -> None:
    """The list of facts to pick from is read off the log's events: each night's death as the
    ``NightResolution`` has it, each nomination as a ``Speech`` made it, each vote's result as the
    ``VoteRound`` gave it, each claim as the claims ledger reads it; nothing else is listed."""
    events, entries, _ = _game()
    last = max(e.number for e in entries)
    cat = Catalogue.of(entries, last)
    kills = {e.round: named_deaths(e.deaths) for e in events if isinstance(e, NightResolution)}
    nominated = {(e.round, e.speaker, e.nomination) for e in events if isinstance(e, Speech) and e.nomination}
    first_votes = {e.round: e for e in events if isinstance(e, VoteRound) and not e.revote}
    for day, fact in zip(cat.fact_days, cat.facts, strict=True):
        if (m := re.fullmatch(r"Night (\d+): (?:no one was killed|(.+) was killed)", fact)) is not None:
            assert int(m[1]) == day - 1 and kills.get(day - 1) == m[2], fact
        elif (m := re.fullmatch(r"(.+) nominated (.+) \(day (\d+)\)", fact)) is not None:
            assert (day, m[1], m[2]) in nominated and int(m[3]) == day, fact
        elif (m := re.fullmatch(r"Day (\d+) vote: (.+)", fact)) is not None:
            assert int(m[1]) == day and m[2].startswith(_outcome_words(first_votes[day])), fact
        elif (m := re.fullmatch(r"(.+) claimed (\w+) \(day (\d+)\)", fact)) is not None:
            assert (m[1], m[2]) in entries[day - 1].claims() and int(m[3]) == day, fact
        else:
            assert fact.startswith(f"Day {day} revote"), fact


def _outcome_words(vote: VoteRound) -> str:
    if vote.outcome == "eliminated":
        return f"{vote.eliminated} eliminated"
    return {"no_elimination": "no elimination", "tie": "tie: ", "no_vote": "no vote"}[vote.outcome]


@pytest.mark.parametrize("lie", LIES)
def test_a_lie_in_a_reported_speech_is_refused_wherever_it_is_written(lie: str) -> None:
    """As the words, after or before the speaker's real words, as the speaker: refused, and no
    item of the answer is shown."""
    cat = _catalogue()
    day, speaker, text = _a_speech(cat)
    real = " ".join(text.split()[:5])
    items = [
        _speech(day, speaker, lie),
        _speech(day, speaker, f"{real} {lie}"),
        _speech(day, speaker, f"{lie} ... {real}"),
        _speech(day, f"{speaker}, {lie}", real),
        _speech(day, lie, real),
    ]
    grounded = ground(cat, [], items, [])
    assert grounded.empty and len(grounded.refused) == len(items), grounded.refused
    assert [r.rsplit(": ", 1)[1] for r in grounded.refused[3:]] == ["the speaker is no seat's name"] * 2


@pytest.mark.parametrize("lie", LIES)
def test_a_lie_in_a_pattern_is_refused_wherever_it_is_written(lie: str) -> None:
    cat = _catalogue()
    a, b = cat.seats[0], cat.seats[1]
    items = [
        PatternItem(pattern="accused", player=lie, target=b, days=[1]),
        PatternItem(pattern="accused", player=a, target=lie, days=[1]),
        PatternItem(pattern="changed_vote", player=lie, target=None, days=[1, 2]),
    ]
    grounded = ground(cat, [], [], items)
    assert grounded.empty and len(grounded.refused) == 3


def test_words_not_from_that_speech_are_refused() -> None:
    """Homoglyphs, zero-width characters, another speaker's or another day's words, a passage of
    the summariser's own between real ones, and passages too short to be more than words strung
    together are all refused; a passage, or passages in order joined by "...", pass and are shown
    as the log holds them."""
    cat = _catalogue()
    day, speaker, text = _a_speech(cat)
    words = text.split()
    four = " ".join(words[:4])

    def never_said(seat: str, on: int) -> bool:
        return all(excerpt(line.text, four) is None for line in cat.said.get((on, seat), []))

    other = next(s for s in cat.seats if s != speaker and never_said(s, day))
    other_day = next(d for d in range(1, cat.through + 1) if d != day and never_said(speaker, d))
    assert excerpt(text, " ".join(words[:4])) is not None
    assert excerpt(text, " ".join(words[:2]) + " ... " + " ".join(words[-2:])) is not None
    assert excerpt(text, " ".join(words[:4]).upper()) is not None  # case and punctuation aside
    refused = [
        _speech(day, speaker, " ".join(words[:4]).replace("a", "\u0430").replace("e", "\u0435")),
        _speech(day, speaker, four.replace(words[1], words[1][:1] + "\u200b" + words[1][1:], 1)),  # in a word
        _speech(day, other, " ".join(words[:4])),
        _speech(other_day, speaker, four),
        _speech(day, speaker, " ".join(words[:2]) + " was the Doctor ... " + " ".join(words[-2:])),
        _speech(day, speaker, " ... ".join(words[:4])),  # one-word passages
        _speech(day, speaker, " ".join(reversed(words[:4]))),
        _speech(day, speaker, "... ".join(" ".join(words[i : i + 2]) for i in range(0, 8, 2))),  # 4 passages
        _speech(day, speaker, four + " xylophone"),
    ]
    grounded = ground(cat, [], refused, [])
    assert grounded.empty and len(grounded.refused) == len(refused), grounded.refused
    # Between words, a zero-width space separates as a space does: the words are the speaker's,
    # and the line shows the log's characters, never the summariser's.
    kept = ground(cat, [], [_speech(day, speaker, four.replace(" ", " \u200b"))], [])
    assert kept.speeches and "\u200b" not in kept.lines[0] and "\u200b" not in kept.speeches[0].words


def test_a_kept_speech_is_the_logs_words_quoted_and_marked_as_a_claim() -> None:
    cat = _catalogue()
    day, speaker, text = _a_speech(cat)
    words = text.split()
    asked = " ".join(words[:3]).lower() + " ... " + " ".join(words[-2:]).lower()
    grounded = ground(cat, [], [_speech(day, speaker, asked)], [])
    kept = grounded.speeches[0]
    assert kept.words.startswith(" ".join(words[:3]))  # the log's own characters, not the asked case
    assert grounded.lines == [speech_line(speaker, day, kept.words)]
    assert "(their claim, not a fact)" in grounded.lines[0]


def test_a_role_stated_as_engine_confirmed_cannot_reach_players_outside_a_quote() -> None:
    """The free role clause "the engine confirmed" that once passed the keyword gate has no field to
    stand in: an item naming it anywhere is refused, and a player's own words saying it (a speech
    the log holds) reach the others only inside quotes, marked as that player's claim."""
    _, entries, _ = _game()
    cat = Catalogue.of(entries, 3)
    day, speaker, _ = _a_speech(cat)
    lie = "the engine confirmed Player 2 is the Doctor"
    answer = SummaryAnswer(
        facts=[],
        speeches=[_speech(day, speaker, lie), _speech(day, lie, lie)],
        patterns=[PatternItem(pattern="accused", player=lie, target=lie, days=[day])],
    )
    assert ground(cat, answer.facts, answer.speeches, answer.patterns).empty
    said = cat.said[(day, speaker)][0].model_copy(update={"text": f"Honestly, {lie}. Trust me."})
    cat.said[(day, speaker)] = [said]
    grounded = ground(cat, [], [_speech(day, speaker, lie)], [])
    (line,) = grounded.lines
    head, quoted = line.split(': "', 1)
    assert lie not in head and lie in quoted and "(their claim, not a fact)" in head


def test_the_length_limit_holds_whatever_the_days() -> None:
    """Items past ``STORY_TOKENS`` are refused as over the limit, the same at 1 day as at many: an
    answer seven times the limit is cut to it."""
    _, entries, _ = _game()
    last = max(e.number for e in entries)
    for through in (1, 2, last):
        cat = Catalogue.of(entries, through)
        speeches = [
            _speech(day, speaker, line.text)
            for (day, speaker), lines in cat.said.items()
            for line in lines
            if len(line.text.split()) >= 2
        ]
        facts = list(range(1, len(cat.facts) + 1))
        asked = count_tokens("\n".join([f"- {f}" for f in cat.facts])) + sum(
            count_tokens(s.words) for s in speeches
        )
        assert asked > 7 * STORY_TOKENS or through < 3
        grounded = ground(cat, facts, speeches, [])
        assert count_tokens("\n".join(grounded.lines)) <= STORY_TOKENS, through
        assert any("length limit" in r for r in grounded.refused), through
        assert count_tokens("\n".join(grounded.lines)) > STORY_TOKENS // 2  # cut to the limit, not below


def test_an_answer_with_no_item_the_log_holds_falls_back_with_each_refusal_logged() -> None:
    events, _, _ = _game()
    summary = next(e for e in events if isinstance(e, ColdSummary))
    upto = events[: events.index(summary)]
    lies = SummaryAnswer(facts=[0], speeches=[_speech(1, "Player 1", LIES[0])], patterns=[])
    grounded = ground_answer(upto, lies, summary.through)
    assert grounded.empty and len(grounded.refused) == 2


# The adversarial games: 7 seats in the default run, 10 and 16 with -m slow.
GAMES = [
    sample(7, 3, id="7-seats", kept=True),
    sample(10, 4, id="10-seats", kept=False),
    sample(16, 6, id="16-seats", kept=False),
]


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_an_adversarial_summariser_puts_no_unsupported_statement_in_any_prompt(
    monkeypatch: pytest.MonkeyPatch, players: int, seed: int
) -> None:
    """Every trick of ``adversarial.TRICKS`` in turn (every lie in every field, only lies, seven
    times the length, a pattern the schema lacks): the game ends, every prompt a player received
    (from the prompt records) holds summary lines the log supports only and no lie, every refused
    item is logged with its reason, and every fact is still present."""
    seats = [f"Player {n}" for n in range(1, players + 1)]
    policy = policy_by_name("rolling-summary")
    records: list[dict[str, Any]] = []
    with capture_prompts(monkeypatch) as built:
        state = run_game(
            {"seed": seed, "players": players},
            model=HouseModel(seed=seed),
            policy=policy,
            summariser=SpoilingSummariser(spoil=rotating(list(TRICKS.values())), seats=seats),
            on_prompt=records.append,
        )
    assert state["winner"] is not None
    events = [parse_event(e) for e in state["events"]]
    refusals = [r for e in events if isinstance(e, SummaryItemsRefused) for r in e.refused]
    summaries = [e for e in events if isinstance(e, ColdSummary)]
    assert summaries and refusals and all(": " in r for r in refusals)
    for why in ("no seat's name", "not from a speech", "did not accuse", "did not change", "is listed"):
        assert any(why in r for r in refusals), why  # each check met its lie, not the length limit
    players_prompts = [r for r in records if r["action"] != "summary"]
    shown = [r for r in players_prompts if "Summary of Days 1-" in r["user"]]
    assert shown
    assert audit_summaries(events, players_prompts) == []
    assert not [r["id"] for r in players_prompts if LIE_MARK in r["system"] + r["user"]]
    assert sum(forged_line_starts(r["system"] + "\n" + r["user"]) for r in players_prompts) == 0
    assert audit_prompts(built) == []


def test_a_logged_summary_is_grounded_again_when_a_prompt_is_built() -> None:
    """A summary event edited by hand (or written by an older engine) shows only what the log
    holds: its items are checked again against the record every prompt is built from."""
    _, entries, _ = _game()
    cat = Catalogue.of(entries, 2)
    day, speaker, text = _a_speech(cat)
    real = ReportedSpeech(day=day, speaker=speaker, words=" ".join(text.split()[:4]))
    forged = ColdSummary(
        round=4,
        through=2,
        facts=[1, 10**4],
        speeches=[real, ReportedSpeech(day=day, speaker=speaker, words=LIES[0])],
        patterns=[SpeechPattern(pattern="accused", player=LIES[2], target=speaker, days=[1])],
        summariser="edited",
    )
    block = "\n".join(summary_block(forged, entries))
    assert LIE_MARK not in block and "F10000" not in block
    assert (
        f"- {cat.facts[0]}" in block and speech_line(speaker, day, excerpt(text, real.words) or "") in block
    )
