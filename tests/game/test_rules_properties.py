"""Hypothesis properties of resolve_vote, resolve_revote, agreed_target and resolve_round2."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from mafia.game.rules import (
    SKIP,
    agreed_target,
    consensus_threshold,
    resolve_revote,
    resolve_round2,
    resolve_vote,
)

NAMES = ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"]
FAST = settings(max_examples=100, deadline=None, database=None)
Case = tuple[list[str], list[tuple[str, str]]]


@st.composite
def vote_cases(draw: st.DrawFn, min_nominees: int = 0) -> Case:
    """Nominees (distinct, in some order) and ballots as (voter, choice) pairs; a few ballots may
    name a non-nominee, which the rules ignore."""
    nominees = draw(st.lists(st.sampled_from(NAMES), min_size=min_nominees, max_size=4, unique=True))
    voters = draw(st.lists(st.sampled_from(NAMES), max_size=len(NAMES), unique=True))
    choices = st.sampled_from([*nominees, SKIP]) if nominees else st.just(SKIP)
    weighted = st.one_of(choices, choices, choices, st.sampled_from(NAMES))
    return nominees, [(v, draw(weighted)) for v in voters]


def _counts(pairs: list[tuple[str, str]], nominees: list[str]) -> tuple[Counter[str], int]:
    counted = Counter(t for _, t in pairs if t in nominees)
    return counted, sum(1 for _, t in pairs if t == SKIP)


def _check_vote(kind: str, eliminated: str | None, tied: tuple[str, ...], case: Case) -> None:
    """What any outcome must satisfy: only a strict top goes; a tie is a shared top above skip."""
    nominees, pairs = case
    counted, skip = _counts(pairs, nominees)
    top = max((counted[n] for n in nominees), default=0)
    leaders = [n for n in nominees if counted[n] == top]
    if kind == "eliminated":
        assert eliminated is not None
        assert counted[eliminated] > skip
        assert all(counted[eliminated] > counted[n] for n in nominees if n != eliminated)
    else:
        assert eliminated is None
    if kind == "tie":
        assert len(tied) >= 2
        assert set(tied) == set(leaders)
        assert top > skip
    if kind == "no_elimination" and nominees:
        # Either skip reached the top or (revote only) the top was still shared.
        assert skip >= top or len(leaders) > 1


@FAST
@given(vote_cases())
def test_vote_outcome_is_allowed_and_eliminates_only_a_strict_top(
    case: Case,
) -> None:
    nominees, pairs = case
    result = resolve_vote(dict(pairs), nominees)
    assert result.kind in {"eliminated", "no_elimination", "tie", "no_vote"}
    assert (result.kind == "no_vote") == (not nominees)
    _check_vote(result.kind, result.eliminated, result.tied, case)
    # The decision is exactly the rule, computed independently here.
    counted, skip = _counts(pairs, nominees)
    top = max((counted[n] for n in nominees), default=0)
    leaders = [n for n in nominees if counted[n] == top]
    if nominees and top > skip:
        assert result.kind == ("eliminated" if len(leaders) == 1 else "tie")
    elif nominees:
        assert result.kind == "no_elimination"


@FAST
@given(vote_cases(min_nominees=1))
def test_revote_never_ties_and_eliminates_only_a_strict_top(
    case: Case,
) -> None:
    tied, pairs = case
    result = resolve_revote(dict(pairs), tied)
    assert result.kind in {"eliminated", "no_elimination"}
    _check_vote(result.kind, result.eliminated, (), case)
    counted, skip = _counts(pairs, tied)
    top = max(counted[n] for n in tied)
    strict = top > skip and sum(1 for n in tied if counted[n] == top) == 1
    assert (result.kind == "eliminated") == strict


@FAST
@given(vote_cases(), st.randoms(use_true_random=False))
def test_vote_results_do_not_depend_on_ballot_order(case: Case, rng: random.Random) -> None:
    nominees, pairs = case
    shuffled = list(pairs)
    rng.shuffle(shuffled)
    assert resolve_vote(dict(shuffled), nominees) == resolve_vote(dict(pairs), nominees)
    assert resolve_revote(dict(shuffled), nominees) == resolve_revote(dict(pairs), nominees)


MAFIA = ["P1", "P3", "P4", "P6", "P8"]  # seat order
TARGETS = ["P2", "P5", "P7", SKIP]


@st.composite
def proposal_cases(draw: st.DrawFn) -> Case:
    """Living Mafia in seat order and their proposals, listed in a random order."""
    living = draw(st.lists(st.sampled_from(MAFIA), min_size=1, max_size=5, unique=True))
    living.sort(key=MAFIA.index)
    pairs = [(m, draw(st.sampled_from(TARGETS))) for m in living]
    return living, draw(st.permutations(pairs))


@FAST
@given(proposal_cases())
def test_agreed_target_has_the_threshold_and_is_found_when_it_exists(
    case: Case,
) -> None:
    living, pairs = case
    counts = Counter(t for _, t in pairs)
    need = consensus_threshold(len(living))
    agreed = agreed_target(dict(pairs))
    if agreed is not None:
        assert counts[agreed] >= need
        assert need * 3 >= 2 * len(living)
    reaching = [t for t, n in counts.items() if n >= need]
    assert len(reaching) <= 1
    assert agreed == (reaching[0] if reaching else None)


@FAST
@given(proposal_cases(), st.randoms(use_true_random=False))
def test_round2_is_agreement_or_lowest_seat_and_order_free(case: Case, rng: random.Random) -> None:
    living, pairs = case
    decision = resolve_round2(dict(pairs), living)
    agreed = agreed_target(dict(pairs))
    if agreed is not None:
        assert (decision.target, decision.decided_by) == (agreed, "round2")
    else:
        assert (decision.target, decision.decided_by) == (dict(pairs)[living[0]], "lowest_seat")
    shuffled = list(pairs)
    rng.shuffle(shuffled)
    assert agreed_target(dict(shuffled)) == agreed
    assert resolve_round2(dict(shuffled), living) == decision
