"""The rules of Mafia as pure functions over plain data (no LangGraph import).

Players are identified by their unique names; seats give their order. ``SKIP`` stands for "no one"
wherever a ballot or a night choice may abstain.
"""

from __future__ import annotations

import math
import random
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

from mafia.game.actions import ActionKind
from mafia.game.audience import Audience

SKIP = "skip"
MIN_PLAYERS = 5
MAX_PLAYERS = 16
DEFAULT_ROUND_CAP = 20
NAME_MAX = 40
"""Longest player name: names are repeated in every prompt line that mentions a player."""
SEED_MIN, SEED_MAX = -(2**63), 2**64 - 1


class Role(StrEnum):
    """A secret role; the Mafia is one team, every other role is the Town."""

    MAFIA = "Mafia"
    DETECTIVE = "Detective"
    DOCTOR = "Doctor"
    TOWN = "Town"
    BODYGUARD = "Bodyguard"
    GODFATHER = "Godfather"
    VIGILANTE = "Vigilante"


Team = Literal["mafia", "town"]
Winner = Literal["mafia", "town", "draw"]


NightEffect = Callable[[str, str, str], str | None]
"""What a role's night choice does to the kill: from the player the kill falls on, the chooser and
their choice, whom it falls on after (None: no one dies)."""


def saves(victim: str, chooser: str, chosen: str) -> str | None:
    """A save: the kill spares the player chosen."""
    return None if victim == chosen else victim


def stands_in(victim: str, chooser: str, chosen: str) -> str | None:
    """A stand-in: a kill of the player chosen falls on the chooser instead."""
    return chooser if victim == chosen else victim


def is_mafia(role: Role) -> str:
    """What a check of a player of ``role`` tells: Mafia or not, as its row's ``shows`` says."""
    return "Mafia" if ROLES[role].seen_as == "mafia" else "Not Mafia"


def self_or_first(player: str, options: Sequence[str]) -> str | None:
    """A fallback choice: the player themself where allowed, else the lowest-seat option."""
    return player if player in options else options[0]


def first_option(player: str, options: Sequence[str]) -> str | None:
    """A fallback choice: the lowest-seat option."""
    return options[0]


def other_players(living: Sequence[str], me: str) -> list[str]:
    """Any living player but the chooser."""
    return [p for p in living if p != me]


@dataclass(frozen=True)
class NightSpec:
    """How a role's own night choice is logged, told and applied."""

    event: str
    """Its private event's type in the log (e.g. ``doctor_protection``)."""
    verb: str
    """How the terminal and the replay page tell the choice ("protects", "checks")."""
    rule: str
    """Its rule as the rules section's night line tells every player (when the table may hold it)."""
    fields: tuple[str, str] = ("player", "target")
    """Its event's fields naming the chooser and the chosen player."""
    effect: NightEffect | None = None
    """What the choice does to the night's kill (None: nothing)."""
    shoots: bool = False
    """Whether the choice is a kill of its own (a night may then end in more than one death): a
    Doctor's save of its target spares them, a Bodyguard's guard does not (it meets the Mafia's)."""
    learns: Callable[[Role], str] | None = None
    """What its holder learns of the chosen player's role (None: nothing)."""
    seen_by: Audience | None = Audience.ACTOR
    """Who sees the event: its holder alone unless said otherwise (None: everyone)."""
    answer: str = "whom you choose"
    """What the task's answer line calls the choice ("whom you protect")."""
    targets: Callable[[Sequence[str], str], list[str]] = other_players
    """The legal choices, from the living players in seat order and the chooser."""
    fallback: Callable[[str, Sequence[str]], str | None] = first_option
    """The legal choice applied when every answer was rejected, from the chooser and the options."""
    rule_with: tuple[tuple[Role, str], ...] = ()
    """Sentences its rule adds at a table holding the role named: how another role's choice
    meets its own."""

    def rule_for(self, held: Collection[Role]) -> str:
        """Its rule as a table holding the roles ``held`` is told."""
        return " ".join([self.rule, *(text for role, text in self.rule_with if role in held)])


