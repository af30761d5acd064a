"""build_context: one player's prompt for one decision, rendered from their view of the log only.

The log goes through ``views.player_view`` first; everything after that (sections, transcript,
memory, task) is derived from the view. The prompt is laid out for provider prefix caches (see
``build_context``): the system message holds the rules, byte-identical for every player all game;
the user message opens with the public record (transcript, then state), then the player's
identity, then what is the player's alone, ending with the task. Every section's tokens are
counted exactly (o200k_base).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from mafia.context import extraction, safety, sections, tokens, transcript
from mafia.context import memory as memory_cache
from mafia.context.beliefs import BUDGET_STEPS, squeezed
from mafia.context.call_budget import cut_quotes
from mafia.context.compression import seat_numbers_readable
from mafia.context.memory import memory_from_record
from mafia.context.policy import ContextPolicy
from mafia.context.recall import RECALL_RESERVE
from mafia.context.record import read_view
from mafia.context.schemas import PlayerMemory
from mafia.context.shared_prefix import SEPARATOR as SEPARATOR
from mafia.context.shared_prefix import Window, window
from mafia.context.situation import Situation
from mafia.context.tasks import repeats_history, task
from mafia.context.transcript import RoundEntry
from mafia.context.transcript_text import transcript_body
from mafia.context.views import player_view
from mafia.game.actions import ActionKind
from mafia.game.events import EventBase
from mafia.game.rules import Role, on_mafia


def prompt_messages(prompt: Mapping[str, Any]) -> list[BaseMessage]:
    """The chat messages of a rendered prompt (its ``system`` and ``user`` texts, as a prompt
    record holds them): the one place a prompt becomes the messages sent."""
    return [SystemMessage(content=prompt["system"]), HumanMessage(content=prompt["user"])]


def schema_note(schema: type[BaseModel]) -> str:
    """The instruction that carries the answer schema when the server only enforces JSON."""
    text = json.dumps(schema.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    return (
        "Answer with one JSON object and nothing else (no prose, no code fence). "
        f"It must match this JSON schema:\n{text}"
    )


def with_schema_note(system: str, schema: type[BaseModel]) -> str:
    """The system message closed by the schema note (``json_mode``): it stays stable across a
    player's calls, so a provider's prefix cache still hits, and the prompt record holds it."""
    return f"{system}{SEPARATOR}{schema_note(schema)}"


def clear_caches() -> None:
    """Forget every cache of the context package (cold-build benchmarks and tests)."""
    transcript.clear_cache()
    tokens.clear_cache()
    extraction.clear_cache()
    memory_cache.clear_cache()
    safety.quote_text.cache_clear()
    sections.identity_text.cache_clear()
    sections.rules_text.cache_clear()


@dataclass(frozen=True)
class Section:
    """One rendered section: its name, text, the tokens it adds to its message, and whether it is
    stable (identical on every call of the player in this game)."""

    name: str
    text: str
    tokens: int
    stable: bool


@dataclass(frozen=True)
class RenderedPrompt:
    """A player's prompt for one decision, with its sections and exact token counts."""

    player: str
    action: ActionKind
    sections: tuple[Section, ...]
    system: str
    user: str
    total_tokens: int
    stable_tokens: int
    policy: str = ""
    phase: str = ""
    round_number: int = 0
    trimmed: tuple[str, ...] = field(default=())

    def messages(self) -> list[BaseMessage]:
        """The chat messages to send: the table's system prompt, then the player's user prompt."""
        return prompt_messages({"system": self.system, "user": self.user})

    def token_counts(self) -> list[tuple[str, int]]:
        """(section name, tokens) for the prompts log, in prompt order."""
        return [(s.name, s.tokens) for s in self.sections]

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)


Part = tuple[str, str, bool]  # (section name, text, stable)

