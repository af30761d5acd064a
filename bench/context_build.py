"""Benchmark: time to build one player's context in a 16-player game at round 10, and the share of
a player's prompt that is a stable prefix.

Three scripted 16-player games (tests/support/logbuilder.py) are played to round 10 with speeches of about
60 words, two nominations and a vote every day, and a Thought after every decision, as in a real
run. Every decision of each game is rendered in game order from the log as it stood at that moment,
as the engine does (so caches are as warm as in a running engine); the builds of round 10's
decisions (every speech, ballot and night action) are timed. One game is also rendered with every
cache cleared before each build, for the cold figure.

Two shares are printed. ``frozen_share``: the game-constant system message (identity, persona,
playbook, rules, field guide) over the whole prompt. ``stable_prefix_share``: the part of a player's
prompt that is byte-identical to the start of that player's previous prompt, i.e. what a provider's
prefix cache reuses; it includes the frozen sections and the transcript's older and recent days,
which open the user message and only ever grow at their end within a day.

The last two lines are the goals: context_build_ms_median (<= 5) and stable_prefix_share (>= 0.5).
"""

from __future__ import annotations

import random
import statistics
import time

from benchlib import quick
from logbuilder import LogBuilder, random_speech
from mafia.context import build_context, clear_caches, count_tokens, views
from mafia.game.actions import ActionKind
from mafia.game.events import EventBase
from mafia.game.rules import SKIP, Role

# Quick mode: one 7-seat game to round 3.
PLAYERS = 7 if quick() else 16
ROUND = 3 if quick() else 10
WORDS = 60
SEEDS = (7,) if quick() else (7, 8, 9)

Decision = tuple[int, str, ActionKind]  # (log length at the decision, player, action)


def _day(log: LogBuilder, rng: random.Random, eliminate: str | None) -> list[Decision]:
    """A day with two nominations and a vote; ``eliminate`` (if given) is voted out, otherwise
    "skip" wins. Returns the day's decisions."""
    decisions: list[Decision] = []
    log.start_day()
    order = log.speaking_order
    pick = [p for p in order if p != eliminate]
    wanted = [eliminate] if eliminate is not None else []
    wanted += [pick[(log.round * 3) % len(pick)]]
    for i, speaker in enumerate(order):
        others = [p for p in log.living if p != speaker]
        nominee = None
        if i in (1, 3):
            choice = wanted[0] if i == 1 or len(wanted) == 1 else wanted[1]
            nominee = choice if choice != speaker else None
        decisions.append((len(log.events), speaker, ActionKind.SPEAK))
        log.speak(speaker, random_speech(rng, speaker, others, WORDS), nominee)
    nominees = log.nominees()
    if nominees:
        decisions.extend((len(log.events), v, ActionKind.VOTE) for v in log.living)
        if eliminate in nominees:
            ballots = {v: (eliminate if k % 4 else SKIP) for k, v in enumerate(log.living)}
        else:
            ballots = {v: (nominees[0] if k % 3 == 0 else SKIP) for k, v in enumerate(log.living)}
        result = log.vote(ballots)
        if result.eliminated is not None:
            log.last_words(f"I was {log.role_of[result.eliminated].value}. Check the votes.")
    return decisions


def _night(log: LogBuilder, kill: bool) -> list[Decision]:
    """A night where the Mafia target the last Town seat, saved unless ``kill``; its decisions."""
    decisions: list[Decision] = []
    mafia = log.with_role(Role.MAFIA)
    town = [p for p in log.living if p not in mafia]
    target = town[-1]
    doctor = log.with_role(Role.DOCTOR)
    detective = log.with_role(Role.DETECTIVE)
    start = len(log.events)
    decisions.extend((start, m, ActionKind.MAFIA_ROUND1) for m in mafia[:1])
    decisions.extend((start, d, ActionKind.PROTECT) for d in doctor)
    decisions.extend((start, d, ActionKind.INVESTIGATE) for d in detective)
    protect = None if kill else target
    checked = [p for p in log.living if detective and p != detective[0]]
    log.night(
        target,
        protect=protect if doctor else None,
        investigate=checked[log.round % len(checked)] if detective else None,
    )
    return decisions


def scripted_game(seed: int = 7) -> tuple[list[EventBase], list[Decision]]:
    """A 16-player game that reaches round 10 with about 10 players alive, and every decision of
    the game in order (the log length when it was asked, the player, the action)."""
    rng = random.Random(seed)
    log = LogBuilder(players=PLAYERS, seed=seed)
    decisions = [(len(log.events), m, ActionKind.NIGHT_ZERO) for m in log.with_role(Role.MAFIA)]
    log.night_zero()
    for k in range(1, ROUND + 1):
        mafia = log.with_role(Role.MAFIA)
        town = [p for p in log.living if p not in mafia and log.role_of[p] is Role.TOWN]
        eliminate = None
        if k in (3, 9) and town:
            eliminate = town[0]
        elif k == 6:
            eliminate = mafia[-1]
        decisions += _day(log, rng, eliminate)
        decisions += _night(log, kill=k in (2, 5, 8))
    return log.events, decisions


def _common_prefix(a: str, b: str) -> str:
    n = 0
    limit = min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    return b[:n]


def _run_game(seed: int, cold: bool) -> list[tuple[float, float, float, int]]:
    """Build every decision's context in game order, as an engine run does. For round 10's
    decisions: (build ms, frozen share, stable-prefix share, prompt tokens)."""
    events, decisions = scripted_game(seed)
    round_start = next(i for i, e in enumerate(events) if getattr(e, "round", 0) == ROUND)
    previous: dict[str, str] = {}
    out = []
    for length, player, action in decisions:
        if cold:
            clear_caches()
            views.clear_cache()
        t0 = time.perf_counter()
        prompt = build_context(events[:length], player, action)
        elapsed = (time.perf_counter() - t0) * 1000
        text = prompt.system + "\n\n" + prompt.user
        before = previous.get(player)
        previous[player] = text
        if length < round_start or before is None:
            continue
        shared = count_tokens(_common_prefix(before, text))
        total = prompt.total_tokens
        out.append((elapsed, prompt.stable_tokens / total, min(shared, total) / total, total))
    return out


def main() -> None:
    build_context(*_first_call())  # loads the tokenizer once (about half a second)
    warm = [row for seed in SEEDS for row in _run_game(seed, cold=False)]
    cold = [row for seed in SEEDS[:1] for row in _run_game(seed, cold=True)]
    timings = [row[0] for row in warm]
    print(f"players={PLAYERS}")
    print(f"round={ROUND}")
    print(f"games={len(SEEDS)}")
    print(f"decisions_timed={len(timings)}")
    print(f"prompt_tokens_median={statistics.median(row[3] for row in warm):.0f}")
    print(f"context_build_ms_cold_caches_median={statistics.median(row[0] for row in cold):.2f}")
    print(f"context_build_ms_p90={statistics.quantiles(timings, n=10)[-1]:.2f}")
    # Share of the prompt that is the game-constant system message (identity, rules, guide).
    print(f"frozen_share={statistics.median(row[1] for row in warm):.2f}")
    print(f"context_build_ms_median={statistics.median(timings):.2f}")
    # Share of the prompt byte-identical to the start of the player's previous prompt: what a
    # provider prefix cache reuses (frozen sections, then the compressed and recent days).
    print(f"stable_prefix_share={statistics.median(row[2] for row in warm):.2f}")


def _first_call() -> tuple[list[EventBase], str, ActionKind]:
    log = LogBuilder(players=PLAYERS)
    return log.events, log.seats[0], ActionKind.SPEAK


if __name__ == "__main__":
    main()