@dataclass(frozen=True)
class RoleSpec:
    """One role: its side, what it alone does at night, how a claim of it is worded, its playbook
    and how many a table may hold."""

    side: Team
    night_action: ActionKind | None
    """The action its holder takes alone each night, asked at nightfall beside the Mafia's first
    proposal (None: none; the Mafia's kill is the team's own steps)."""
    claim_words: str
    """The words (a regular-expression alternation) by which a speech claims the role."""
    at_most: int | None = None
    """The most a table may hold (one: its night results are private to their one holder)."""
    default: int = 0
    """How many a table holds unless its settings say otherwise (the Mafia's number goes by the
    table's size, and Town fills the seats left)."""
    wakes: int = 0
    """When its night action is asked, logged and applied among the roles that have one, lower first."""
    optional: bool = False
    """Off by default: dealt only when a game's settings ask for it, and named in the table's
    public composition and the rules only when dealt."""
    night: NightSpec | None = None
    """How its night action is logged, told and applied (a role with a night action has one)."""
    uses: int | None = None
    """How many nights a game its holder may use its night action (None: every night)."""
    shows: Team | None = None
    """The side an investigation of its holder shows (None: its own side)."""
    rule: str | None = None
    """Its rule as the rules section tells every player when the table holds it, for a role with
    no night action of its own (a night role's is its ``night.rule``)."""

    @property
    def seen_as(self) -> Team:
        """The side an investigation of its holder shows."""
        return self.shows if self.shows is not None else self.side

    def playbook(self, role: Role) -> str:
        """Its playbook's template under prompts/."""
        return f"playbooks/{role.value.lower()}"


def _power(action: ActionKind, words: str, wakes: int, night: NightSpec, optional: bool = False) -> RoleSpec:
    """A Town role with a night action of its own: one at most (its night results are private to
    their one holder), dealt by default unless ``optional``."""
    return RoleSpec(
        "town",
        action,
        words,
        at_most=1,
        default=0 if optional else 1,
        wakes=wakes,
        optional=optional,
        night=night,
    )


ROLES: dict[Role, RoleSpec] = {
    Role.MAFIA: RoleSpec("mafia", None, r"mafia|mafioso|godfather|scum"),
    Role.DETECTIVE: _power(
        ActionKind.INVESTIGATE,
        r"detective|cop|investigator|sheriff|seer",
        2,
        NightSpec(
            "investigation",
            "checks",
            "The Detective learns whether one other player is Mafia.",
            ("detective", "target"),
            learns=is_mafia,
            answer="whom you investigate",
            targets=lambda living, me: investigation_targets(living, me),
        ),
    ),
    Role.DOCTOR: _power(
        ActionKind.PROTECT,
        r"doctor|doc|medic|healer|nurse|protector",
        1,
        NightSpec(
            "doctor_protection",
            "protects",
            "The Doctor protects one player (self allowed), never told if it worked.",
            ("protector", "protected"),
            effect=saves,
            answer="whom you protect",
            targets=lambda living, me: protection_targets(living),
            fallback=self_or_first,
        ),
    ),
    Role.TOWN: RoleSpec(
        "town", None, r"town(?:ie|sperson|sfolk|s ?person)?|villager|citizen|civilian|vanilla|vt"
    ),
    Role.BODYGUARD: _power(
        ActionKind.GUARD,
        r"body ?guard",
        3,
        NightSpec(
            "bodyguard_guard",
            "guards",
            "The Bodyguard guards one other player and dies in their place if the Mafia attack them.",
            ("bodyguard", "guarded"),
            effect=stands_in,
            # resolve_night: a save of the guarded player spares them; a save of the Bodyguard
            # spares the Bodyguard once the kill falls on them.
            rule_with=(
                (Role.DOCTOR, "If the Doctor protects the guarded player or the Bodyguard, no one dies."),
            ),
            answer="whom you guard",
        ),
        optional=True,
    ),
    # One at most: the Mafia's leader. It takes one of the Mafia's seats unless a setup names the
    # Mafia's count, kills and wins with the Mafia, and a Detective's check shows it as Town.
    Role.GODFATHER: RoleSpec(
        "mafia",
        None,
        r"godfather",
        at_most=1,
        optional=True,
        shows="town",
        rule="The Godfather is one of the Mafia, but a Detective's check shows them as Not Mafia.",
    ),
    # One shot a game: a night kill of its own (``shoots``), offered beside a skip that spends nothing.
    Role.VIGILANTE: replace(
        _power(
            ActionKind.SHOOT,
            r"vigilante|vig",
            4,
            NightSpec(
                "vigilante_shot",
                "shoots",
                "The Vigilante may shoot one other player on one night of the game (a night skipped"
                " spends nothing); the Doctor's save spares them, a Bodyguard's guard does not.",
                ("vigilante", "shot"),
                shoots=True,
                answer="whom you shoot, or skip",
                targets=lambda living, me: [*other_players(living, me), SKIP],
                fallback=lambda me, options: SKIP,
            ),
            optional=True,
        ),
        uses=1,
    ),
}
"""Every role's row, in seat-dealing order. A role is named once, here and in ``Role``: adding
one is its member and row here (a night power's action row, legal choices, fallback, answer line
and uses included: ``protocol.ACTIONS`` derives its row from this one), its playbook and task
templates and its house tactic; the deal, the log, the night and the prompts read the rest."""


