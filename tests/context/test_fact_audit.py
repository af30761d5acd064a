"""Fact-presence audit over seeded games: no prompt, at any age of the game, lacks a fact its player
is entitled to (see ``fact_presence``). Games: the house model and random-legal play at several table
sizes, long games in which every vote and kill is skipped up to the round cap, players who claim
roles (also in last words, in the past tense), and the policies that trim or widen the transcript.
The audit is shown failing on prompts with a fact removed and on sections patched to forget one.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from fact_presence import Built, audit_prompts, capture_prompts, left_to_recall, missing_facts
from fakes import Ask, RandomLegalModel, ScriptedModel
from mafia.context import ContextPolicy, build_context, clear_caches
from mafia.context.policy import DEFAULT_POLICY, POLICIES, policy_by_name
from mafia.game.rules import SKIP
from mafia.models.house import HouseModel
from mafia.play.runner import run_game
from mafia.prompts import anchors
from sampling import sample

SKIPPING = ("vote", "revote", "mafia_round1", "mafia_round2", "night_kill")
SAYINGS = (
    "I am the Doctor, and I protected {target} last night.",
    "As the Detective, I checked {target}: not Mafia.",
    "Just a townie here. {target} worries me.",
    "I'm the Detective. {target} is Mafia.",
    "{target} is suspicious, nothing more to add.",
    "No reads yet.",
)
LAST_WORDS = ("For the record, I was the Doctor.", "I was Town. Watch {target}.", "Good luck.")


def claiming(long: bool) -> Callable[[Ask], dict[str, Any]]:
    """A seeded script: legal random choices (or every vote and kill skipped when ``long``) and
    speeches that claim roles now and then, last words in the past tense included."""

    def script(ask: Ask) -> dict[str, Any]:
        rng = random.Random(hashlib.sha256(ask.text.encode()).digest())
        pick = rng.choice(ask.targets) if ask.targets else None
        target = rng.choice([t for t in ask.targets if t != SKIP] or ["Player 1"])
        words = LAST_WORDS if ask.action == "last_words" else SAYINGS
        fields: dict[str, Any] = {"text": rng.choice(words).format(target=target)}
        if ask.action == "night_zero":
            fields["text"] = f"Push {target} early."
        if ask.action in ("defense", "last_words", "night_zero"):
            fields["choice"] = None
        elif ask.action == "speak":
            fields["choice"] = pick if rng.random() < 0.6 else None
        elif long and ask.action in SKIPPING:
            fields["choice"] = SKIP
        else:
            fields["choice"] = pick
        fields["suspicions"] = [
            {"player": t, "level": rng.randint(0, 10), "reasoning": f"{t} noted."}
            for t in ask.targets
            if t != SKIP
        ]
        return fields

    return script


GAMES: dict[str, tuple[dict[str, Any], Callable[[], Any], ContextPolicy | None]] = {
    "house-5": ({"seed": 1, "players": 5}, lambda: HouseModel(seed=1), None),
    "house-8": ({"seed": 2, "players": 8}, lambda: HouseModel(seed=2), None),
    "house-11": ({"seed": 3, "players": 11}, lambda: HouseModel(seed=3), None),
    "house-16": ({"seed": 4, "players": 16}, lambda: HouseModel(seed=4), None),
    "random-7": ({"seed": 5, "players": 7}, lambda: RandomLegalModel(seed=5), None),
    "random-12": ({"seed": 6, "players": 12}, lambda: RandomLegalModel(seed=6), None),
    "claims-9": ({"seed": 9, "players": 9}, lambda: ScriptedModel(script=claiming(False)), None),
    "claims-14": ({"seed": 8, "players": 14}, lambda: ScriptedModel(script=claiming(False)), None),
    "long-8": (  # the default policy's own long game is "long-16"
        {"seed": 9, "players": 8, "round_cap": 10},
        lambda: ScriptedModel(script=claiming(True)),
        policy_by_name("seed-window"),
    ),
    "long-16": (
        {"seed": 10, "players": 16, "round_cap": 10},
        lambda: ScriptedModel(script=claiming(True)),
        None,
    ),
    "full-8": ({"seed": 11, "players": 8}, lambda: HouseModel(seed=11), policy_by_name("full-history")),
    "window1-10": (
        {"seed": 12, "players": 10},
        lambda: HouseModel(seed=12),
        policy_by_name("one-round-window"),
    ),
    "budget-10": (
        {"seed": 13, "players": 10},
        lambda: ScriptedModel(script=claiming(False)),
        ContextPolicy(token_budget=1),
    ),
    # The model-driven policies: a fact counts as present in a summary shown in the prompt.
    "layered-12": ({"seed": 14, "players": 12}, lambda: HouseModel(seed=14), policy_by_name("layered")),
    "rolling-12": ({"seed": 5, "players": 12}, lambda: HouseModel(seed=5), policy_by_name("rolling-summary")),
    "rolling-long-8": (
        {"seed": 9, "players": 8, "round_cap": 10},
        lambda: ScriptedModel(script=claiming(True)),
        policy_by_name("rolling-summary"),
    ),
    "tiered-long-8": (
        {"seed": 9, "players": 8, "round_cap": 14},
        lambda: ScriptedModel(script=claiming(True)),
        policy_by_name("tiered"),
    ),
    "lean-8": ({"seed": 15, "players": 8}, lambda: HouseModel(seed=15), policy_by_name("lean")),
    "lean-long-8": (
        {"seed": 9, "players": 8, "round_cap": 10},
        lambda: ScriptedModel(script=claiming(True)),
        policy_by_name("lean"),
    ),
    "layered-long-8": (
        {"seed": 9, "players": 8, "round_cap": 10},
        lambda: ScriptedModel(script=claiming(True)),
        policy_by_name("layered"),
    ),
}


def play(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Built]:
    config, model, policy = GAMES[name]
    with capture_prompts(monkeypatch) as built:
        run_game(config, model=model(), policy=policy, summariser="house")
    return built


@functools.cache
def played(name: str) -> list[Built]:
    """The prompts of game ``name`` as the engine builds them: played once in a test process, for
    every test that reads them unchanged (the games are deterministic)."""
    with pytest.MonkeyPatch.context() as patch:
        return play(patch, name)


@pytest.fixture(scope="module")
def long_game() -> list[Built]:
    return played("long-8")


# Games whose sizes, players and policies others of the default run already hold: with -m slow.
SAMPLED_OUT = (
    "house-5",
    "house-11",
    "house-16",
    "random-7",
    "claims-9",
    "layered-12",
    "lean-8",
    "rolling-12",
)


@pytest.mark.parametrize("name", [sample(n, kept=n not in SAMPLED_OUT) for n in sorted(GAMES)])
def test_every_prompt_holds_every_fact_its_player_is_entitled_to(name: str) -> None:
    built = played(name)
    assert built
    assert audit_prompts(built) == []


def test_every_registered_policy_is_audited() -> None:
    audited = {p.name for _, _, p in GAMES.values() if p is not None} | {DEFAULT_POLICY}
    assert set(POLICIES) <= audited


def test_the_summary_policies_reach_their_summaries_in_long_games() -> None:
    tiered = played("tiered-long-8")
    rolling = played("rolling-long-8")
    assert any("Summary of Days 1-" in b.prompt.user and "Earlier days" in b.prompt.user for b in tiered)
    assert any("Summary of Days 1-" in b.prompt.user for b in rolling)


def test_the_games_reach_the_ages_and_facts_the_audit_is_about() -> None:
    long_games = played("long-16")
    claims = played("claims-14")
    budget = played("budget-10")
    assert max(b.prompt.round_number for b in long_games) == 10
    assert any("Earlier days" in b.prompt.user for b in long_games)
    ledger = [b for b in claims if anchors.CLAIM_LINE.search(b.prompt.user)]
    assert ledger and any("(day 1)" in b.prompt.user for b in ledger if b.prompt.round_number >= 4)
    assert any(b.prompt.trimmed for b in budget)


def _late(built: list[Built], role: str) -> Built:
    """The last prompt of a player of ``role`` (with the most history behind it)."""
    return next(b for b in reversed(built) if f"Your role is {role}." in b.prompt.user + b.prompt.system)


def _without(text: str, pattern: str) -> str:
    """``text`` with every line matching ``pattern`` removed (the planted omission)."""
    lines = text.split("\n")
    kept = [line for line in lines if not re.search(pattern, line)]
    assert len(kept) < len(lines), f"nothing matched {pattern!r}"
    return "\n".join(kept)


@pytest.mark.parametrize(
    ("role", "pattern", "reported"),
    [
        ("Town", r"^Day 2: ", "day 2 vote result"),
        ("Town", r"^Living: ", "living list"),
        ("Town", r"^- .+ claimed ", "claim: "),
        ("Doctor", r"^Your protections: ", "protection of night 1"),
        ("Detective", r"^- Night 1: .+ is (Not )?Mafia$", "investigation of night 1"),
        ("Mafia", r"^Team kills: ", "team kill of night 1"),
        ("Mafia", r"^Your Mafia partners: ", "partners"),
        ("Mafia", r" wrote: ", "night-zero plan"),
    ],
)
def test_the_audit_catches_a_fact_removed_from_a_prompt(
    long_game: list[Built], role: str, pattern: str, reported: str
) -> None:
    b = _late(long_game, role)
    whole = f"{b.prompt.system}\n\n{b.prompt.user}"
    assert missing_facts(b.events, b.player, whole) == []
    found = missing_facts(b.events, b.player, _without(whole, pattern))
    assert any(reported in fact for fact in found), found


def test_the_audit_catches_a_death_dropped_from_the_dead_list() -> None:
    built = played("house-8")
    b = next(b for b in reversed(built) if "Dead: none" not in b.prompt.user)
    whole = f"{b.prompt.system}\n\n{b.prompt.user}"
    m = anchors.DEAD_LINE.search(whole)
    assert m is not None
    first = next(anchors.DEAD_ENTRY.finditer(m["entries"]))
    found = missing_facts(b.events, b.player, whole.replace(first.group(0).lstrip(", "), "", 1))
    assert any(f"death of {first['name']}" in fact for fact in found), found


def test_the_audit_catches_a_ballot_missing_from_an_old_day() -> None:
    built = played("random-12")
    b = next(b for b in reversed(built) if re.search(r"^Day \d+: .* voted ", b.prompt.user, re.M))
    m = re.search(
        r"^Day \d+: .*?(?P<voter>Player \d+)(?P<rest>(?:, Player \d+)* voted )", b.prompt.user, re.M
    )
    assert m is not None
    user = b.prompt.user.replace(m["voter"] + m["rest"], m["rest"].removeprefix(", "), 1)
    found = missing_facts(b.events, b.player, f"{b.prompt.system}\n\n{user}")
    assert any("ballot " + m["voter"] in fact for fact in found), found


def test_the_audit_catches_sections_that_forget(monkeypatch: pytest.MonkeyPatch) -> None:
    import mafia.context.sections as sections
    import mafia.context.transcript_text as transcript_text

    render_day = transcript_text.compressed_round
    render_memory = sections.memory_text  # type: ignore[attr-defined]  # the module's own import, patched
    ledger = transcript_text.claims_ledger

    def forget_old_days(summary: Any) -> list[str]:
        return render_day(summary) if summary.round_number > 3 else []

    def forget_old_protections(memory: Any, scores: bool = False, grouped: bool = False) -> str:
        kept = memory.facts.protection_history[-2:]
        return render_memory(
            memory.model_copy(update={"facts": memory.facts.model_copy(update={"protection_history": kept})}),
            scores,
            grouped,
        )

    def forget_old_claims(entries: Any) -> str:
        return ledger(entries[-2:])

    monkeypatch.setattr(transcript_text, "compressed_round", forget_old_days)
    monkeypatch.setattr(sections, "memory_text", forget_old_protections)
    monkeypatch.setattr(transcript_text, "claims_ledger", forget_old_claims)
    clear_caches()  # rendered days are cached: render them again with the patches
    try:
        problems = audit_prompts(play(monkeypatch, "long-8"))
    finally:
        clear_caches()
    assert any("day 1 vote result" in p for p in problems)
    assert any("protection of night 1" in p for p in problems)
    assert any("claim: " in p and "(day 1)" in p for p in problems)


def test_the_audit_reads_ballots_by_seat_and_catches_one_missing() -> None:
    built = played("budget-10")
    first_voter = re.compile(r"(?:\(|; )(?P<voter>\d+),[\d,-]+>(?P<target>\d+)")
    b = next(b for b in reversed(built) if first_voter.search(b.prompt.user))
    assert anchors.SEAT_LEGEND_LINE.search(b.prompt.user)
    assert missing_facts(b.events, b.player, f"{b.prompt.system}\n\n{b.prompt.user}") == []
    m = first_voter.search(b.prompt.user)
    assert m is not None
    user = b.prompt.user.replace(m.group(0), m.group(0).replace(f"{m['voter']},", "", 1), 1)
    found = missing_facts(b.events, b.player, f"{b.prompt.system}\n\n{user}")
    voter, target = f"Player {m['voter']}", f"Player {m['target']}"
    assert any(f"ballot {voter} -> {target}" in fact for fact in found), found


def test_the_audit_reads_night_lists_grouped_by_outcome(long_game: list[Built]) -> None:
    b = _late(long_game, "Mafia")
    squeezed = build_context(b.events, b.player, b.action, ContextPolicy(token_budget=1))
    whole = f"{squeezed.system}\n\n{squeezed.user}"
    assert "night lists grouped by outcome" in squeezed.trimmed
    grouped = re.search(r"Nights 1-(\d+): skip \(skipped\)", whole)
    assert grouped is not None and missing_facts(b.events, b.player, whole) == []
    found = missing_facts(
        b.events, b.player, whole.replace(grouped.group(0), grouped.group(0).replace("1-", "2-"))
    )
    assert any("team kill of night 1" in fact for fact in found), found


def test_only_a_fact_the_prompt_left_to_recall_is_excused() -> None:
    """A missing fact is excused only where the prompt's notes left its day (or, for a ballot,
    that day's ballots) to recall; a fact bound to no day never is."""
    ballots = ["ballots of day 2 left to recall"]
    assert left_to_recall("day 2 vote ballot Player 1 -> Player 3", ballots)
    assert not left_to_recall("day 2 vote result 'Player 3 eliminated'", ballots)
    assert not left_to_recall("day 3 vote ballot Player 1 -> Player 3", ballots)
    whole = ["day 2 left to recall"]
    assert left_to_recall("day 2 in the transcript", whole)
    assert left_to_recall("night 1 death of Player 4 on day 2", whole)
    assert not left_to_recall("day 12 in the transcript", whole)
    assert not left_to_recall("death of Player 4 (night 1)", whole)
    assert not left_to_recall("claim: Player 2 claimed Doctor (day 2)", whole)
