"""Typed game events: the append-only log that is the single source of truth.

Each event class declares its privacy: ``AUDIENCE`` makes a whole event private to some players,
``PRIVATE_FIELDS`` hides single fields of an otherwise public event. ``entitled`` is the one place
that decides who may see what; ``mafia.context.views`` applies it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal, Union, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    create_model,
    field_validator,
    model_serializer,
    model_validator,
)

from mafia.game.audience import Audience
from mafia.game.rules import (
    NIGHT_ROLES,
    ROLE_OF,
    ROLES,
    DecidedBy,
    Role,
    VoteKind,
    Winner,
    field_name,
    on_mafia,
)


class AnswerKind(StrEnum):
    """Why an answer was rejected (logged on every rejected attempt and on the fallback)."""

    INVALID_JSON = "invalid_json"  # not parseable as JSON (or no structured output at all)
    SCHEMA = "schema"  # JSON that does not match the answer schema
    ILLEGAL_CHOICE = "illegal_choice"  # a choice that is not among the valid options
    REFUSAL = "refusal"  # the model declined to answer
    LENGTH = "length"  # the output hit the token limit before the answer was complete
    CONTENT_FILTER = "content_filter"  # the provider's content filter stopped the output
    EMPTY_TEXT = "empty_text"  # a speech, message or plan that says nothing
    INVALID_TEXT = "invalid_text"  # lone surrogates or control characters in a text


class EventBase(BaseModel):
    """Fields every event has; ``round`` is the day/night number (0 for setup and night zero)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    AUDIENCE: ClassVar[Audience | None] = None
    PRIVATE_FIELDS: ClassVar[Mapping[str, Audience | Role]] = {}
    """Fields private to an audience, or to the holders of a role."""
    ACTOR_FIELD: ClassVar[str | None] = None

    round: int

    def actor(self) -> str | None:
        """The player who acted in this event, if the event names one."""
        return getattr(self, self.ACTOR_FIELD) if self.ACTOR_FIELD else None


class Ballot(BaseModel):
    """One player's choice in a vote: a player's name or ``skip``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    voter: str
    target: str


class Count(BaseModel):
    """Votes an option received."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    option: str
    votes: int


class RoleReveal(BaseModel):
    """A player's role, made public at game over."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    player: str
    role: Role


class SuspicionNote(BaseModel):
    """A player's belief about another player (stored in a thought)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    player: str
    level: int
    reasoning: str


def relationship_text(entry: object) -> object:
    """A relationship as the one line answers give it; logs written when a relationship was an
    object (players, kind, note) read as that line, so older games still load and resume."""
    if isinstance(entry, Mapping) and {"players", "kind", "note"} <= set(entry):
        return f"{' & '.join(map(str, entry['players']))} ({entry['kind']}): {entry['note']}"
    return entry


# ---- setup ---------------------------------------------------------------------------------


class GameStarted(EventBase):
    """The table is set: seat order and the public role counts (the four the log has always
    written, then any other role's, written only when dealt: a game without it logs as before)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    type: Literal["game_started"] = "game_started"
    game_id: str
    players: list[str]
    mafia: int
    detective: int
    doctor: int
    town: int
    round_cap: int

    @model_validator(mode="after")
    def _only_role_counts(self) -> GameStarted:
        for name, value in (self.model_extra or {}).items():
            if name not in ROLE_OF or not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"game_started: {name!r} is not a role count")
        return self

    @staticmethod
    def recorded(counts: Mapping[Role, int]) -> dict[str, int]:
        """The counts as the event records them: every role it names always, any other only when
        the table holds it."""
        return {
            field_name(role): n
            for role, n in counts.items()
            if n or field_name(role) in GameStarted.model_fields
        }

    def count_of(self, role: Role) -> int:
        """How many ``role`` seats the table holds (its public count)."""
        return int(getattr(self, field_name(role), 0))  # a field, or a count the table was dealt

    def composition(self) -> str:
        """The public counts, e.g. "2 Mafia, 1 Detective, 1 Doctor, 3 Town" (a role off by
        default is named only when dealt)."""
        return ", ".join(f"{self.count_of(role)} {role.value}" for role in self.held())

    def held(self) -> list[Role]:
        """The roles the table may hold as its players are told: every role on by default, and
        any other when dealt (``ROLES`` order)."""
        return [role for role in ROLES if self.count_of(role) or not ROLES[role].optional]


class RoleAssigned(EventBase):
    """A player learns their role and persona; Mafia also learn their partners."""

    AUDIENCE = Audience.ACTOR
    ACTOR_FIELD = "player"
    type: Literal["role_assigned"] = "role_assigned"
    player: str
    role: Role
    persona: str = ""
    partners: list[str] = Field(default_factory=list)


class NightZeroStrategy(EventBase):
    """A Mafia member's opening strategy notes for partners (no kill on night zero)."""

    AUDIENCE = Audience.MAFIA
    ACTOR_FIELD = "speaker"
    type: Literal["night_zero_strategy"] = "night_zero_strategy"
    speaker: str
    strategy: str


