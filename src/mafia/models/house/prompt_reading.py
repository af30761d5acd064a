"""Reading a rendered prompt: the house model knows exactly what the prompt's lines say.

Everything here is a pure function of the prompt text. The fixed lines are parsed with the patterns
of ``mafia.prompts.anchors`` (the context builder writes them with the matching ``format_*``
helpers); free text (speeches) is read with a few keyword heuristics for role claims, investigation
reports and accusations. Any line may be missing: the reader then simply knows less.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from mafia.game.rules import Role
from mafia.models.house.text_reading import TextReading, read_text
from mafia.prompts import anchors as a

# Sections written by the stable (system) part: rules text may show example lines, so the
# dynamic lines (speeches, votes, results...) are never read from them.
_STATIC_SECTIONS = frozenset({a.IDENTITY, a.RULES})


class Pointing(NamedTuple):
    """A digest line: ``accuser`` nominated (the engine's nomination) or accused ``accused`` on ``day``."""

    accuser: str
    accused: str
    day: int
    nominated: bool


class SaidLine(NamedTuple):
    """A speech, defense or last words as it appears in the prompt."""

    speaker: str
    text: str
    nomination: str | None
    day: int  # 0 when the transcript has no day headers
    kind: str  # "speech", "defense" or "last_words"


class Proposal(NamedTuple):
    """A Mafia kill proposal seen in the prompt (Mafia only: tonight's Round 1 proposals)."""

    speaker: str
    target: str
    message: str


@dataclass(slots=True)
class PromptView:
    """Everything the house model took from one prompt."""

    me: str = ""
    role: str = Role.TOWN
    persona: str = ""
    action: str = ""  # an ActionKind value, lower case, or "" when the prompt names none
    phase: str = ""  # "Day", "Night" or ""
    round: int = 0
    living: list[str] = field(default_factory=list)
    dead: list[tuple[str, str, int]] = field(default_factory=list)  # name, "night"|"day", round
    targets: list[str] | None = None
    tied: list[str] = field(default_factory=list)
    nominees: list[str] | None = None  # today's nominees, when the state lists them
    partners: list[str] = field(default_factory=list)
    living_partners: list[str] = field(default_factory=list)
    results: list[tuple[int, str, str]] = field(default_factory=list)  # night, target, result
    said: list[SaidLine] = field(default_factory=list)
    votes: list[tuple[str, str, int]] = field(default_factory=list)  # voter, target, day
    proposals: list[Proposal] = field(default_factory=list)
    plans: list[tuple[str, str]] = field(default_factory=list)
    claims: list[tuple[str, str, int]] = field(default_factory=list)  # ledger: player, role, day
    accusations: list[Pointing] = field(default_factory=list)  # digest lines of days not verbatim
    memory_levels: dict[str, int] = field(default_factory=dict)
    kills: list[tuple[str, str]] = field(default_factory=list)  # Mafia memory: target, outcome
    protections: list[tuple[int, str]] = field(default_factory=list)  # Doctor memory: night, who
    quiet_nights: set[int] = field(default_factory=set)  # nights known to have ended with no death
    dead_listed: bool = False  # whether the prompt had a "Dead:" line (then it lists every death)
    game_over: bool = False
    today: int = 0
    names: tuple[str, ...] = ()  # every player name the prompt mentions in a fixed line

    _readings: list[tuple[SaidLine, TextReading]] | None = None

    def readings(self) -> list[tuple[SaidLine, TextReading]]:
        """Each said line with what its text says (read once per line and game, then cached)."""
        if self._readings is None:
            key = "\x1f".join(self.names)  # one string: its hash is computed once, not per line
            self._readings = [(s, read_text(s.speaker, s.text, key)) for s in self.said]
        return self._readings


def _names_of(field_text: str) -> list[str]:
    return [] if field_text.strip().lower() == a.NONE else a.split_names(field_text)


def _is_header(line: str) -> bool:
    return line.startswith("[") and line.endswith("]") and bool(a.SECTION_HEADER.match(line))


def _sections(text: str) -> list[tuple[str, str]]:
    """(header, body) for each section, in order; text before the first header has header ""."""
    out: list[tuple[str, str]] = []
    header, start, pos = "", 0, 0
    if text.startswith("["):
        end = text.find("\n")
        end = len(text) if end < 0 else end
        if _is_header(text[:end]):
            header, start, pos = text[:end], end + 1, end
    while True:
        i = text.find("\n[", pos)
        if i < 0:
            break
        end = text.find("\n", i + 1)
        end = len(text) if end < 0 else end
        line = text[i + 1 : end]
        if _is_header(line):
            out.append((header, text[start:i]))
            header, start = line, end + 1
        pos = end
    out.append((header, text[start:]))
    return out


def moment_text(text: str) -> str:
    """The parts of a prompt that name its decision's moment and that no context policy changes:
    the state, the identity's first two lines (seat, role, persona) and the task. Two policies'
    prompts at one moment of one game give the same text; a prompt without those sections, itself.
    """
    kept: list[str] = []
    for header, body in _sections(text):
        if header == a.STATE or header.startswith(a.TASK_PREFIX):
            kept.append(f"{header}\n{body.strip()}")
        elif header == a.IDENTITY:
            kept.append(f"{header}\n" + "\n".join(body.strip().splitlines()[:2]))
    return "\n".join(kept) if kept else text


class _Section(NamedTuple):
    """What one section's lines say (cached: every player's prompt shares the transcript)."""

    said: tuple[tuple[str, SaidLine], ...]  # (raw line, said line)
    ballots: tuple[tuple[str, tuple[tuple[str, str, int], ...]], ...]  # (raw line, ballots)
    results: tuple[tuple[int, str, str], ...]
    proposals: tuple[Proposal, ...]
    plans: tuple[tuple[str, str], ...]
    claims: tuple[tuple[str, str, int], ...]
    accusations: tuple[Pointing, ...]
    nights: tuple[tuple[int, str | None], ...]  # night outcomes: (night, victim or None)
    fixed: tuple[tuple[str, str], ...]  # (line kind, line) for the state and task lines
    last_day: int  # the last "Day N" line's N (0 if none)


_FIXED_PREFIXES = (
    ("Valid targets: ", "targets"),
    ("Round: ", "round"),
    ("Living: ", "living"),
    ("Dead: ", "dead"),
    ("Your Mafia partners: ", "partners"),
    ("Tied players: ", "tied"),
    ("Nominees: ", "nominees"),
    ("Team kills: ", "kills"),
)


@lru_cache(maxsize=512)
def _read_section(body: str) -> _Section:
    said: list[tuple[str, SaidLine]] = []
    ballots: list[tuple[str, tuple[tuple[str, str, int], ...]]] = []
    results: list[tuple[int, str, str]] = []
    proposals: list[Proposal] = []
    plans: list[tuple[str, str]] = []
    claims: list[tuple[str, str, int]] = []
    accusations: list[Pointing] = []
    nights: list[tuple[int, str | None]] = []
    fixed: list[tuple[str, str]] = []
    day = 0  # from the nearest "Day N" line above
    for line in body.split("\n"):
        if not line:
            continue
        if line.startswith("- "):
            one = _said(line, day)
            if one is not None:
                said.append((line, one))
            elif line.startswith("- Night "):
                m = a.RESULT_LINE.match(line)
                if m:
                    results.append((int(m["night"]), m["target"], m["result"]))
                else:
                    _night_outcome(line[2:], nights)  # a night's outcome in recent events
            elif " proposed " in line:
                m = a.PROPOSAL_LINE.match(line)
                if m:
                    proposals.append(Proposal(m["speaker"], m["target"], m["text"]))
            elif " wrote: " in line:
                m = a.STRATEGY_LINE.match(line)
                if m:
                    plans.append((m["speaker"], m["text"]))
            elif " claimed " in line:
                m = a.CLAIM_LINE.match(line)
                if m:
                    claims.append((m["player"], m["role"], int(m["day"] or 0)))
            elif " accused " in line or " nominated " in line:
                m = a.ACCUSATION_LINE.match(line) or a.NOMINATION_LINE.match(line)
                if m:
                    nominated = m.re is a.NOMINATION_LINE
                    accusations.append(Pointing(m["accuser"], m["accused"], int(m["day"] or day), nominated))
        elif line.startswith("Day "):
            m = a.DAY_HEADER.match(line)
            if m:
                day = int(m["day"])
        elif line.startswith(("Votes: ", "Revote votes: ")):
            m = a.BALLOTS_LINE.match(line)
            if m:
                pairs = a.parse_ballots(m["ballots"])  # "Votes: pending" has no pairs
                ballots.append((line, tuple((v, t, day) for v, t in pairs if v and t)))
        elif a.GAME_OVER_HINT in line:
            fixed.append(("game_over", line))
        elif line.startswith("Night "):
            _night_outcome(line, nights)
        else:
            for prefix, kind in _FIXED_PREFIXES:
                if line.startswith(prefix):
                    fixed.append((kind, line))
                    break
    return _Section(
        tuple(said),
        tuple(ballots),
        tuple(results),
        tuple(proposals),
        tuple(plans),
        tuple(claims),
        tuple(accusations),
        tuple(nights),
        tuple(fixed),
        day,
    )


def _night_outcome(line: str, nights: list[tuple[int, str | None]]) -> None:
    """Add the night outcome ``line`` states (if it is one) as (night, victim or None), one entry
    a victim of a night of several deaths ("Player 2 and Player 6 were killed")."""
    m = a.NIGHT_DEATH_LINE.match(line)
    if m:
        # The pattern's victim group also matches "no one" (its first branch is tried first).
        victims = m["victim"].split(" and ") if m["victim"] not in (None, "no one") else [None]
        nights.extend((int(m["night"]), victim) for victim in victims)


@lru_cache(maxsize=256)
def _read_transcript(body: str) -> tuple[_Section, ...]:
    """The transcript's blocks (blank-line separated: one day each), day-stamped. Cached whole
    (every ballot prompt shows the same transcript) and per block (a day in progress grows speech
    by speech while the days before it stay the same)."""
    out: list[_Section] = []
    day = 0
    for block in body.split("\n\n"):
        sec = _read_section(block)
        undated = any(not s.day for _, s in sec.said) or any(
            not d for _, bs in sec.ballots for _v, _t, d in bs
        )
        if day and undated:
            # Lines above a block's first "Day N" line belong to the day before it.
            said = tuple((raw, s if s.day else s._replace(day=day)) for raw, s in sec.said)
            ballots = tuple((r, tuple((v, t, d or day) for v, t, d in b)) for r, b in sec.ballots)
            sec = sec._replace(said=said, ballots=ballots)
        out.append(sec)
        day = sec.last_day or day
    return tuple(out)


def _line_after(text: str, prefix: str) -> str | None:
    """The rest of the first line of ``text`` that starts with ``prefix``."""
    i = 0 if text.startswith(prefix) else text.find("\n" + prefix) + 1
    if i < 0 or (i == 0 and not text.startswith(prefix)):
        return None
    end = text.find("\n", i)
    return text[i + len(prefix) : end if end >= 0 else len(text)]


@dataclass(slots=True)
class _Gathered:
    """What the sections say, gathered in prompt order before the view is finished."""

    transcript_lines: set[str] = field(default_factory=set)  # raw said and ballot lines
    said_elsewhere: list[tuple[str, SaidLine]] = field(default_factory=list)
    ballots_elsewhere: list[tuple[str, tuple[tuple[str, str, int], ...]]] = field(default_factory=list)
    fixed: dict[str, str] = field(default_factory=dict)  # line kind -> line
    night_deaths: list[tuple[int, str | None]] = field(default_factory=list)
    results: dict[tuple[int, str], str] = field(default_factory=dict)  # (night, target) -> result
    memory: str = ""


def read_prompt(text: str) -> PromptView:
    """Parse the prompt text (all messages joined) into a ``PromptView``.

    The text is cut into sections at their header lines. The identity and rules sections are read
    only for the identity and persona lines (rules may show example lines); every other section
    is read line by line, dispatching on each line's opening words and matching the anchor pattern
    on that line alone. Section parses are cached by their text; the transcript is parsed a block
    (blank-line separated: one day each) at a time, so the days already played stay cached while
    today's block grows speech by speech. A prompt without section headers is read whole, as a
    transcript.
    """
    view = PromptView()
    _read_identity(view, text)
    got = _Gathered()
    for header, body in _sections(text):
        _gather(view, got, header, body)
    view.results = [(night, target, result) for (night, target), result in got.results.items()]
    _read_fixed(view, got.fixed, got.night_deaths)
    view.today = view.round if view.phase == "Day" else max((s.day for s in view.said), default=0)
    _add_recent(view, got)
    if got.memory.strip():
        _read_memory(view, got.memory)
    view.names = _mentioned(view)
    return view


def _read_identity(view: PromptView, text: str) -> None:
    """The "You are ..." line (name and role) and the persona line, wherever they stand."""
    identity = _line_after(text, "You are ")
    if identity is not None:
        m = a.IDENTITY_LINE.match("You are " + identity)
        if m:
            view.me, view.role = m["name"], m["role"]
    persona = _line_after(text, "Your persona: ")
    if persona is not None:
        view.persona = persona.strip()


def _gather(view: PromptView, got: _Gathered, header: str, body: str) -> None:
    """Take in one section: memory is kept for last, the task header names the action, the
    transcript's lines go straight to the view, other sections' said and ballot lines wait."""
    if header in _STATIC_SECTIONS:
        return
    if header == a.MEMORY:
        got.memory += body
        return
    is_task = header.startswith(a.TASK_PREFIX)
    if is_task:
        view.action = header[len(a.TASK_PREFIX) : -1].lower()
    in_transcript = header in (a.TRANSCRIPT, "")
    for sec in _read_transcript(body) if in_transcript else (_read_section(body),):
        if in_transcript:
            for raw, said in sec.said:
                got.transcript_lines.add(raw)
                view.said.append(said)
            for raw, ballots in sec.ballots:
                got.transcript_lines.add(raw)
                view.votes.extend(ballots)
        else:
            got.said_elsewhere.extend(sec.said)
            got.ballots_elsewhere.extend(sec.ballots)
        _gather_lines(view, got, sec, is_task)


def _gather_lines(view: PromptView, got: _Gathered, sec: _Section, is_task: bool) -> None:
    """A section's results (first one wins), proposals, plans, ledger lines, night outcomes and
    fixed lines (the first of each kind, but the task's own "Valid targets" line wins)."""
    for night, target, result in sec.results:
        got.results.setdefault((night, target), result)
    view.proposals.extend(sec.proposals)
    view.plans.extend(sec.plans)
    view.claims.extend(sec.claims)
    view.accusations.extend(sec.accusations)
    got.night_deaths.extend(sec.nights)
    for kind, line in sec.fixed:
        if kind == "targets":
            got.fixed["targets"] = line
            if is_task:
                got.fixed["task_targets"] = line
        else:
            got.fixed.setdefault(kind, line)


def _add_recent(view: PromptView, got: _Gathered) -> None:
    """Said and ballot lines found only outside the transcript (recent events) are today's."""
    for raw, said in got.said_elsewhere:
        if raw not in got.transcript_lines:
            got.transcript_lines.add(raw)
            view.said.append(said._replace(day=view.today))
    for raw, ballots in got.ballots_elsewhere:
        if raw not in got.transcript_lines:
            got.transcript_lines.add(raw)
            view.votes.extend((v, t, view.today) for v, t, _ in ballots)


def _mentioned(view: PromptView) -> tuple[str, ...]:
    """Every player name the view holds (living, dead, partners, targets, speakers, me), sorted."""
    names: dict[str, None] = {}
    for group in (view.living, [d[0] for d in view.dead], view.partners, view.targets or []):
        for n in group:
            if n != "skip":
                names[n] = None
    for said in view.said:
        names[said.speaker] = None
    if view.me:
        names[view.me] = None
    return tuple(sorted(names))


def _field(pattern: re.Pattern[str], group: str, line: str) -> str:
    """The ``group`` of an anchor ``pattern`` on ``line`` (a line picked by the pattern's prefix)."""
    m = pattern.match(line)
    return m[group] if m else ""


def _read_fixed(view: PromptView, fixed: dict[str, str], night_deaths: list[tuple[int, str | None]]) -> None:
    chosen = fixed.get("task_targets") or fixed.get("targets")
    if chosen is not None:
        view.targets = _names_of(_field(a.TARGETS_LINE, "targets", chosen))
    m = a.ROUND_LINE.match(fixed.get("round", ""))
    if m:
        view.phase, view.round = m["phase"], int(m["number"])
    if "living" in fixed:
        view.living = _names_of(_field(a.LIVING_LINE, "names", fixed["living"]))
    if "dead" in fixed:
        view.dead_listed = True
        view.dead = [
            (d["name"], "night" if d["how"] == "night" else "day", int(d["round"]))
            for d in a.DEAD_ENTRY.finditer(_field(a.DEAD_LINE, "entries", fixed["dead"]))
        ]
    living = set(view.living)
    for night, victim in night_deaths:
        if not victim:
            view.quiet_nights.add(night)
        elif victim not in living and all(d[0] != victim for d in view.dead):
            view.dead.append((victim, "night", night))
    view.dead = [d for d in view.dead if d[0] not in living]
    if "partners" in fixed:
        _read_partners(view, fixed["partners"])
    if "kills" in fixed:
        _read_kills(view, fixed["kills"])
    if "tied" in fixed:
        view.tied = _names_of(_field(a.TIED_LINE, "names", fixed["tied"]))
    if "nominees" in fixed:
        view.nominees = _names_of(_field(a.NOMINEES_LINE, "names", fixed["nominees"]))
    view.game_over = "game_over" in fixed


def _said(line: str, day: int) -> SaidLine | None:
    if ' said: "' in line:
        m = a.SPEECH_LINE.match(line)
        if m:
            return SaidLine(m["speaker"], m["text"], m["nomination"], day, "speech")
    elif ' defended: "' in line:
        m = a.DEFENSE_LINE.match(line)
        if m:
            return SaidLine(m["speaker"], m["text"], None, day, "defense")
    elif ' last words: "' in line:
        m = a.LAST_WORDS_LINE.match(line)
        if m:
            return SaidLine(m["speaker"], m["text"], None, day, "last_words")
    return None


def _read_partners(view: PromptView, line: str) -> None:
    m = a.PARTNERS_LINE.match(line)
    if not m:
        return
    for part in a.split_names(m["partners"]):
        name, _, status = part.rpartition(" (")
        if not name:
            name, status = part, "alive)"
        view.partners.append(name)
        if status.startswith("alive"):
            view.living_partners.append(name)


def _read_memory(view: PromptView, memory_text: str) -> None:
    """Suspicion levels, the Doctor's protections and the team's night-zero plans."""
    plans: list[tuple[str, str]] = []
    for line in memory_text.split("\n"):
        if line.startswith("Your suspicions "):
            m = a.SUSPICIONS_LINE.match(line)
            if m:
                for e in a.SUSPICION_ENTRY.finditer(m["entries"]):
                    view.memory_levels[e["name"]] = int(e["level"])
        elif line.startswith("Your protections: "):
            m = a.PROTECTIONS_LINE.match(line)
            if m:
                for e in a.NIGHT_ENTRY.finditer(m["entries"]):
                    view.protections.extend((night, e["name"]) for night in a.protection_nights(e))
        elif " wrote: " in line:
            m = a.STRATEGY_LINE.match(line)
            if m:
                plans.append((m["speaker"], m["text"]))
    if not view.plans:
        view.plans = plans


def _read_kills(view: PromptView, line: str) -> None:
    m = a.KILLS_LINE.match(line)
    if m:
        view.kills = [(e["target"], e["outcome"]) for e in a.KILL_ENTRY.finditer(m["entries"])]