# The ways a token budget writes facts shorter, none lost, in the order it takes them (each is
# also the trim note): old days' ballots by seat number, today's trimmed speeches' nominations
# by seat number, today's speaking order as the seat order it is, a night task's history left to
# the list the prompt holds, the nights of one kill or investigation result as one entry, and
# (a belief, not a fact) suspicions at level 0 archived for recall; and a tie's ballots left to
# today's transcript, which holds them.
DAYS_BY_SEAT = "earlier days by seat number"
SPEECHES_BY_SEAT = "trimmed speeches by seat number"
ORDER_BY_SEAT = "speaking order by seat"
HISTORY_ONCE = "task's history left to its list"
NIGHTS_GROUPED = "night lists grouped by outcome"
QUIET_SUSPICIONS = "suspicions at 0 archived"
TIE_BALLOTS_ONCE = "tie's ballots left to the transcript"
# Which of them write the player's own part, and which the record every player shares.
OWN_SHORTER = (HISTORY_ONCE, NIGHTS_GROUPED, QUIET_SUSPICIONS, TIE_BALLOTS_ONCE)
SHARED_SHORTER = (DAYS_BY_SEAT, SPEECHES_BY_SEAT, ORDER_BY_SEAT)


def _counted(parts: Sequence[Part]) -> list[Section]:
    """Sections of one message; each counts its separator, so the counts add up to the message."""
    out = []
    for i, (name, text, stable) in enumerate(parts):
        counted = text + SEPARATOR if i < len(parts) - 1 else text
        out.append(Section(name=name, text=text, tokens=tokens.count_tokens(counted), stable=stable))
    return out


