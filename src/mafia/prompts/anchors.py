"""The few exact line formats a rendered prompt always contains, in one place.

The context builder writes these lines with the ``format_*`` helpers; anything reading a prompt
(the house model, tests, log tools) parses them with the matching patterns. Keeping both sides here
means a format change cannot silently break a reader.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mafia.game.events import named_deaths
from mafia.game.rules import Role

# Section headers. Task headers are "[YOUR TASK: SPEAK]" etc. The system message holds RULES alone
# (the same for every player, all game; the answer schema's field descriptions guide the fields);
# the user message opens with TRANSCRIPT (cold before hot, so consecutive prompts share a long
# prefix), then STATE, IDENTITY, MAFIA_INFO, INVESTIGATIONS, RECENT, DEFENSE, MEMORY, and ends
# with the task.
IDENTITY = "[YOUR IDENTITY]"
RULES = "[GAME RULES]"
STATE = "[CURRENT STATE]"
MAFIA_INFO = "[MAFIA INFO]"
INVESTIGATIONS = "[INVESTIGATION RESULTS]"
RECENT = "[RECENT EVENTS]"
DEFENSE = "[DEFENSE CONTEXT]"
TRANSCRIPT = "[TRANSCRIPT]"
MEMORY = "[YOUR MEMORY]"
TASK_PREFIX = "[YOUR TASK: "

SECTION_HEADER = re.compile(r"^\[(?:[A-Z][A-Z ]+|YOUR TASK: [A-Z_0-9]+)\]$")

_ROLE_NAMES = "|".join(role.value for role in Role)
"""Every role's name as an alternation (the roles table's names)."""

IDENTITY_LINE = re.compile(rf"^You are (?P<name>.+?)\. Your role is (?P<role>{_ROLE_NAMES})\.$", re.M)
TASK_LINE = re.compile(r"^\[YOUR TASK: (?P<action>[A-Z_0-9]+)\]$", re.M)
TARGETS_LINE = re.compile(r"^Valid targets: (?P<targets>.*)$", re.M)
LIVING_LINE = re.compile(r"^Living: (?P<names>.*)$", re.M)
PARTNERS_LINE = re.compile(r"^Your Mafia partners: (?P<partners>.*)$", re.M)
# "Night 3" or, for the nights of one outcome under a token budget, "Nights 3-5, 9" (``format_nights``).
_NUMBERS = r"\d+(?:-\d+)?(?:, ?\d+(?:-\d+)?)*"
_NIGHTS = r"Nights? (?P<night>\d+)(?P<more>(?:-\d+)?(?:, \d+(?:-\d+)?)*)"
RESULT_LINE = re.compile(rf"^- {_NIGHTS}: (?P<target>.+?) is (?P<result>Mafia|Not Mafia)$", re.M)
# The tail a speech, defense or last words carry when the speaker stated a role claim with them.
CLAIM_TAIL = rf"(?: \(claims (?:{_ROLE_NAMES})\))?"
SPEECH_LINE = re.compile(
    rf'^- (?P<speaker>.+?) said: "(?P<text>.*)"{CLAIM_TAIL}(?: \(nominated (?P<nomination>.+?)\))?$',
    re.M,
)
GAME_OVER_HINT = "game_over: true"


def format_identity(name: str, role: str) -> str:
    return f"You are {name}. Your role is {role}."


def format_task_header(action: str) -> str:
    return f"{TASK_PREFIX}{action.upper()}]"


def format_targets(targets: Sequence[str]) -> str:
    return "Valid targets: " + ", ".join(targets)


def format_living(names: Sequence[str]) -> str:
    return "Living: " + ", ".join(names)


def format_partners(partners: Sequence[tuple[str, bool]]) -> str:
    """Partners with their status, e.g. "Player 2 (alive), Player 5 (dead)"."""
    return "Your Mafia partners: " + ", ".join(
        f"{name} ({'alive' if alive else 'dead'})" for name, alive in partners
    )


def format_numbers(numbers: Sequence[int], sep: str = ", ") -> str:
    """Ascending numbers, runs of three or more as a range: "1-3, 6, 8" (``sep`` between parts)."""
    parts: list[str] = []
    ordered = sorted(set(numbers))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{ordered[i]}-{ordered[j]}")
        else:
            parts.extend(str(n) for n in ordered[i : j + 1])
        i = j + 1
    return sep.join(parts)


def parse_numbers(text: str) -> list[int]:
    """The numbers ``format_numbers`` wrote (with either separator)."""
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        first, _, last = part.partition("-")
        out.extend(range(int(first), int(last or first) + 1))
    return out


def format_nights(nights: int | Sequence[int]) -> str:
    """ "Night 3", or "Nights 3-5, 9" for several nights with one outcome."""
    many = [nights] if isinstance(nights, int) else list(nights)
    return f"Night {many[0]}" if len(many) == 1 else f"Nights {format_numbers(many)}"


def nights_of(m: re.Match[str]) -> list[int]:
    """The nights a matched result or kill entry stands for."""
    return parse_numbers(m["night"] + m["more"])


def format_result(night: int | Sequence[int], target: str, result: str) -> str:
    return f"- {format_nights(night)}: {target} is {result}"


def claim_tail(claim: str | None) -> str:
    """The tail showing a role the speaker claimed with their words ("" without one)."""
    return f" (claims {claim})" if claim else ""


def format_speech(speaker: str, text: str, nomination: str | None, claim: str | None = None) -> str:
    """A speech on one line; ``text`` must already be made safe (one line, quotes escaped)."""
    tail = f" (nominated {nomination})" if nomination else ""
    return f'- {speaker} said: "{text}"{claim_tail(claim)}{tail}'


def split_names(field: str) -> list[str]:
    """The names of a comma-separated list line (as written by the formatters above)."""
    return [part.strip() for part in field.split(",") if part.strip()]


# ---- lines the house model also reads (added for it; the context builder writes them) ----------
# Each pattern has a ``format_*`` twin below. A reader must not depend on any of them being present:
# a prompt without, say, a persona line is still a valid prompt (the reader just knows less).

PERSONA_LINE = re.compile(r"^Your persona: (?P<persona>.*)$", re.M)
# A line opening with "Day N" (as written: "Day N:") starts that day's part of the transcript.
DAY_HEADER = re.compile(r"^Day (?P<day>\d+)\b.*$", re.M)
DEFENSE_LINE = re.compile(rf'^- (?P<speaker>[^"]+?) defended: "(?P<text>.*)"{CLAIM_TAIL}$', re.M)
LAST_WORDS_LINE = re.compile(rf'^- (?P<speaker>[^"]+?) last words: "(?P<text>.*)"{CLAIM_TAIL}$', re.M)
CLAIM_LINE = re.compile(
    rf"^- (?P<player>[^\"]+?) claimed (?P<role>{_ROLE_NAMES})"
    r"(?: \(day (?P<day>\d+)\))?$",
    re.M,
)
ACCUSATION_LINE = re.compile(
    r"^- (?P<accuser>[^\"]+?) accused (?P<accused>[^\"]+?)(?: \(day (?P<day>\d+)\))?$", re.M
)
# The digest's nomination line; read by the house model, not among the patterns player text is
# checked against (a speech saying "I nominated no one" is not an engine line).
NOMINATION_LINE = re.compile(
    r"^- (?P<accuser>Player \d+|[^\s\"]+) nominated (?P<accused>Player \d+|[^\s\"]+)"
    r"(?: \(day (?P<day>\d+)\))?$",
    re.M,
)
# One entry of the ``DEAD_LINE`` field as ``format_dead`` writes it: "Player 3 (night 1)".
DEAD_ENTRY = re.compile(r"(?:^|, )(?P<name>[^,]+?) \((?P<how>night|voted day) (?P<round>\d+)\)")


def format_persona(description: str) -> str:
    return f"Your persona: {description}"


def format_day_header(day: int) -> str:
    """Opens one verbatim day of the transcript; the lines below it (speeches, ballots, defenses,
    last words) belong to that day."""
    return f"Day {day}:"


def format_defense(speaker: str, text: str, claim: str | None = None) -> str:
    """A tied player's defense speech (``text`` made safe as for ``format_speech``)."""
    return f'- {speaker} defended: "{text}"{claim_tail(claim)}'