# ---- day -----------------------------------------------------------------------------------


def named_deaths(victims: Sequence[str]) -> str | None:
    """A night's deaths as a line names them ("Player 6", "Player 2 and Player 6"; None: none)."""
    return " and ".join(victims) or None


def _read_one_death(data: Any, single: str, many: str) -> Any:
    """An event's deaths as every log writes them: the one-death field (``single``: a name or
    None) of a night with at most one death, which every older log holds, or the list."""
    if isinstance(data, dict) and single in data:
        one = data[single]
        return {
            (many if k == single else k): ([] if one is None else [one]) if k == single else v
            for k, v in data.items()
        }
    return data


def _write_one_death(data: dict[str, Any], single: str, many: str) -> dict[str, Any]:
    """``data`` with a list of at most one death written as the one-death field, in its place:
    the logs of nights with one death or none stay byte-identical to those older releases wrote."""
    deaths = data[many]
    if len(deaths) > 1:
        return data
    return {
        (single if k == many else k): (deaths[0] if deaths else None) if k == many else v
        for k, v in data.items()
    }


class DayStarted(EventBase):
    """A day opens: who died in the night (none, one or more) and the order of speeches."""

    type: Literal["day_started"] = "day_started"
    night_deaths: list[str] = Field(default_factory=list)
    """Logged as ``night_death`` (one name or null) when at most one player died."""
    living: list[str]
    speaking_order: list[str]

    @model_validator(mode="before")
    @classmethod
    def _one_death(cls, data: Any) -> Any:
        return _read_one_death(data, "night_death", "night_deaths")

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _write_one_death(handler(self), "night_death", "night_deaths")


class Speech(EventBase):
    """A day speech, with an optional nomination of another living player and the role its speaker
    publicly claims in it (None: no structured claim; the text may still claim one)."""

    ACTOR_FIELD = "speaker"
    type: Literal["speech"] = "speech"
    speaker: str
    text: str
    nomination: str | None = None
    claim: Role | None = None


class DefenseSpeech(EventBase):
    """A tied player's defense before the revote, with the role it publicly claims, if any."""

    ACTOR_FIELD = "speaker"
    type: Literal["defense"] = "defense"
    speaker: str
    text: str
    claim: Role | None = None


class VoteRound(EventBase):
    """A completed (re)vote: every ballot, the counts and the outcome."""

    type: Literal["vote_round"] = "vote_round"
    revote: bool = False
    nominees: list[str]
    ballots: list[Ballot]
    counts: list[Count]
    outcome: VoteKind
    eliminated: str | None = None
    tied: list[str] = Field(default_factory=list)


class Elimination(EventBase):
    """A player voted out by the day; their role stays hidden until the game ends."""

    type: Literal["elimination"] = "elimination"
    player: str


class LastWords(EventBase):
    """The day-eliminated player's final speech, with the role it publicly claims, if any."""

    ACTOR_FIELD = "speaker"
    type: Literal["last_words"] = "last_words"
    speaker: str
    text: str
    claim: Role | None = None


# ---- night ---------------------------------------------------------------------------------


class MafiaDiscussion(EventBase):
    """One Mafia member's proposal in a coordination round: the target and the message to partners.

    The member's reasoning is not here: it lives in the member's own private thought."""

    AUDIENCE = Audience.MAFIA
    ACTOR_FIELD = "speaker"
    type: Literal["mafia_discussion"] = "mafia_discussion"
    speaker: str
    target: str
    message: str
    coordination_round: int

    @model_validator(mode="before")
    @classmethod
    def _drop_reasoning(cls, data: Any) -> Any:
        """Logs and checkpoints written before reasoning became private carried it here: read them
        without it (partners must never see a member's reasoning; its thought keeps it)."""
        if isinstance(data, dict) and "reasoning" in data:
            return {k: v for k, v in data.items() if k != "reasoning"}
        return data


