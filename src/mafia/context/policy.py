"""ContextPolicy: the knobs of what a player's prompt holds, and the named policies arenas compare."""

from __future__ import annotations

from dataclasses import dataclass, field

from mafia.context.memory import RECENT_REASONINGS, SUMMARY_PLANS
from mafia.context.transcript import DEFAULT_VERBATIM_ROUNDS


def _auto_name(policy: ContextPolicy) -> str:
    parts = ["full" if policy.full_transcript else f"window{policy.verbatim_rounds}"]
    if policy.token_budget is not None:
        parts.append(f"budget{policy.token_budget}")
    if policy.recent_events:
        parts.append("recent")
    if policy.recent_reasonings != RECENT_REASONINGS:
        parts.append(f"reasonings{policy.recent_reasonings}")
    return "-".join(parts)


@dataclass(frozen=True)
class ContextPolicy:
    """How much history a prompt carries and what is trimmed first when it is too long.

    The defaults are the specification's: current and previous round verbatim, older rounds
    compressed, no budget. ``recent_events`` adds a digest of what happened since the player's last
    turn (off by default: it repeats the transcript). With ``token_budget`` set, an over-long prompt
    loses its oldest hot material first (earlier verbatim days are compressed, then the player's
    older reasonings leave the memory, then recent events go, then the oldest speeches of the
    current day, which a ballot never loses); frozen sections (rules, identity), cold summaries
    (compressed days, the claims ledger), engine facts and the task are never trimmed.
    """

    verbatim_rounds: int = DEFAULT_VERBATIM_ROUNDS
    token_budget: int | None = None
    full_transcript: bool = False
    recent_events: bool = False
    recent_reasonings: int = RECENT_REASONINGS
    summary_plans: int = SUMMARY_PLANS
    claims_ledger: bool = True
    name: str = field(default="")

    def __post_init__(self) -> None:
        if self.verbatim_rounds < 1:
            raise ValueError(f"verbatim_rounds must be 1 or more, got {self.verbatim_rounds}")
        if self.token_budget is not None and self.token_budget < 1:
            raise ValueError(f"token_budget must be positive, got {self.token_budget}")
        if self.recent_reasonings < 0:
            raise ValueError(f"recent_reasonings must be 0 or more, got {self.recent_reasonings}")
        if not self.name:
            object.__setattr__(self, "name", _auto_name(self))


class UnknownPolicy(ValueError):
    """A context policy name that is not registered; the message lists the names that are."""


# The registered policies an arena compares, by the name a command line gives. A new policy plugs
# in by adding an entry (its ``name`` is the key, which names its folder in an arena's results).
POLICIES: dict[str, ContextPolicy] = {
    policy.name: policy
    for policy in (
        # Every event verbatim, as most multi-agent setups send the whole history.
        ContextPolicy(full_transcript=True, name="full-history"),
        # The specification's window: the last two rounds verbatim, older rounds compressed.
        ContextPolicy(name="seed-window"),
        # Only the current round verbatim: fewer tokens sent, but fewer served by a prefix cache.
        ContextPolicy(verbatim_rounds=1, name="one-round-window"),
    )
}
DEFAULT_POLICY = "seed-window"


def policy_by_name(name: str) -> ContextPolicy:
    """The registered policy called ``name`` (UnknownPolicy names the ones there are)."""
    try:
        return POLICIES[name]
    except KeyError:
        raise UnknownPolicy(f"no context policy {name!r}; use one of {', '.join(POLICIES)}") from None