def format_last_words(speaker: str, text: str, claim: str | None = None) -> str:
    """A day-eliminated player's last words (``text`` made safe as for ``format_speech``)."""
    return f'- {speaker} last words: "{text}"{claim_tail(claim)}'


def format_accusation(accuser: str, accused: str, day: int | None = None, *, nominated: bool = False) -> str:
    """An accusation line: ``accuser`` nominated ``accused`` (the engine's nomination) or accused
    them in words (on ``day`` if known)."""
    tail = f" (day {day})" if day is not None else ""
    return f"- {accuser} {'nominated' if nominated else 'accused'} {accused}{tail}"


def format_claim(player: str, role: str, day: int | None = None) -> str:
    """A claims-ledger line: ``player`` claimed ``role`` for themself (on ``day`` if known)."""
    tail = f" (day {day})" if day is not None else ""
    return f"- {player} claimed {role}{tail}"


# ---- additional anchors (the context builder's other fixed lines) ------------------------------

ROUND_LINE = re.compile(r"^Round: (?P<phase>Day|Night) (?P<number>\d+)$", re.M)
DEAD_LINE = re.compile(r"^Dead: (?P<entries>.*)$", re.M)
NOMINEES_LINE = re.compile(r"^Nominees: (?P<names>.*)$", re.M)
TIED_LINE = re.compile(r"^Tied players: (?P<names>.*)$", re.M)
BALLOTS_LINE = re.compile(r"^(?P<label>Votes|Revote votes): (?P<ballots>.*)$", re.M)
NIGHT_DEATH_LINE = re.compile(
    r"^Night (?P<night>\d+): (?:no one was killed|(?P<victim>.+?) (?:was|were) killed)\.$", re.M
)
PROPOSAL_LINE = re.compile(r'^- (?P<speaker>.+?) proposed (?P<target>.+?): "(?P<text>.*)"$', re.M)
STRATEGY_LINE = re.compile(r'^- (?P<speaker>.+?) wrote: "(?P<text>.*)"$', re.M)