@dataclass
class _Hot:
    """The trimmable (hot) material and how much of it has been trimmed so far.

    Two ends, trimmed apart (``_fitted``): the record every player shares only as far as it must
    be to leave a fixed allowance for the player's own part, so that it is the same for every
    player at the step (a prefix cache serves it across players); the player's own part, oldest
    first, until the whole fits: the player's older reasonings leave the memory, pruned beliefs
    are squeezed, the recent-events digest (a repeat of the transcript) goes, with recall the
    plans are condensed, and the own lists are written shorter (a night task's list of past
    protections or results left to the list the prompt already holds, the nights of one kill or
    result as one entry, quiet suspicions archived). The shared record: earlier verbatim days are
    compressed, the current day's speeches shrink to their facts (never for a ballot, which must
    see the whole day), and the facts are written shorter, none lost: the compressed days with
    ballots by seat number, today's speaking order as the seat order it is; with recall, a day
    that is over (at night) is compressed too. Frozen sections, cold summaries and engine facts
    are never dropped, except by ``recall_oldest_facts`` (a policy with recall, as a last resort).
    """

    compressed: list[RoundEntry]
    verbatim: list[RoundEntry]
    reasonings: int
    belief_steps: int = 0
    """Steps of ``beliefs.BUDGET_STEPS`` left to take (policies that prune beliefs)."""
    searchable: bool = False
    """Whether the player can recall trimmed words (then a ballot's day may shrink to facts too)."""
    seat_numbers: bool = False
    """Whether the compressed days may be written with ballots by seat number."""
    order_by_seat: bool = False
    """Whether today's speaking order can be said as the seat order from its first speaker."""
    repeated_history: bool = False
    """Whether the task repeats a history the prompt lists elsewhere."""
    repeated_nights: bool = False
    """Whether the player's night lists repeat an outcome (a kill, a result) on several nights."""
    quiet_suspicions: bool = False
    """Whether beliefs are pruned and some suspicion stands at level 0."""
    has_recent: bool = False
    """Whether the prompt has the recent-events digest."""
    shortened: set[str] = field(default_factory=set)
    """The shorter writings of facts (``DAYS_BY_SEAT``...) taken so far."""
    trimmed_speeches: int = 0
    unballoted: int = 0
    """The oldest compressed days shown without their ballots, which recall finds."""
    recalled: int = 0
    """The oldest compressed days left out of the prompt, which recall finds."""
    tie_ballots: bool = False
    """Whether the defense section repeats the tie vote's ballots today's transcript holds."""
    has_advice: bool = False
    """Whether the identity holds the role's playbook."""
    advice_dropped: bool = False
    word_cap: int | None = None
    """Tokens each quoted passage of players' words is cut to (``cut_words``), if any."""
    beliefs_squeezed: int = 0
    plans_dropped: bool = False
    bare_trimmed: bool = False
    reasonings_dropped: int = 0
    recent_dropped: bool = False
    notes: list[str] = field(default_factory=list)

    def trim_record(self, situation: Situation, facts: bool) -> bool:
        """One step of the record every player shares; False when nothing of it is left to trim.
        With ``facts`` (the prompt is over the whole budget) players' words are cut shorter, then
        the oldest facts may go to recall."""
        if self.trim_shared(situation) or self.trim_closed_day():
            return True
        return facts and (self.cut_words() or self.drop_advice() or self.recall_oldest_facts())

    def drop_advice(self) -> bool:
        """Leave the role's playbook out of the identity (advice, no fact), before any fact
        leaves the prompt."""
        if self.advice_dropped or not self.has_advice:
            return False
        self.advice_dropped = True
        self.notes.append("role advice")
        return True

    def cut_words(self) -> bool:
        """Cut every quoted passage of players' words (speeches, defenses, plans, reasonings) to
        the next of ``WORD_CAPS``: only with recall, which finds the whole words, and before any
        fact leaves the prompt."""
        caps = [cap for cap in WORD_CAPS if self.word_cap is None or cap < self.word_cap]
        if not self.searchable or not caps:
            return False
        self.word_cap = caps[0]
        self.notes.append(f"players' words cut to {self.word_cap} tokens")
        return True

    def trim_own(self) -> bool:
        """One step of the player's own part: older reasonings, beliefs, the recent digest, plans,
        then its own lists written shorter."""
        if self.reasonings_dropped < self.reasonings:
            self.reasonings_dropped += 1
            self.notes.append("oldest reasoning in memory")
            return True
        if self.beliefs_squeezed < self.belief_steps:
            self.notes.append(BUDGET_STEPS[self.beliefs_squeezed])
            self.beliefs_squeezed += 1
            return True
        if self.has_recent and not self.recent_dropped:
            self.recent_dropped = True
            self.notes.append("recent events")
            return True
        # With recall, the player's own plans are one search away.
        if self.searchable and not self.plans_dropped:
            self.plans_dropped = True
            self.notes.append("plans condensed")
            return True
        return self._shorten(OWN_SHORTER)

    def trim_shared(self, situation: Situation) -> bool:
        """One step of the shared record: earlier verbatim days compressed, today's speeches to
        their facts (never for a ballot, which must see the whole day, unless recall finds the
        words), the trimmed speeches' readings, then the record written shorter."""
        if len(self.verbatim) > 1:
            oldest = self.verbatim.pop(0)
            self.compressed.append(oldest)
            self.notes.append(f"compressed day {oldest.number}")
            return True
        current = self.verbatim[-1].transcript if self.verbatim else None
        if (
            current is not None
            and (self.searchable or not situation.keeps_current_round)
            and self.trimmed_speeches < len(current.speeches)
        ):
            speech = current.speeches[self.trimmed_speeches]
            self.trimmed_speeches += 1
            self.notes.append(f"speech of {speech.speaker} on day {current.round_number}")
            return True
        if self.searchable and self.trimmed_speeches and not self.bare_trimmed:
            self.bare_trimmed = True
            self.notes.append("accusations and claims of trimmed speeches")
            return True
        return self._shorten(SHARED_SHORTER)

    def trim_closed_day(self) -> bool:
        """At night the day is over: with recall its words are one search away, like older days'."""
        if self.searchable and len(self.verbatim) == 1 and self.verbatim[0].closed:
            closed = self.verbatim.pop()
            self.compressed.append(closed)
            self.notes.append(f"compressed day {closed.number}")
            return True
        return False

    def _shorten(self, which: tuple[str, ...]) -> bool:
        """Take the first shorter writing of ``which`` that applies and was not taken yet."""
        for shorter, applies in self._shorter().items():
            if shorter in which and applies and shorter not in self.shortened:
                self.shortened.add(shorter)
                self.notes.append(shorter)
                return True
        return False

    def _shorter(self) -> dict[str, bool]:
        """Each way of writing facts shorter, in the order taken, and whether it applies."""
        return {
            DAYS_BY_SEAT: self.seat_numbers and bool(self.compressed),
            SPEECHES_BY_SEAT: self.seat_numbers and self.bare_trimmed,
            ORDER_BY_SEAT: self.order_by_seat,
            HISTORY_ONCE: self.repeated_history,
            NIGHTS_GROUPED: self.repeated_nights,
            QUIET_SUSPICIONS: self.quiet_suspicions,
            TIE_BALLOTS_ONCE: self.tie_ballots,
        }

    def recall_oldest_facts(self) -> bool:
        """Leave the oldest compressed day's ballots out of the prompt, or once no day shows any,
        the oldest day itself (its facts stay in the player's record, one search away): only with
        recall, once nothing else can be trimmed."""
        if not self.searchable or self.recalled >= len(self.compressed):
            return False
        if self.unballoted < len(self.compressed):
            self.notes.append(f"ballots of day {self.compressed[self.unballoted].number} left to recall")
            self.unballoted += 1
        else:
            self.notes.append(f"day {self.compressed[self.recalled].number} left to recall")
            self.recalled += 1
        return True

    def memory(self, memory: PlayerMemory) -> PlayerMemory:
        """The memory without the reasonings trimmed so far (oldest first) and with the beliefs
        squeezed as far as the budget asked."""
        quiet = QUIET_SUSPICIONS in self.shortened
        if not self.reasonings_dropped and not self.beliefs_squeezed and not self.plans_dropped and not quiet:
            return memory
        kept = memory.recent_reasoning[self.reasonings_dropped :]
        beliefs, archived = squeezed(memory.beliefs, memory.archived_beliefs, self.beliefs_squeezed)
        if quiet:  # still in the recall index, as every archived belief
            loud = [x for x in beliefs.suspicions if x.level != 0]
            archived += len(beliefs.suspicions) - len(loud)
            beliefs = beliefs.model_copy(update={"suspicions": loud})
        plans = "" if self.plans_dropped else memory.strategy_summary
        return memory.model_copy(
            update={
                "recent_reasoning": kept,
                "beliefs": beliefs,
                "archived_beliefs": archived,
                "strategy_summary": plans,
            }
        )