class MafiaVote(EventBase):
    """How the Mafia's night kill was settled."""

    AUDIENCE = Audience.MAFIA
    type: Literal["mafia_vote"] = "mafia_vote"
    votes: list[Ballot]
    final_target: str
    decided_by: DecidedBy
    coordination_round: int


class RoleNightEvent(EventBase):
    """A role's own night choice (its ``ROLES`` row's ``night``): who chose whom, why and what
    they learned, seen by whom the row says; the row names the chooser's field (``ACTOR_FIELD``)
    and the chosen's (``TARGET_FIELD``)."""

    TARGET_FIELD: ClassVar[str] = "target"

    def role(self) -> Role:
        """The role whose choice this is."""
        return NIGHT_EVENT_ROLES[type(self)]

    def verb(self) -> str:
        """How the choice is told ("protects"), from the role's row."""
        night = ROLES[self.role()].night
        assert night is not None, "a role with a night event has its night spec"
        return night.verb

    def chooser(self) -> str:
        return str(self.actor())

    def chosen(self) -> str:
        return str(getattr(self, self.TARGET_FIELD))

    def reason(self) -> str:
        return str(getattr(self, "reasoning"))  # noqa: B009 (each subclass declares it, in its log's order)

    def learned(self) -> str | None:
        """What the chooser learned of the chosen player (None: nothing)."""
        result = getattr(self, "result", None)
        return None if result is None else str(result)


class DoctorProtection(RoleNightEvent):
    """Whom the Doctor protected tonight and why (a class of its own, read across the context)."""

    type: Literal["doctor_protection"] = "doctor_protection"
    protector: str
    protected: str
    reasoning: str


class Investigation(RoleNightEvent):
    """The Detective's check of one player and its result."""

    type: Literal["investigation"] = "investigation"
    detective: str
    target: str
    result: Literal["Mafia", "Not Mafia"]
    reasoning: str


_WRITTEN: dict[str, type[RoleNightEvent]] = {
    cls.model_fields["type"].default: cls for cls in (DoctorProtection, Investigation)
}
"""The night events the log has its own classes for, by type."""


def _night_event_class(role: Role) -> type[RoleNightEvent]:
    """The class of ``role``'s night event, seen by whom its row says: the log's own class where
    it has one, else one built from the row: its type, the chooser's and the chosen's fields, what
    the chooser learned (when the role learns) and the reasoning."""
    spec = ROLES[role].night
    assert spec is not None
    chooser, chosen = spec.fields
    cls = _WRITTEN.get(spec.event)
    if cls is None:
        fields: dict[str, Any] = {
            "type": (cast(Any, Literal)[spec.event], spec.event),
            chooser: (str, ...),
            chosen: (str, ...),
            **({"result": (str, ...)} if spec.learns is not None else {}),
            "reasoning": (str, ...),
        }
        cls = create_model(
            "".join(part.title() for part in spec.event.split("_")),
            __base__=RoleNightEvent,
            __module__=__name__,
            __doc__=f"The {role.value}'s night choice ({spec.verb}): whom, and why.",
            **fields,
        )
    cls.ACTOR_FIELD, cls.TARGET_FIELD, cls.AUDIENCE = chooser, chosen, spec.seen_by
    return cls


NIGHT_EVENTS: dict[Role, type[RoleNightEvent]] = {role: _night_event_class(role) for role in NIGHT_ROLES}
"""Each role's night event class, in waking order."""
NIGHT_EVENT_ROLES: dict[type[EventBase], Role] = {cls: role for role, cls in NIGHT_EVENTS.items()}
globals().update({cls.__name__: cls for cls in NIGHT_EVENTS.values()})
# A class built from a row is a name of this module, as its ``__module__`` says: its events pickle.