def field_name(role: Role) -> str:
    """A role as a game's settings and its log name it (``--roles doctor=1``)."""
    return role.value.lower()


MAFIA_SIDE = frozenset(role for role, spec in ROLES.items() if spec.side == "mafia")
"""The roles that play for the Mafia."""
ROLE_FIELDS = tuple(field_name(role) for role in ROLES)
"""The roles as a game's settings name them (``--roles doctor=1``)."""
ROLE_OF = {field_name(role): role for role in ROLES}
"""Each role by its settings name."""
NIGHT_ROLES: tuple[Role, ...] = tuple(
    sorted((role for role, spec in ROLES.items() if spec.night is not None), key=lambda r: ROLES[r].wakes)
)
"""The roles with a night choice of their own, in the order they wake."""

SPOKEN_CLAIMS: tuple[Role, ...] = (*(r for r in ROLES if ROLES[r].side == "town"), Role.MAFIA)
"""The roles a speech may claim in its words, the Town's first."""
CLAIMABLE: tuple[Role, ...] = tuple(r for r in SPOKEN_CLAIMS if not ROLES[r].optional)
"""The roles the answer's claim field offers (the answer schema's order); a role off by default is
claimed in words, so the schema stays the same for every table."""

# Mafia seats by table size; the other roles hold their row's default, Town fills the rest.
_DEFAULT_MAFIA = {5: 1, 6: 1, 7: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3, 13: 3, 14: 4, 15: 4, 16: 4}