WORD_CAPS = (60, 24)
"""The lengths, in tokens, a prompt over its budget cuts players' quoted words to, in turn."""

SHARED = ("transcript", "state")
"""The sections every player at the same step shares (after the rules): the cacheable record."""
OWN_ALLOWANCE = 250
"""Tokens a budget sets aside for a player's own part when it trims the shared record: the
record's trims are decided from the shared sections and this allowance alone, never from one
player's own part, so players at the same step keep a byte-identical shared prefix."""


def _fitted(
    policy: ContextPolicy,
    s: Situation,
    hot: _Hot,
    head_tokens: int,
    body: list[Section],
    user_parts: Callable[[], list[Part]],
) -> list[Section]:
    """The user message's sections trimmed to the policy's token budget.

    The shared record is trimmed first, as far as it must be to fit beside ``OWN_ALLOWANCE``
    tokens of the player's own part (the same trims for every player at the step); then the
    player's own part, from its end of the prompt, until the whole fits. With recall the prompt
    aims to leave ``RECALL_RESERVE`` tokens free for the turn's searches; once nothing is left to
    trim it may use that room too (the turn then offers no recall). Only a prompt still over the
    whole budget loses facts: the oldest compressed days' ballots, then the days, go to the
    player's record, until it fits (a policy without recall never loses one: it is logged over
    budget). A player whose own part stays past the allowance after its own trims is the one case
    where the record is trimmed further, and only while the prompt is over the whole budget.
    """
    budget = policy.token_budget or 0
    target = budget - (RECALL_RESERVE if policy.searches else 0)

    def sizes() -> tuple[int, int]:
        shared = head_tokens + sum(x.tokens for x in body if x.name in SHARED)
        return shared + OWN_ALLOWANCE, head_tokens + sum(x.tokens for x in body)

    planned, size = sizes()
    while planned > target:
        # Facts leave the prompt only while it is over the whole budget, never for recall's room
        # nor for an allowance the player's own part does not take.
        if not hot.trim_record(s, facts=planned > budget and size > budget):
            break
        body = _counted(user_parts())
        planned, size = sizes()
    while size > target:
        if not (hot.trim_own() or (size > budget and hot.trim_record(s, facts=True))):
            if size > budget:
                hot.notes.append(f"over budget by {size - budget} tokens with nothing left to trim")
            break
        body = _counted(user_parts())
        planned, size = sizes()
    return body