def night_event(
    role: Role, round: int, chooser: str, chosen: str, reasoning: str, learned: str | None = None
) -> RoleNightEvent:
    """``role``'s night event: its holder's choice, why, and what they learned of the chosen."""
    cls = NIGHT_EVENTS[role]
    fields: dict[str, object] = {
        "round": round,
        str(cls.ACTOR_FIELD): chooser,
        cls.TARGET_FIELD: chosen,
        "reasoning": reasoning,
    }
    return cls.model_validate(fields if learned is None else {**fields, "result": learned})


class NightResolution(EventBase):
    """The night's outcome: who died (public; none, one or more, in the order they fell), the
    Mafia's target (the Mafia's) and the Doctor's save (the Doctor's)."""

    PRIVATE_FIELDS = {"intended_kill": Audience.MAFIA, "protected": Role.DOCTOR}
    type: Literal["night_resolution"] = "night_resolution"
    deaths: list[str] = Field(default_factory=list)
    """Logged as ``actual_kill`` (one name or null) when at most one player died."""
    intended_kill: str | None = None
    protected: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_death(cls, data: Any) -> Any:
        return _read_one_death(data, "actual_kill", "deaths")

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _write_one_death(handler(self), "actual_kill", "deaths")


# ---- per-player bookkeeping ----------------------------------------------------------------


class PlayerNote(EventBase):
    """An event about one player's own decision, private to that player."""

    AUDIENCE = Audience.ACTOR
    ACTOR_FIELD = "player"
    player: str
    action: str


class Thought(PlayerNote):
    """A player's private reasoning and beliefs returned with one action (their memory's source)."""

    type: Literal["thought"] = "thought"
    observations: str
    strategy: str
    reasoning: str
    suspicions: list[SuspicionNote] = Field(default_factory=list)
    relationships: list[str] = Field(default_factory=list)
    pattern_notes: list[str] = Field(default_factory=list)

    @field_validator("relationships", mode="before")
    @classmethod
    def _relationship_lines(cls, value: object) -> object:
        return [relationship_text(r) for r in value] if isinstance(value, list) else value


class Fallback(PlayerNote):
    """An answer still malformed or illegal after retries, and the legal choice applied instead."""

    type: Literal["fallback"] = "fallback"
    error: str
    kind: AnswerKind | None = None
    """Why the last answer was rejected; None only in logs written before kinds were recorded."""
    attempts: int
    applied: str


class TextTruncated(PlayerNote):
    """A model-written text cut to its configured limit (``GameContext.text_limits``)."""

    type: Literal["text_truncated"] = "text_truncated"
    field: str
    length: int
    limit: int


class ReportedSpeech(BaseModel):
    """What one player said on one day, as a summary reports it: ``words`` is an excerpt of that
    player's speech, defense or last words of that day, word for word (up to three passages joined
    by "..."), checked against the log and rendered from it by ``context.summary_items``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    day: int
    speaker: str
    words: str


class SpeechPattern(BaseModel):
    """A pattern across the public record a summary reports: ``accused`` (``player``'s speeches on
    ``days`` accused or nominated ``target``) or ``changed_vote`` (``player``'s ballots on ``days``
    went to different players; ``target`` is None). Checked and worded by the engine."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    pattern: Literal["accused", "changed_vote"]
    player: str
    target: str | None
    days: list[int]


class ColdSummary(EventBase):
    """A summary of the public record of Days 1 to ``through``: the items a summariser picked and
    the engine checked against the log before logging them (``context.summary_items``). Prompts
    show those days' engine lines and the items as the engine words them; no summariser text."""

    type: Literal["cold_summary"] = "cold_summary"
    through: int
    facts: list[int] = Field(default_factory=list)
    """The numbers of the engine facts picked (``summary_items.Catalogue.facts``, from 1)."""
    speeches: list[ReportedSpeech] = Field(default_factory=list)
    patterns: list[SpeechPattern] = Field(default_factory=list)
    summariser: str

    @model_validator(mode="before")
    @classmethod
    def _drop_free_text(cls, data: Any) -> Any:
        """Logs written before summaries became items carried the summariser's free text: read
        them without it (no summariser sentence reaches a prompt; the days' engine lines stay)."""
        if isinstance(data, dict) and "text" in data:
            return {k: v for k, v in data.items() if k != "text"}
        return data