NONE = "none"

# ---- memory and Mafia info lines (the house model reads them back) ------------------------------

# The player's own latest suspicion levels, in seat order: "Your suspicions (0-10): Player 1: 8, ...".
SUSPICIONS_LINE = re.compile(r"^Your suspicions \(0-10\): (?P<entries>.*)$", re.M)
SUSPICION_ENTRY = re.compile(r"(?:^|, )(?P<name>[^,]+?): (?P<level>-?\d+)(?=, |$)")
# The Doctor's protections, one entry a night: "Your protections: Player 6 (night 1), ...".
PROTECTIONS_LINE = re.compile(r"^Your protections: (?P<entries>.*)$", re.M)
NIGHT_ENTRY = re.compile(r"(?:^|, )(?P<name>[^,(]+?) \(nights? (?P<nights>\d+(?:(?:-|; )\d+)*)\)")
"""A protection entry: "Player 6 (night 1)", or grouped, "Player 6 (nights 1-3; 7)"."""
# The Mafia's kills in Mafia info: "Team kills: Night 1: Player 7 (killed); Night 2: skip (skipped)".
KILLS_LINE = re.compile(r"^Team kills: (?P<entries>.*)$", re.M)
KILL_ENTRY = re.compile(rf"{_NIGHTS}: (?P<target>[^;]+?) \((?P<outcome>killed|survived|skipped)\)")


def format_suspicions(levels: Sequence[tuple[str, int]]) -> str:
    return "Your suspicions (0-10): " + ", ".join(f"{name}: {level}" for name, level in levels)


def format_protections(entries: Sequence[tuple[int, str]], grouped: bool = False) -> str:
    """The Doctor's protections by night, e.g. "Your protections: Player 6 (night 1)";
    ``grouped``: each player once, with their nights ("Player 6 (nights 1-3; 7)")."""
    if not grouped:
        return "Your protections: " + ", ".join(f"{target} (night {night})" for night, target in entries)
    nights: dict[str, list[int]] = {}
    for night, target in entries:
        nights.setdefault(target, []).append(night)
    return "Your protections: " + ", ".join(
        f"{target} ({format_nights(many).lower().replace(', ', '; ')})" for target, many in nights.items()
    )


def protection_nights(m: re.Match[str]) -> list[int]:
    """The nights a matched protection entry stands for."""
    return parse_numbers(m["nights"].replace(";", ","))


def format_kill(night: int | Sequence[int], target: str, outcome: str) -> str:
    """One entry of the Mafia's kills line, e.g. "Night 2: Player 3 (survived)"."""
    return f"{format_nights(night)}: {target} ({outcome})"