class ConfigError(ValueError):
    """An unplayable game configuration; the message names the field and what is allowed."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


def team_of(role: Role) -> Team:
    """The side a role plays for."""
    return ROLES[role].side


def on_mafia(role: Role | str | None) -> bool:
    """Whether a player of ``role`` (a role or its name) plays for the Mafia: kills with it at
    night, knows its members, counts toward its parity. None, a role not known, does not."""
    return role in MAFIA_SIDE


class RoleCounts(Mapping[Role, int]):
    """How many of each role sit at the table, keyed by role in ``ROLES`` order (zero for a role
    not given); ``RoleCounts(2, 1, 1, 3)`` gives the counts in that order, ``RoleCounts(doctor=0,
    ...)`` by the roles' settings names."""

    __slots__ = ("_counts",)

    def __init__(self, *counts: int, **by_name: int) -> None:
        unknown = sorted(set(by_name) - set(ROLE_OF))
        if unknown:
            raise TypeError(f"RoleCounts: no role {unknown[0]!r}")
        given = dict(zip(ROLES, counts, strict=False)) | {ROLE_OF[k]: n for k, n in by_name.items()}
        self._counts = {role: given.get(role, 0) for role in ROLES}

    def __getitem__(self, role: Role) -> int:
        return self._counts[role]

    def __iter__(self) -> Iterator[Role]:
        return iter(self._counts)

    def __len__(self) -> int:
        return len(self._counts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RoleCounts) and self._counts == other._counts

    def __hash__(self) -> int:
        return hash(tuple(self._counts.items()))

    def __repr__(self) -> str:
        return f"RoleCounts({', '.join(f'{field_name(r)}={n}' for r, n in self._counts.items())})"

    @property
    def mafia(self) -> int:
        """The seats of the Mafia's side (every role that plays for it)."""
        return sum(n for role, n in self._counts.items() if on_mafia(role))

    @property
    def total(self) -> int:
        return sum(self._counts.values())

    def of(self, role: Role) -> int:
        """How many ``role`` seats the table holds."""
        return self._counts[role]

    @classmethod
    def default(cls, players: int) -> RoleCounts:
        """The recommended mix for a table of ``players`` (7 gives 2 Mafia, 1+1, 3 Town)."""
        counts = {field_name(role): spec.default for role, spec in ROLES.items()}
        counts[field_name(Role.MAFIA)] = _DEFAULT_MAFIA[players]
        counts[field_name(Role.TOWN)] = players - sum(counts.values())
        return cls(**counts)


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes a game before the first model call: same config and seed, same game."""

    players: int = 7
    names: tuple[str, ...] | None = None
    roles: RoleCounts | None = None
    seed: int = 0
    round_cap: int = DEFAULT_ROUND_CAP

    def role_counts(self) -> RoleCounts:
        return self.roles if self.roles is not None else RoleCounts.default(self.players)

    def seat_names(self) -> tuple[str, ...]:
        if self.names is not None:
            return self.names
        return tuple(f"Player {k}" for k in range(1, self.players + 1))


def parse_role_counts(spec: Mapping[str, int], players: int) -> RoleCounts:
    """Role counts from a mapping such as ``{"mafia": 3, "doctor": 1}``; Town fills what is left.

    Unnamed special roles keep their default (1 Detective, 1 Doctor, Mafia by table size).
    """
    unknown = sorted(set(spec) - set(ROLE_FIELDS))
    if unknown:
        raise ConfigError("roles", f"unknown role {unknown[0]!r}; allowed: {', '.join(ROLE_FIELDS)}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        _bad_players(players)
    base = RoleCounts.default(players)
    counts = {name: spec.get(name, base.of(ROLE_OF[name])) for name in ROLE_FIELDS if name != "town"}
    if "mafia" not in spec:  # another role of the Mafia's side takes one of its default seats
        others = sum(n for name, n in counts.items() if name != "mafia" and on_mafia(ROLE_OF[name]))
        counts["mafia"] = max(0, counts["mafia"] - others)
    for name, value in counts.items():
        if value < 0:
            raise ConfigError(f"roles.{name}", f"must be 0 or more, got {value}")
    town = spec.get("town", players - sum(counts.values()))
    if town < 0:
        if "town" in spec:
            raise ConfigError("roles.town", f"must be 0 or more, got {town}")
        raise ConfigError("roles", f"{sum(counts.values())} special roles exceed {players} seats")
    return RoleCounts(town=town, **counts)


def _bad_players(players: int) -> None:
    raise ConfigError("players", f"must be between {MIN_PLAYERS} and {MAX_PLAYERS}, got {players}")


def validate_config(config: GameConfig) -> None:
    """Raise ConfigError naming the first field that makes ``config`` unplayable."""
    if not MIN_PLAYERS <= config.players <= MAX_PLAYERS:
        _bad_players(config.players)
    if config.round_cap < 1:
        raise ConfigError("round_cap", f"must be 1 or more, got {config.round_cap}")
    if not SEED_MIN <= config.seed <= SEED_MAX:
        raise ConfigError("seed", f"must fit in 64 bits ({SEED_MIN} to {SEED_MAX}), got {config.seed}")
    if config.names is not None:
        _validate_names(config.names, config.players)
    counts = config.role_counts()
    for role, value in counts.items():
        name = field_name(role)
        if value < 0:
            raise ConfigError(f"roles.{name}", f"must be 0 or more, got {value}")
    if counts.total != config.players:
        raise ConfigError(
            "roles",
            f"role counts add up to {counts.total} but the table has {config.players} seats",
        )
    if counts.mafia < 1:
        raise ConfigError("roles.mafia", "at least 1 Mafia is required")
    for role, spec in ROLES.items():
        # One Detective or Doctor at most: night results are private to their one holder (a
        # second Doctor would learn the first's protection from the night's outcome record).
        value = counts.of(role)
        if spec.at_most is not None and value > spec.at_most:
            allowed = " or ".join(map(str, range(spec.at_most + 1)))
            raise ConfigError(f"roles.{field_name(role)}", f"must be {allowed}, got {value}")
    others = counts.total - counts.mafia
    if counts.mafia >= others:
        raise ConfigError(
            "roles.mafia",
            f"Mafia must be strictly fewer than the others ({counts.mafia} vs {others})",
        )


def _validate_names(names: Sequence[str], players: int) -> None:
    """Names are shown on one line in every prompt and matched without regard to case, so they must
    be short, printable, and distinct apart from case."""
    if len(names) != players:
        raise ConfigError("names", f"need {players} names (one per seat), got {len(names)}")
    for name in names:
        if not name.strip() or name != name.strip():
            raise ConfigError("names", f"names must be non-empty without edge spaces: {name!r}")
        if any(unicodedata.category(char).startswith("C") for char in name):
            raise ConfigError("names", f"names must not hold line breaks or control characters: {name!r}")
        if len(name) > NAME_MAX:
            raise ConfigError("names", f"names must be at most {NAME_MAX} characters: {name!r}")
        if name.lower() == SKIP:
            raise ConfigError("names", f"{SKIP!r} is reserved and cannot be a player name")
    dupes = [name for name, n in Counter(n.casefold() for n in names).items() if n > 1]
    if dupes:
        same = [name for name in names if name.casefold() == dupes[0]]
        raise ConfigError(
            "names", f"names must differ apart from case; {' and '.join(map(repr, same))} do not"
        )


@dataclass(frozen=True)
class Seat:
    """One seat at the table: its number (1-based), its player's name and secret role."""

    seat: int
    name: str
    role: Role


