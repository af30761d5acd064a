"""ContextPolicy: the knobs of what a player's prompt holds, and the named policies arenas compare."""

from __future__ import annotations

from dataclasses import dataclass, field

from mafia.context.semantic import SEMANTIC, semantic_available

# The specification's defaults, here so that naming a policy (the command line's options) needs
# none of the modules that render what the settings choose.
DEFAULT_VERBATIM_ROUNDS = 2  # the current and the previous round verbatim
RECENT_REASONINGS = 2  # a player's own last reasonings kept word for word
SUMMARY_PLANS = 2  # older plans condensed into the strategy summary


def _auto_name(policy: ContextPolicy) -> str:
    parts = ["full" if policy.full_transcript else f"window{policy.verbatim_rounds}"]
    if policy.digest_rounds:
        parts.append(f"digest{policy.digest_rounds}")
    if policy.token_budget is not None:
        parts.append(f"budget{policy.token_budget}")
    if policy.recent_events:
        parts.append("recent")
    if policy.recent_reasonings != RECENT_REASONINGS:
        parts.append(f"reasonings{policy.recent_reasonings}")
    if policy.summary:
        parts.append(f"summary{policy.summary_every}-bullets{policy.bullet_rounds}")
    if policy.recall:
        parts.append("recall" if policy.recall is True else f"recall-{policy.recall}")
    if policy.prune_beliefs:
        parts.append("pruned")
    if policy.memory_scores:
        parts.append("scores")
    if not policy.role_playbook:
        parts.append("noplaybook")
    return "-".join(parts)


@dataclass(frozen=True)
class ContextPolicy:
    """How much history a prompt carries and what is trimmed first when it is too long.

    The defaults are the specification's: current and previous round verbatim, older rounds
    compressed, no budget. ``recent_events`` adds a digest of what happened since the player's last
    turn (off by default: it repeats the transcript). With ``token_budget`` set, an over-long prompt
    loses the player's own hot material first (older reasonings leave the memory, then recent
    events go), then the shared record's (earlier verbatim days are compressed, then the oldest
    speeches of the current day, which a ballot never loses), so that players keep sharing the
    record's prefix in a provider's cache; frozen sections (rules, identity), cold summaries
    (compressed days, the claims ledger), engine facts and the task are never trimmed.

    The model-driven half (specs 002-004): ``summary`` replaces the cold days past the
    ``bullet_rounds`` days after the window with one summary of the public record, rewritten every
    ``summary_every`` rounds and on a death or a new role claim from items a model picks and the
    engine checks and words (``context.summary_items``), with the compressed lines as its logged
    fallback (``context.summary``); ``recall``
    lets a player search its own past view within a turn (``context.recall``), ranked by BM25, or
    with ``recall="semantic"`` by sentence embeddings (the ``semantic`` extra); ``prune_beliefs``
    keeps belief entries by the turn they last changed: hot in full, warm condensed, cold ones only
    through ``recall`` (``context.beliefs``).

    ``memory_scores`` writes the memory as the suspicion levels and the latest reasoning alone
    (beside the engine's facts), with no plans, reasons, relationships or notes: the per-player
    part of a prompt, which no prefix cache serves across players, kept short; ``role_playbook``
    off leaves the role's playbook and the note on the persona's voice (advice, no fact) out of the
    identity for the same reason. ``digest_rounds`` shows that many days before the verbatim
    window as their engine lines with the speeches reduced to who accused or nominated whom
    (``transcript_text.digest_round``) instead of one compressed line each.
    """

    verbatim_rounds: int = DEFAULT_VERBATIM_ROUNDS
    digest_rounds: int = 0
    token_budget: int | None = None
    full_transcript: bool = False
    recent_events: bool = False
    recent_reasonings: int = RECENT_REASONINGS
    summary_plans: int = SUMMARY_PLANS
    claims_ledger: bool = True
    summary: bool = False
    summary_every: int = 2
    bullet_rounds: int = 0
    recall: bool | str = False
    prune_beliefs: bool = False
    memory_scores: bool = False
    role_playbook: bool = True
    name: str = field(default="")

    def __post_init__(self) -> None:
        if self.verbatim_rounds < 1:
            raise ValueError(f"verbatim_rounds must be 1 or more, got {self.verbatim_rounds}")
        if self.digest_rounds < 0:
            raise ValueError(f"digest_rounds must be 0 or more, got {self.digest_rounds}")
        if self.digest_rounds and self.token_budget is not None:
            raise ValueError("digest_rounds needs no token_budget (a budget compresses whole days)")
        if self.token_budget is not None and self.token_budget < 1:
            raise ValueError(f"token_budget must be positive, got {self.token_budget}")
        if self.recent_reasonings < 0:
            raise ValueError(f"recent_reasonings must be 0 or more, got {self.recent_reasonings}")
        if self.summary_every < 1:
            raise ValueError(f"summary_every must be 1 or more, got {self.summary_every}")
        if self.bullet_rounds < 0:
            raise ValueError(f"bullet_rounds must be 0 or more, got {self.bullet_rounds}")
        if self.recall not in (False, True, SEMANTIC):
            raise ValueError(
                f"recall must be true, false or {SEMANTIC!r} (ranked by embeddings), got {self.recall!r}"
            )
        if self.recall == SEMANTIC and not semantic_available():
            raise ValueError(
                f"recall {SEMANTIC!r} needs the semantic extra: pip install 'mafia-graph[semantic]'"
            )
        if not self.name:
            object.__setattr__(self, "name", _auto_name(self))

    @property
    def searches(self) -> bool:
        """Whether players may call ``recall`` within a turn (ranked either way)."""
        return self.recall is not False


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
        # A token budget over the window, with the claims ledger, recall inside a turn and beliefs
        # pruned by age: the cold material leaves the prompt but stays one search away.
        ContextPolicy(token_budget=1500, recall=True, prune_beliefs=True, name="layered"),
        # Cold days as one model-written summary of the public record, rolled forward.
        ContextPolicy(summary=True, name="rolling-summary"),
        # Every engine fact and the claims ledger, the current round verbatim and the day before
        # as who accused whom and the votes, the memory as the suspicion levels and the latest
        # reasoning, no playbook: the per-player part, which no cache serves across players, as
        # short as that allows.
        ContextPolicy(
            verbatim_rounds=1,
            digest_rounds=1,
            recent_reasonings=1,
            memory_scores=True,
            role_playbook=False,
            name="lean",
        ),
        # Spec 004's tiers: the last 3 rounds in full, rounds 4-10 back one line each, older
        # rounds as the recursive summary.
        ContextPolicy(verbatim_rounds=3, summary=True, bullet_rounds=7, name="tiered"),
    )
}
DEFAULT_POLICY = "lean"
"""The policy a run plays unless told otherwise: every engine fact and the claims ledger kept, the
fewest tokens sent and billed; with paired dice it plays the games ``seed-window`` plays."""
UNRECORDED_POLICY = "seed-window"
"""The policy of a game whose record names none (checkpointed before runs recorded their
context): the default it was started under, so a resume plays it on as it began."""


def policy_by_name(name: str) -> ContextPolicy:
    """The registered policy called ``name`` (UnknownPolicy names the ones there are)."""
    try:
        return POLICIES[name]
    except KeyError:
        raise UnknownPolicy(f"no context policy {name!r}; use one of {', '.join(POLICIES)}") from None