def format_round(phase: str, number: int) -> str:
    """The game-time line, e.g. "Round: Day 3" or "Round: Night 0"."""
    return f"Round: {phase} {number}"


def format_dead(entries: Sequence[tuple[str, str]]) -> str:
    """Dead players with how they died, e.g. "Dead: Player 3 (night 1), Player 5 (voted day 2)"."""
    if not entries:
        return f"Dead: {NONE}"
    return "Dead: " + ", ".join(f"{name} ({how})" for name, how in entries)


def format_nominees(names: Sequence[str]) -> str:
    return "Nominees: " + (", ".join(names) if names else NONE)


def format_tied(names: Sequence[str]) -> str:
    return "Tied players: " + ", ".join(names)


def format_ballots(label: str, ballots: Sequence[tuple[str, str]]) -> str:
    """Every ballot of a vote, e.g. "Votes: Player 1 -> Player 5, Player 2 -> skip"."""
    return f"{label}: " + ", ".join(f"{voter} -> {target}" for voter, target in ballots)


# Over old days written with ballots by seat number ("3,4>6": seats 3 and 4 voted for seat 6).
SEAT_LEGEND_LINE = re.compile(r"^Ballots by seat number", re.M)
SEAT_BALLOTS = re.compile(rf"(?:^|[(;]\s*)(?P<voters>{_NUMBERS})>(?P<target>\d+)(?=\s*[;)])")


def format_seat_legend(seats: Sequence[str]) -> str:
    """The legend of ballots by seat number: how one reads, which name each number stands for
    (one example where every name is "Player <seat>"), and that voters not listed skipped."""
    if all(name == f"Player {i}" for i, name in enumerate(seats, 1)):
        key = "seat 3 is Player 3"
    else:
        key = ", ".join(f"{i} {name}" for i, name in enumerate(seats, 1))
    return (
        f"Ballots by seat number ({key}): 1-3,6>2 is seats 1, 2, 3 and 6 voting for seat 2; others skipped."
    )


def seat_names(seats: Sequence[str]) -> dict[str, str]:
    """The name each seat number of ``format_seat_legend`` stands for."""
    return {str(i): name for i, name in enumerate(seats, 1)}


def parse_ballots(field: str) -> list[tuple[str, str]]:
    """The (voter, target) pairs of a ballots line's field, as written by ``format_ballots``."""
    pairs = []
    for part in split_names(field):
        voter, _, target = part.partition(" -> ")
        pairs.append((voter.strip(), target.strip()))
    return pairs


def format_night_death(night: int, victims: str | Sequence[str] | None) -> str:
    """A night's public outcome, e.g. "Night 2: Player 6 was killed." (``victims``: a list, or
    the names as ``named_deaths`` joins them)."""
    named = victims if isinstance(victims, str) or victims is None else named_deaths(victims)
    if named is None:
        return f"Night {night}: no one was killed."
    return f"Night {night}: {named} {'were' if ' and ' in named else 'was'} killed."


def format_proposal(speaker: str, target: str, text: str) -> str:
    """A Mafia kill proposal; ``text`` must already be made safe like a speech."""
    return f'- {speaker} proposed {target}: "{text}"'


def format_strategy(speaker: str, text: str) -> str:
    """A Mafia night-zero strategy note; ``text`` must already be made safe like a speech."""
    return f'- {speaker} wrote: "{text}"'


# Every whole-line pattern the engine writes; player text imitating one of them is neutralised.
ENGINE_LINE_PATTERNS: tuple[re.Pattern[str], ...] = (
    IDENTITY_LINE,
    TASK_LINE,
    TARGETS_LINE,
    LIVING_LINE,
    PARTNERS_LINE,
    RESULT_LINE,
    SPEECH_LINE,
    ROUND_LINE,
    DEAD_LINE,
    NOMINEES_LINE,
    TIED_LINE,
    BALLOTS_LINE,
    NIGHT_DEATH_LINE,
    PROPOSAL_LINE,
    STRATEGY_LINE,
    PERSONA_LINE,
    DAY_HEADER,
    DEFENSE_LINE,
    LAST_WORDS_LINE,
    CLAIM_LINE,
    ACCUSATION_LINE,
    SUSPICIONS_LINE,
    PROTECTIONS_LINE,
    KILLS_LINE,
)