def assign_roles(config: GameConfig) -> tuple[Seat, ...]:
    """Seat the players and deal roles with a RNG seeded from the config (same seed, same deal)."""
    validate_config(config)
    counts = config.role_counts()
    deck = [role for role in ROLES for _ in range(counts.of(role))]
    random.Random(config.seed).shuffle(deck)
    return tuple(
        Seat(seat=k, name=name, role=role)
        for k, (name, role) in enumerate(zip(config.seat_names(), deck, strict=True), start=1)
    )


# ---- legal choices -------------------------------------------------------------------------


def nomination_targets(living: Sequence[str], speaker: str) -> list[str]:
    """Who a speaker may nominate: any living player but themself (nominating is optional)."""
    return [p for p in living if p != speaker]


def ballot_options(nominees: Sequence[str]) -> list[str]:
    """A vote or revote ballot: one of the nominees (or tied players), or ``skip``.

    A player nominated by several speakers is one option (first nomination order is kept).
    """
    return [*dict.fromkeys(n for n in nominees if n != SKIP), SKIP]


def night_kill_targets(living: Sequence[str], mafia: Iterable[str]) -> list[str]:
    """Mafia may kill any living non-Mafia player, or skip the kill."""
    team = set(mafia)
    return [p for p in living if p not in team] + [SKIP]


def protection_targets(living: Sequence[str]) -> list[str]:
    """The Doctor may protect any living player, themself included."""
    return list(living)


def investigation_targets(living: Sequence[str], detective: str) -> list[str]:
    """The Detective may investigate any living player other than themself."""
    return [p for p in living if p != detective]


# ---- votes ---------------------------------------------------------------------------------

VoteKind = Literal["eliminated", "no_elimination", "tie", "no_vote"]


@dataclass(frozen=True)
class VoteResult:
    """The outcome of a vote: who (if anyone) goes, or which players are tied for a revote."""

    kind: VoteKind
    counts: tuple[tuple[str, int], ...] = ()
    eliminated: str | None = None
    tied: tuple[str, ...] = ()