class SummaryFallback(EventBase):
    """A summary that could not be used (the summariser failed, answered badly or gave no item the
    log holds): the days it was to cover stay in the deterministic compression."""

    type: Literal["summary_fallback"] = "summary_fallback"
    through: int
    reason: str
    summariser: str


class SummaryItemsRefused(EventBase):
    """The items of a summariser's answer the engine refused, each with why (a fact the log does
    not hold, words not in that speech, over the length limit). A record of the run, never part of
    a prompt: the refused items hold the summariser's own words."""

    AUDIENCE = Audience.NOBODY
    type: Literal["summary_items_refused"] = "summary_items_refused"
    through: int
    refused: list[str]
    summariser: str


class RunChanged(EventBase):
    """A setting of the run changed when it was resumed, as the user asked explicitly (a model, a
    seat's model or person, the policy, the retries): what it was and what it became."""

    AUDIENCE = Audience.NOBODY
    type: Literal["run_changed"] = "run_changed"
    setting: str
    before: str
    after: str


class GameOver(EventBase):
    """The game has ended: the winner, why, and every role revealed."""

    type: Literal["game_over"] = "game_over"
    winner: Winner
    reason: str
    roles: list[RoleReveal]


EVENT_TYPES: tuple[type[EventBase], ...] = (
    GameStarted,
    RoleAssigned,
    NightZeroStrategy,
    DayStarted,
    Speech,
    DefenseSpeech,
    VoteRound,
    Elimination,
    LastWords,
    MafiaDiscussion,
    MafiaVote,
    *NIGHT_EVENTS.values(),
    NightResolution,
    Thought,
    Fallback,
    TextTruncated,
    ColdSummary,
    SummaryFallback,
    SummaryItemsRefused,
    RunChanged,
    GameOver,
)
"""Every event class the log holds (each role's night event from its row)."""

_EVENT: Any = Annotated[cast(Any, Union)[EVENT_TYPES], Field(discriminator="type")]
_ADAPTER: TypeAdapter[EventBase] = TypeAdapter(_EVENT)


def parse_event(data: Mapping[str, object]) -> EventBase:
    """An event from its JSON-plain dict (as stored in graph state or a JSONL line)."""
    return _ADAPTER.validate_python(data)


def dump_event(event: EventBase) -> dict[str, object]:
    """The JSON-plain dict of an event, with ``type`` first for readable logs."""
    data = event.model_dump(mode="json")
    return {"type": data.pop("type"), **data}


def to_jsonl(events: Iterable[EventBase]) -> str:
    """The log as JSON Lines, one event a line, stable key order."""
    return "".join(event_line(e) for e in events)


def event_line(event: EventBase) -> str:
    """One JSONL line (with its newline) for an event."""
    return json.dumps(dump_event(event), ensure_ascii=False, separators=(",", ":")) + "\n"


def from_jsonl(text: str) -> list[EventBase]:
    """Parse a JSONL log written by ``to_jsonl``.

    Lines are split on ``\\n`` only: ``str.splitlines`` would also split on U+2028, U+0085 and
    friends, which ``json.dumps(ensure_ascii=False)`` leaves unescaped inside strings.
    """
    return [parse_event(json.loads(line)) for line in text.split("\n") if line.strip()]


def roles_from_log(events: Sequence[EventBase]) -> dict[str, Role]:
    """Every player's role, read from the (unfiltered) log's role assignments."""
    return {e.player: e.role for e in events if isinstance(e, RoleAssigned)}


def _in_audience(event: EventBase, audience: Audience | Role, viewer: str, roles: Mapping[str, Role]) -> bool:
    if isinstance(audience, Role):
        return roles.get(viewer) is audience
    if audience is Audience.ACTOR:
        return event.actor() == viewer
    if audience is Audience.MAFIA:
        return on_mafia(roles.get(viewer))
    return False


def entitled(event: EventBase, viewer: str, roles: Mapping[str, Role]) -> tuple[bool, frozenset[str]]:
    """Whether ``viewer`` sees ``event`` at all, and which of its private fields they may read."""
    if event.AUDIENCE is not None and not _in_audience(event, event.AUDIENCE, viewer, roles):
        return False, frozenset()
    fields = frozenset(
        name
        for name, audience in event.PRIVATE_FIELDS.items()
        if _in_audience(event, audience, viewer, roles)
    )
    return True, fields
