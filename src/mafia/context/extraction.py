"""Accusations and role claims read from a speech by keyword heuristics (deterministic, no model).

Intentionally simple and explainable: sentences are cut into clauses, player names are found by
exact match, and a clause accuses the players it names when its suspicion words outweigh its
defence words (a negation such as "not", "don't" or "no reason to" flips the word after it). A role
claim is a first-person statement of a role ("I am the Doctor", "as the Detective, I...") or a
role's night action told in the first person ("I investigated Player 3", "I protected Player 2");
negations, hypotheticals and claims reported about other players are not claims.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from mafia.rules import Role


def _words(text: str) -> frozenset[str]:
    """A word list written as one string (easier to read and edit than a list literal)."""
    return frozenset(text.split())


_ROLE_WORDS: tuple[tuple[Role, str], ...] = (
    (Role.DETECTIVE, r"detective|cop|investigator|sheriff|seer"),
    (Role.DOCTOR, r"doctor|doc|medic|healer|nurse"),
    (Role.TOWN, r"town(?:ie|sperson|sfolk|s ?person)?|villager|citizen|vanilla"),
    (Role.MAFIA, r"mafia|mafioso|godfather"),
)
_ROLE_ALT = "|".join(f"(?P<{role.name}>{words})" for role, words in _ROLE_WORDS)
_FILLER = (
    r"(?:(?:just|only|simply|really|actually|honestly|truly|indeed|definitely|certainly|"
    r"obviously|clearly|absolutely|genuinely|totally|literally|100%|the|a|an|one|your|plain|"
    r"simple|humble|regular|ordinary|real|true|lowly|innocent|loyal|good|proud|confirmed|"
    r"town(?=\s+(?:detective|cop|investigator|sheriff|doctor|doc|medic|healer)))\s+)*"
)
# "I am the Doctor", "I'm just a townie"; a following hyphen ("town-reading") is not a claim.
_I_AM = re.compile(rf"\b(?:i\s+am|i'm|im)\s+(?:{_FILLER})(?:{_ROLE_ALT})(?![-\w'])", re.I)
# "As the Detective, I checked..." (not "as the Detective said").
_AS_ROLE = re.compile(rf"\bas\s+(?:the|a|an|your)\s+(?:{_ROLE_ALT}),?\s+(?:i|my|i'm)\b", re.I)
# "..., just a regular town member" after a first-person denial.
_JUST_A = re.compile(rf"(?:^|[,;]\s*)(?:just|only|simply)\s+(?:a|an)\s+(?:\w+\s+)?(?:{_ROLE_ALT})\b", re.I)
# "I am the Mafia's worst nightmare: the Detective."
_NIGHTMARE = re.compile(rf"\bworst\s+nightmare\s*[:,-]\s*(?:the\s+)?(?:{_ROLE_ALT})\b", re.I)
_NAME = "§"  # names are masked as §k§ before the action patterns run
_CURLY_APOSTROPHE = "\u2019"  # read as "'" (after the names are masked)
_INVESTIGATED = re.compile(
    r"\bi(?:'ve|\s+have)?\s+(?:investigated|checked|inspected|looked\s+into)\s+§\d+§"
    r"|\bmy\s+(?:investigation|check|result)s?\s+(?:on|of|into|for)\s+§\d+§"
    r"|\bmy\s+next\s+check\b",
    re.I,
)
_PROTECTED = re.compile(
    r"\bi(?:'ve|\s+have)?\s+(?:been\s+)?(?:protected|protecting|saved|healed|guarded|guarding)"
    r"\s+(?:§\d+§|myself)"
    r"|\bthe\s+one\s+who\s+(?:saved|protected|healed)\b",
    re.I,
)
_HYPOTHETICAL = re.compile(r"^\s*(?:if|suppose|imagine|what if|pretend|hypothetically)\b", re.I)

_SENTENCE_CUT = re.compile(r"(?<=[.!?])\s+|\n+|(?<=[?!])(?=\S)")
_CLAUSE_CUT = re.compile(r",?\s+\b(?:but|however|though|although|whereas|while)\b\s*,?|;|:\s+", re.I)
_TOKEN = re.compile(r"§\d+§|[a-z0-9]+(?:['-][a-z]+)*", re.I)

# Words that point suspicion at the players a clause names (+1 each).
_SUSPICION = _words(
    "suspicious suspect suspected suspects suspicion sus shady scummy scum scumbag liar lying "
    "lie lies lied fake fakeclaim fake-claiming hiding misdirect misdirecting misdirection "
    "deflect deflecting deflection dodging dodge dodges doubt doubts skeptical sceptical "
    "untrustworthy evil guilty slip slipped flip-flopped flipflopped contradiction contradicts "
    "contradicted inconsistent wolf wolfy bussing accuse accusing accused accusation weird "
    "convenient smells fishy sketchy odd strange twisting twist manipulating manipulative "
    "framing concern concerned concerning worry worries worried worrying"
)
# "Mafia" accuses only when predicated ("X is Mafia", "X could be Mafia", "like a Mafia team").
_MAFIA_WORDS = frozenset({"mafia", "mafioso"})
_PREDICATE = _words(
    "is are be being was were 's 're like as seems looks definitely probably likely surely "
    "clearly obviously certainly only a the one must totally"
)
# Words that speak for the players a clause names (-1 each).
_DEFENCE = _words(
    "trust trusted trustworthy innocent town townie clear cleared clearing clean believe "
    "convincing honest transparent helpful consistent reliable genuine sincere safe "
    "confirmed fair"
)
_NEGATORS = _words(
    "not no never nobody none nothing cannot can't don't doesn't isn't aren't wasn't weren't "
    "wouldn't won't didn't shouldn't couldn't hardly stop without neither nor n't"
)
# Negations that cover the rest of their clause ("I don't think X or Y are Mafia").
_SCOPE_NEGATORS = re.compile(
    r"\bno\s+(?:proof|evidence|reason|sign|indication)\b"
    r"|\b(?:don't|do\s+not|doesn't|didn't|never|can't|cannot)\s+"
    r"(?:think|believe|suspect|feel|see|say)\b",
    re.I,
)
_CONDITIONAL = re.compile(r"\b(?:if|unless)\b[^,]*", re.I)
_PRONOUNS = _words(
    "they them their they're they've he him his he's she her she's you your you're yourself "
    "that that's this those these"
)
_PRONOUN_KEY = "\0pronoun"
_SECOND_PERSON = _words("you your you're yourself")
_ADDRESS = re.compile(r"^\s*(?P<name>§\d+§)\s*,")
_REPORTING = _words(
    "said says claimed claims claiming accused accuses told thinks thought suspects believes "
    "argued mentioned called"
)
# Direct pushes at one named player: "vote Player 2", "my vote goes to X", "eliminate X".
_PUSH = re.compile(
    r"\b(?:vote|voting|nominate|nominating|eliminate|eliminating|lynch|lynching|execute|"
    r"(?:my\s+)?(?:vote|nomination)\s+(?:goes\s+|is\s+)?(?:to|on|for)|calling|vote\s+out|"
    r"vote\s+for|voting\s+for|voting\s+out|my\s+top\s+suspect\s+is|leaning\s+towards?)"
    r"\s+(?:to\s+eliminate\s+|out\s+)?(?P<name>§\d+§|them|him|her)",
    re.I,
)
_PUSH_AFTER = re.compile(r"(?P<name>§\d+§)(?:\s+\w+){0,3}?\s+(?:my\s+top\s+suspect|out\s+as\s+fake)", re.I)
_OFF = re.compile(r"\b(?:feels?|seems?|looks?|is|something)\s+(?:\w+\s+)?off\b", re.I)
_NEGATION_WINDOW = 4


@dataclass(frozen=True)
class Extraction:
    """What one speech asserts: the players it accuses and the roles its speaker claims."""

    accused: tuple[str, ...]
    claims: tuple[Role, ...]


def _name_pattern(players: Sequence[str]) -> re.Pattern[str]:
    names = sorted(players, key=len, reverse=True)
    alternation = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?<![\w§])(?:{alternation})(?![\w§])", re.I)


@lru_cache(maxsize=64)
def _matcher(players: tuple[str, ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    return _name_pattern(players), {p.lower(): p for p in players}


def _mask(text: str, players: tuple[str, ...]) -> tuple[str, list[str]]:
    """``text`` with each player name replaced by §k§, and the names in that order."""
    pattern, canonical = _matcher(players)
    found: list[str] = []

    def sub(match: re.Match[str]) -> str:
        found.append(canonical[match.group(0).lower()])
        return f"{_NAME}{len(found) - 1}{_NAME}"

    return pattern.sub(sub, text), found


def _is_negator(token: str) -> bool:
    """Whether a token negates what follows it ("not", "never", "don't", any "...n't")."""
    word = token.lower()
    return word in _NEGATORS or word.endswith("n't")


def _denied(sentence: str, start: int) -> bool:
    """Whether a claim at ``start`` is under a denial in its own phrase ("I never said I...")."""
    phrase = re.split(r"[,;]", sentence[:start])[-1]
    before = _TOKEN.findall(phrase)[-4:]
    return any(_is_negator(t) for t in before)


def _claims(masked: str) -> list[Role]:
    roles: list[Role] = []
    for sentence in _SENTENCE_CUT.split(masked):
        # Hypotheticals and questions ("Am I the Doctor?", "...too, apparently?") claim nothing.
        if not sentence or _HYPOTHETICAL.match(sentence) or sentence.rstrip().endswith("?"):
            continue
        for pattern in (_I_AM, _AS_ROLE, _JUST_A, _NIGHTMARE):
            for match in pattern.finditer(sentence):
                # "..., just a town member" follows denials of other roles by design.
                if pattern is _JUST_A or not _denied(sentence, match.start()):
                    roles.extend(role for role in Role if match.group(role.name))
        for pattern, role in ((_INVESTIGATED, Role.DETECTIVE), (_PROTECTED, Role.DOCTOR)):
            found = pattern.search(sentence)
            if found and not _denied(sentence, found.start()):
                roles.append(role)
    return list(dict.fromkeys(roles))


def _polarity(tokens: list[str], scoped_negation: bool) -> int:
    """Suspicion minus defence words in a segment, each flipped by a negator shortly before it."""
    score = 0
    last_negator = -100
    for i, token in enumerate(tokens):
        if _is_negator(token):
            last_negator = i
            continue
        word = token.lower()
        sign = 0
        if word in _SUSPICION:
            sign = 1
        elif word in _MAFIA_WORDS:
            before = [t.lower() for t in tokens[max(0, i - 3) : i]]
            predicated = any(t in _PREDICATE or t.endswith(("'re", "'s")) for t in before)
            sign = 1 if predicated else 0
        elif word in _DEFENCE:
            sign = -1
        if sign == 0:
            continue
        if scoped_negation or i - last_negator <= _NEGATION_WINDOW:
            sign = -sign
        score += sign
    return score


def _is_report(masked_clause: str) -> bool:
    """A clause reporting what another player said or did ("Player 6 accused Player 8")."""
    words = masked_clause.split()
    for i, word in enumerate(words[:-1]):
        if word.endswith(_NAME) and words[i + 1].lower().strip(",") in _REPORTING:
            return True
    return False


def _pushes(segment: str, names: list[str]) -> dict[str, int]:
    """Direct pushes at one player in a segment ("vote Player 2"), negated by "don't vote"."""
    found: dict[str, int] = {}
    for pattern in (_PUSH, _PUSH_AFTER):
        for match in pattern.finditer(segment):
            target = match.group("name")
            before = _TOKEN.findall(segment[: match.start()])[-3:]
            negated = any(_is_negator(t) for t in before)
            key = names[int(target.strip(_NAME))] if target.startswith(_NAME) else _PRONOUN_KEY
            found[key] = -2 if negated else 2
    return found


@dataclass
class _Reader:
    """Running state while reading one speech: who was named last and who is being addressed."""

    names: list[str]
    speaker: str
    recent: tuple[str, ...] = ()
    addressee: str | None = None

    def named_in(self, tokens: list[str]) -> list[str]:
        named = [self.names[int(t.strip(_NAME))] for t in tokens if t.startswith(_NAME)]
        return [n for n in named if n != self.speaker]

    def referents(self, tokens: list[str], clause_words: set[str]) -> list[str]:
        """Whom a pronoun-only segment is about: the addressee if the clause says "you", else
        the players named last."""
        words = {t.lower() for t in tokens}
        if not words & _PRONOUNS:
            return []
        if clause_words & _SECOND_PERSON and self.addressee is not None:
            return [self.addressee]
        return list(self.recent)


def _clause_verdicts(clause: str, reader: _Reader, verdict: dict[str, int]) -> None:
    segments = [seg for seg in clause.split(",") if seg.strip()]
    scoped = bool(_SCOPE_NEGATORS.search(clause))
    clause_words = {t.lower() for t in _TOKEN.findall(clause)}
    clause_named: list[str] = []
    listing = False  # the previous segment only named players: a list still being written
    for seg in segments:
        tokens = _TOKEN.findall(seg)
        named = reader.named_in(tokens)
        # A condition ("if Player 4 is a fake claim") asserts nothing about who it names.
        asserted = _TOKEN.findall(_CONDITIONAL.sub(" ", seg))
        base = _polarity(asserted, scoped) + (1 if _OFF.search(seg) else 0)
        pushes = _pushes(seg, reader.names)
        if named and not base and not pushes:
            clause_named = [*clause_named, *named] if listing else named
            listing = True
            continue
        targets = named or clause_named or reader.referents(tokens, clause_words)
        for name in targets:
            score = base + pushes.get(name, pushes.get(_PRONOUN_KEY, 0) if not named else 0)
            if score:
                verdict[name] = 1 if score > 0 else -1
        if named:
            clause_named = named
        listing = False
    if clause_named:
        reader.recent = tuple(clause_named)


def _accusations(masked: str, names: list[str], speaker: str) -> list[str]:
    verdict: dict[str, int] = {}
    reader = _Reader(names=names, speaker=speaker)
    for sentence in _SENTENCE_CUT.split(masked):
        opening = _ADDRESS.match(sentence)
        if opening:
            reader.addressee = names[int(opening.group("name").strip(_NAME))]
        for clause in _CLAUSE_CUT.split(sentence):
            if not clause or not clause.strip():
                continue
            if _is_report(clause):
                reader.recent = tuple(reader.named_in(_TOKEN.findall(clause))) or reader.recent
                continue
            _clause_verdicts(clause, reader, verdict)
    ordered = dict.fromkeys(n for n in names if n != speaker)
    return [n for n in ordered if verdict.get(n, 0) > 0]


@lru_cache(maxsize=16_384)
def _extract(text: str, speaker: str, players: tuple[str, ...]) -> Extraction:
    masked, names = _mask(text, players)
    # Typographic apostrophes read as ASCII ones ("I’m", "don’t"); names are masked first, so
    # they are matched as written.
    masked = masked.replace(_CURLY_APOSTROPHE, "'")
    return Extraction(accused=tuple(_accusations(masked, names, speaker)), claims=tuple(_claims(masked)))


def extract(text: str, speaker: str, players: Sequence[str]) -> Extraction:
    """The accusations and role claims ``speaker`` makes in ``text`` (``players``: every name)."""
    return _extract(text, speaker, tuple(players))


def clear_cache() -> None:
    """Forget cached extractions (for cold-build benchmarks)."""
    _extract.cache_clear()