def tally(ballots: Mapping[str, str], options: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """Votes per option, in the order of ``options`` (ballots outside the options are ignored)."""
    counter = Counter(ballots.values())
    return tuple((option, counter.get(option, 0)) for option in options)


def resolve_vote(ballots: Mapping[str, str], nominees: Sequence[str]) -> VoteResult:
    """Day vote: a nominee strictly ahead of every other nominee and of skip is eliminated.

    Skip ahead of or level with the top means no elimination; two or more nominees level at the
    top (and ahead of skip) are tied and go to defense and a revote. No nominees, no vote.
    """
    options = ballot_options(nominees)
    candidates = options[:-1]  # the distinct nominees; the last option is skip
    if not candidates:
        return VoteResult(kind="no_vote")
    counts = tally(ballots, options)
    by_option = dict(counts)
    top = max(by_option[n] for n in candidates)
    leaders = tuple(n for n in candidates if by_option[n] == top)
    if top == 0 or by_option[SKIP] >= top:
        return VoteResult(kind="no_elimination", counts=counts)
    if len(leaders) > 1:
        return VoteResult(kind="tie", counts=counts, tied=leaders)
    return VoteResult(kind="eliminated", counts=counts, eliminated=leaders[0])


def resolve_revote(ballots: Mapping[str, str], tied: Sequence[str]) -> VoteResult:
    """Revote among tied players: as a vote, except that a new tie means no elimination."""
    result = resolve_vote(ballots, tied)
    if result.kind == "tie":
        return VoteResult(kind="no_elimination", counts=result.counts, tied=result.tied)
    return result


# ---- Mafia consensus -----------------------------------------------------------------------


def consensus_threshold(living_mafia: int) -> int:
    """Votes one target needs among ``living_mafia`` Mafia: ceil(2k/3)."""
    return math.ceil(2 * living_mafia / 3)


def agreed_target(proposals: Mapping[str, str]) -> str | None:
    """The target (``skip`` included) named by at least ceil(2k/3) of the k proposers, if any."""
    if not proposals:
        return None
    need = consensus_threshold(len(proposals))
    counts = Counter(proposals.values())
    winners = sorted(t for t, n in counts.items() if n >= need)
    # With need > k/2 at most one target can reach it; sorted() keeps this total anyway.
    return winners[0] if winners else None


DecidedBy = Literal["direct", "round1", "round2", "lowest_seat"]


@dataclass(frozen=True)
class KillDecision:
    """The Mafia's final night-kill choice and how it was reached."""

    target: str
    decided_by: DecidedBy


def resolve_round2(choices: Mapping[str, str], mafia_in_seat_order: Sequence[str]) -> KillDecision:
    """Round 2: agreement by the same rule, else the lowest-seat living Mafia's choice decides."""
    agreed = agreed_target(choices)
    if agreed is not None:
        return KillDecision(target=agreed, decided_by="round2")
    lowest = next(m for m in mafia_in_seat_order if m in choices)
    return KillDecision(target=choices[lowest], decided_by="lowest_seat")


KillStep = Literal["mafia_round1", "mafia_round2", "night_resolution"]
"""What follows a Mafia answer: the next Round 1 proposal, Round 2, or the night's resolution."""


@dataclass(frozen=True)
class KillProgress:
    """Where the Mafia's night kill stands after an answer: the step that follows and, once the
    kill is decided, the decision with the ballots it was decided on."""

    follows: KillStep
    decision: KillDecision | None = None
    ballots: Mapping[str, str] = field(default_factory=dict)


def lone_kill(mafia: str, choice: str) -> KillProgress:
    """A lone living Mafia member chooses the kill directly; the night resolves."""
    return KillProgress("night_resolution", KillDecision(target=choice, decided_by="direct"), {mafia: choice})


def after_round1(proposals: Mapping[str, str], waiting: Collection[str]) -> KillProgress:
    """After a Round 1 proposal: Round 1 goes on while a living Mafia member has yet to propose
    (``waiting``); then a target with ceil(2k/3) of the k proposals is the kill, else Round 2."""
    if waiting:
        return KillProgress("mafia_round1")
    agreed = agreed_target(proposals)
    if agreed is None:
        return KillProgress("mafia_round2")
    return KillProgress("night_resolution", KillDecision(target=agreed, decided_by="round1"), dict(proposals))


def after_round2(choices: Mapping[str, str], mafia_in_seat_order: Sequence[str]) -> KillProgress:
    """After Round 2 (every living Mafia member answers once): the kill as ``resolve_round2``
    decides it; the night resolves."""
    return KillProgress("night_resolution", resolve_round2(choices, mafia_in_seat_order), dict(choices))


# ---- night, deaths, winners, order ---------------------------------------------------------


@dataclass(frozen=True)
class NightChoice:
    """One role's night choice as the night's kill meets it: who chose, whom, and its effect."""

    chooser: str
    chosen: str
    effect: NightEffect


def resolve_night(
    intended_kill: str | None, choices: Sequence[NightChoice], shots: Sequence[str] = ()
) -> list[str]:
    """Who dies tonight, in the order they fall: the Mafia's victim (``mafia_victim``), then each
    player shot by a role's own kill (``shots``, in waking order) whom no save spares; a player
    killed twice dies once. Every action of the night resolves at once: a shooter killed tonight
    still shoots."""
    first = mafia_victim(intended_kill, choices)
    deaths = [first] if first is not None else []
    saved = {c.chosen for c in choices if c.effect is saves}
    for target in shots:
        if target != SKIP and target not in saved and target not in deaths:
            deaths.append(target)
    return deaths


def mafia_victim(intended_kill: str | None, choices: Sequence[NightChoice]) -> str | None:
    """Whom the Mafia's kill falls on: their target as the night's choices bear on it in waking
    order (a save spares them, a stand-in dies in their place); a kill that moves to another player
    meets every choice again, so a save of the stand-in spares them too."""
    if intended_kill is None or intended_kill == SKIP:
        return None
    victim, passed = intended_kill, {intended_kill}
    while True:
        moved: str | None = victim
        for c in choices:
            moved = c.effect(victim, c.chooser, c.chosen)
            if moved != victim:
                break
        if moved is None or moved in passed:
            return moved
        passed.add(moved)
        victim = moved


def winner(living_roles: Iterable[Role]) -> Literal["mafia", "town"] | None:
    """Town wins when no Mafia lives; Mafia when living Mafia reach parity with the others."""
    roles = list(living_roles)
    mafia = sum(1 for r in roles if on_mafia(r))
    if mafia == 0:
        return "town"
    if mafia >= len(roles) - mafia:
        return "mafia"
    return None


def first_speaker(
    previous_first: str | None, living_in_seat_order: Sequence[str], seat_order: Sequence[str]
) -> str:
    """Who opens the day: seat 1 on day 1, then the next living seat after the last opener."""
    if previous_first is None:
        return living_in_seat_order[0]
    start = seat_order.index(previous_first)
    n = len(seat_order)
    for step in range(1, n + 1):
        candidate = seat_order[(start + step) % n]
        if candidate in living_in_seat_order:
            return candidate
    raise ValueError("no living player to open the day")


def speaking_order(first: str, living_in_seat_order: Sequence[str]) -> list[str]:
    """Living players in seat order, rotated to start at ``first``."""
    i = living_in_seat_order.index(first)
    return [*living_in_seat_order[i:], *living_in_seat_order[:i]]


@dataclass(frozen=True)
class Table:
    """Who sits where with which role, and who is still alive: a pure snapshot for the rules."""

    seats: tuple[Seat, ...]
    dead: frozenset[str] = field(default_factory=frozenset)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def living(self) -> list[str]:
        return [s.name for s in self.seats if s.name not in self.dead]

    def role(self, name: str) -> Role:
        return next(s.role for s in self.seats if s.name == name)

    def with_role(self, role: Role, *, alive_only: bool = True) -> list[str]:
        """The players of ``role`` in seat order (the living only, unless told otherwise)."""
        dead = self.dead if alive_only else frozenset()
        return [s.name for s in self.seats if s.role is role and s.name not in dead]

    def mafia(self, *, alive_only: bool = True) -> list[str]:
        """The players of the Mafia's side in seat order (the living only, unless told otherwise)."""
        dead = self.dead if alive_only else frozenset()
        return [s.name for s in self.seats if on_mafia(s.role) and s.name not in dead]

    def kill(self, name: str) -> Table:
        return Table(seats=self.seats, dead=self.dead | {name})

    def winner(self) -> Literal["mafia", "town"] | None:
        return winner(s.role for s in self.seats if s.name not in self.dead)