@dataclass(frozen=True)
class Sources:
    """What one prompt's sections render from: the player's situation, memory and policy, the
    days the policy shows, and the texts that never change with a trim (identity, recent events,
    defense)."""

    s: Situation
    policy: ContextPolicy
    memory: PlayerMemory
    shown: Window
    identity: str
    recent: str
    defense: str


SectionText = Callable[[Sources, _Hot], str | None]
"""A user section's text under the trims taken so far, or None where the prompt has no such section."""


def _transcript(x: Sources, hot: _Hot) -> str:
    body = transcript_body(
        hot.compressed,
        hot.verbatim,
        all_rounds=x.shown.manager.entries,
        trimmed_speeches=hot.trimmed_speeches,
        bare_trimmed=hot.bare_trimmed,
        ledger=x.policy.claims_ledger,
        summary=x.shown.summary,
        by_seat=DAYS_BY_SEAT in hot.shortened,
        speeches_by_seat=SPEECHES_BY_SEAT in hot.shortened,
        unballoted=hot.unballoted,
        recalled=hot.recalled,
        digested=x.shown.digested,
    )
    return sections.transcript(body)


def _mafia_info(x: Sources, hot: _Hot) -> str | None:
    if not on_mafia(x.s.role):
        return None
    return sections.mafia_info(x.s, x.memory.facts.kill_history, NIGHTS_GROUPED in hot.shortened)


def _investigations(x: Sources, hot: _Hot) -> str | None:
    if x.s.role is not Role.DETECTIVE:
        return None
    return sections.investigations(x.s, NIGHTS_GROUPED in hot.shortened)


def _defense(x: Sources, hot: _Hot) -> str | None:
    if TIE_BALLOTS_ONCE in hot.shortened:
        return sections.defense(x.s, ballots=False)
    return x.defense or None


USER_SECTIONS: tuple[tuple[str, SectionText, bool], ...] = (
    ("transcript", _transcript, False),
    ("state", lambda x, hot: sections.state(x.s, ORDER_BY_SEAT in hot.shortened), False),
    ("identity", lambda x, hot: sections.identity(x.s, False) if hot.advice_dropped else x.identity, True),
    ("mafia_info", _mafia_info, False),
    ("investigations", _investigations, False),
    ("recent_events", lambda x, hot: x.recent if x.recent and not hot.recent_dropped else None, False),
    ("defense", lambda x, hot: _defense(x, hot), False),
    (
        "memory",
        lambda x, hot: sections.memory(
            hot.memory(x.memory), x.policy.memory_scores, NIGHTS_GROUPED in hot.shortened
        ),
        False,
    ),
    ("task", lambda x, hot: task(x.s, HISTORY_ONCE in hot.shortened), False),
)
"""The user message's sections in prompt order (name, text, stable): the record every player
shares, then the player's identity, what is the player's alone, and the task last."""


def user_parts(sources: Sources, hot: _Hot) -> list[Part]:
    """The user message's sections as the trims taken so far render them."""
    parts = ((name, text(sources, hot), stable) for name, text, stable in USER_SECTIONS)
    kept = [(name, text, stable) for name, text, stable in parts if text is not None]
    if hot.word_cap is None:
        return kept
    return [(name, cut_quotes(text, hot.word_cap), stable) for name, text, stable in kept]


def hot_material(sources: Sources) -> _Hot:
    """The trimmable material of a prompt, and (under a budget only, not on every call) which
    facts a budget could write shorter."""
    s, policy, memory, shown = sources.s, sources.policy, sources.memory, sources.shown
    budgeted = policy.token_budget is not None
    return _Hot(
        list(shown.compressed),
        list(shown.verbatim),
        len(memory.recent_reasoning),
        belief_steps=len(BUDGET_STEPS) if policy.prune_beliefs else 0,
        searchable=policy.searches,
        seat_numbers=budgeted and seat_numbers_readable(s.record.seats),
        repeated_history=budgeted and repeats_history(s),
        order_by_seat=budgeted
        and s.action in sections.SPEECH_STEPS
        and sections.seat_order_from(s) is not None,
        repeated_nights=budgeted
        and sections.has_repeated_outcomes(s, memory.facts.kill_history, memory.facts.protection_history),
        quiet_suspicions=budgeted
        and policy.prune_beliefs
        and any(x.level == 0 for x in memory.beliefs.suspicions),
        has_recent=bool(sources.recent),
        tie_ballots=budgeted and bool(sources.defense),
        has_advice=budgeted and policy.role_playbook,
    )


def build_context(
    events: Sequence[EventBase],
    player: str,
    action: ActionKind,
    policy: ContextPolicy = ContextPolicy(),  # noqa: B008 - frozen, so one shared default is safe
    *,
    game_over: bool = False,
    options: Sequence[str] | None = None,
) -> RenderedPrompt:
    """Render ``player``'s prompt for ``action`` from the full log, seen through their view.

    Laid out for prefix caches, which start with the response schema (the same ``Answer`` for every
    call): the system message holds the rules (identical for every player at the table, byte-stable
    all game); the user message (``USER_SECTIONS``) opens with the public transcript, identical for
    every player at the same moment and only growing within a day, so each call shares schema,
    rules and transcript with the call before it, whoever made it; then the state (the same for
    every player at the same step: every ballot of a vote shares it too); then the player's
    identity, then what is the player's alone and changes (role info, recent events, memory) and
    the task last.

    ``options`` are the legal choices the engine computed for this turn (the list its answer is
    checked against); the prompt lists exactly them, in their order. Without them (offline tools
    rendering a prompt from a log alone) the rules compute them from the player's view.
    """
    record = read_view(player_view(events, player), player)
    s = Situation(record=record, action=action, game_over=game_over, options=options)
    sources = Sources(
        s=s,
        policy=policy,
        memory=memory_from_record(
            record, policy.recent_reasonings, policy.summary_plans, prune_beliefs=policy.prune_beliefs
        ),
        shown=window(record, policy, day_open=not s.is_night),
        identity=sections.identity(s, policy.role_playbook),
        recent=sections.recent(s) if policy.recent_events else "",
        defense=sections.defense(s) if action in (ActionKind.DEFENSE, ActionKind.REVOTE) else "",
    )
    hot = hot_material(sources)
    head = _counted([("rules", sections.rules(s), True)])
    body = _counted(user_parts(sources, hot))
    head_tokens = sum(x.tokens for x in head)
    if policy.token_budget is not None:
        body = _fitted(policy, s, hot, head_tokens, body, lambda: user_parts(sources, hot))
    all_sections = (*head, *body)
    return RenderedPrompt(
        player=player,
        action=action,
        sections=all_sections,
        system=SEPARATOR.join(x.text for x in head),
        user=SEPARATOR.join(x.text for x in body),
        total_tokens=sum(x.tokens for x in all_sections),
        stable_tokens=sum(x.tokens for x in all_sections if x.stable),
        policy=policy.name,
        phase=s.phase,
        round_number=s.number,
        trimmed=tuple(hot.notes),
    )
