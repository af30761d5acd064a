"""Accusations and role claims read from a speech by keyword heuristics (deterministic, no model).

Intentionally simple and explainable: sentences are cut into clauses, player names are found by
exact match, and a clause accuses the players it names when its suspicion words outweigh its
defence words (a negation such as "not", "don't" or "no reason to" flips the word after it). A role
claim is a first-person statement of a role, present or past ("I am the Doctor", "I was Town",
"as the Detective, I...", "Detective here"), a bare role fragment ("Just town."), or a role's night
action told in the first person or as a fragment ("I investigated Player 3", "Protected Player 2");
negations, hypotheticals and claims reported about other players are not claims. ``claimed_role``
reads a structured claim (a role named by the speaker) with the same role words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from mafia.game.rules import ROLES, SPOKEN_CLAIMS, Role


def _words(text: str) -> frozenset[str]:
    """A word list written as one string (easier to read and edit than a list literal)."""
    return frozenset(text.split())


_ROLE_WORDS: tuple[tuple[Role, str], ...] = tuple((role, ROLES[role].claim_words) for role in SPOKEN_CLAIMS)
_ROLE_ALT = "|".join(f"(?P<{role.name}>{words})" for role, words in _ROLE_WORDS)
# The roles a bare fragment can claim ("Just town.", "Detective here"): "Mafia." alone is a read.
_TOWN_ROLE_ALT = "|".join(
    f"(?P<{role.name}>{words})" for role, words in _ROLE_WORDS if role is not Role.MAFIA
)
_FILLER = (
    r"(?:(?:just|only|simply|really|actually|honestly|truly|indeed|definitely|certainly|"
    r"obviously|clearly|absolutely|genuinely|totally|literally|100%|the|a|an|one|your|plain|"
    r"simple|humble|regular|ordinary|real|true|lowly|innocent|loyal|good|proud|confirmed|still|"
    r"always|also|in\s+fact|vanilla|normal|basic|mere|loud|quiet|boring|town-(?:aligned|sided)|pro-town|"
    r"town(?=\s+(?:detective|cop|investigator|sheriff|doctor|doc|medic|healer)))"
    r",?\s+)*"
)
_ROLE_END = r"(?![-\w'])"  # "town-reading", "the Doctor's pick" are not claims
# "I am the Doctor", "I'm just a townie", "I was Town", "I've been the Detective all along"
# ("I is" is the speaker naming themself: "Player 4 is a humble villager").
_I_AM = re.compile(
    rf"\b(?:i\s+am|i'm|im|i\s+was|i\s+is|i(?:'ve|\s+have|'d|\s+had)\s+been)\s+(?:{_FILLER})(?:{_ROLE_ALT}){_ROLE_END}",
    re.I,
)
# "As the Detective, I checked..." (not "as the Detective said").
_AS_ROLE = re.compile(rf"\bas\s+(?:the\s+|a\s+|an\s+|your\s+)?(?:{_ROLE_ALT}),?\s+(?:i|my|i'm|i've)\b", re.I)
# "Speaking as Doctor", "coming out as the cop", "I claim Doctor", "claiming Detective",
# "my role is Town": a role named by a word that makes it a claim.
_CLAIM_VERBS = (
    r"\b(?:speaking|coming\s+out|came\s+out|come\s+out|outing\s+myself|reveal(?:ing)?\s+myself)\s+as\s+",
    r"(?:\bi(?:'m|\s+am|'ll|\s+will|\s+have\s+to|\s+must|'m\s+going\s+to|\s+am\s+going\s+to)?\s+"
    r"(?:hard\s+|now\s+)?|^\s*(?:hard\s+)?)claim(?:ing)?(?:\s+now)?(?:\s*[:\u2014\u2013-])?\s*(?:to\s+be\s+)?",
    r"\bmy\s+role\s+(?:is|was|:)\s*",
    r"\b(?:that|which|this)\s+makes\s+me\s+",
)
_NAMED_ROLE = tuple(
    re.compile(rf"{verb}(?:{_FILLER})(?:{_ROLE_ALT}){_ROLE_END}", re.I) for verb in _CLAIM_VERBS
)
# "Detective here, again", "Doctor here." (a role introducing its speaker).
_ROLE_HERE = re.compile(rf"(?:^|[,;:]\s*)(?:{_FILLER})(?:{_TOWN_ROLE_ALT})\s+here\b", re.I)
# What may open a bare role: "For the record: cop.", "Lily here, plain townie." (the speaker's
# own name reads as "I").
_LEAD_IN = (
    r"(?:(?:for\s+the\s+record|fwiw|full\s+disclosure|to\s+be\s+clear|ok(?:ay)?|so|well|i\s+here|last\s+words)"
    r"\s*[:,\u2014\u2013-]+\s*)?"
)
# A sentence that is only a role: "Just town.", "Plain villager!", "Town, for the record."
_BARE_TAIL = (
    r"(?:\s+(?:player|member|role))?"
    r"(?:,?\s+(?:again|still|too|though|honestly|really|by\s+the\s+way|for\s+the\s+record|tbh|ngl|imo|lol))*"
    r"\s*[.!]*\s*$"
)
_BARE_ROLE = re.compile(rf"^\s*{_LEAD_IN}(?:{_FILLER})(?:{_TOWN_ROLE_ALT}){_BARE_TAIL}", re.I)
_BARE_MAFIA = re.compile(rf"^\s*{_LEAD_IN}(?:{_FILLER})(?P<MAFIA>mafia|scum){_BARE_TAIL}", re.I)
# "Investigator claim.", "medic claim: protected 1 n1" (a claim announced by name).
_ROLE_CLAIM = re.compile(
    rf"^\s*{_LEAD_IN}(?:hard\s+|full\s+)?(?:{_ROLE_ALT})\s+claim\b\s*(?:[.:,!\u2014\u2013-]|$)", re.I
)
# A structured claim's value: a role word, optionally with an article or "I am" ("the Doctor").
_CLAIM_VALUE = re.compile(
    rf"^\s*(?:i\s+am\s+|i'm\s+)?(?:the\s+|a\s+|an\s+)?(?:{_ROLE_ALT})(?:\s+(?:role|player))?\s*[.!]?\s*$",
    re.I,
)
# "..., just a regular town member" after a first-person denial.
_JUST_A = re.compile(rf"(?:^|[,;]\s*)(?:just|only|simply)\s+(?:a|an)\s+(?:\w+\s+)?(?:{_ROLE_ALT})\b", re.I)
# "I am the Mafia's worst nightmare: the Detective."
_NIGHTMARE = re.compile(rf"\bworst\s+nightmare\s*[:,-]\s*(?:{_FILLER})(?:{_ROLE_ALT})\b", re.I)
# "Claim: Doctor.", "Role: Villager", "Alignment: Mafia" (a claim written as a labelled field).
_LABELLED = re.compile(
    rf"^\s*(?:(?:role\s+)?claim|role|alignment|faction)\s*[:=\u2014\u2013-]\s*(?:{_FILLER})(?:{_ROLE_ALT}){_ROLE_END}",
    re.I,
)
# "The cop is me.", "Detective? That's me."
_ROLE_IS_ME = re.compile(rf"\b(?:the\s+)?(?:{_ROLE_ALT})\s+(?:is|was)\s+me\b", re.I)
# "Player 1 is not the Doctor. I am." (a counter-claim across two sentences).
_NOT_HIM_ME = re.compile(
    rf"\b(?:is\s+not|isn't|is\s+no)\s+(?:the\s+|a\s+)?(?:{_ROLE_ALT}){_ROLE_END}[.!,;\s\u2014\u2013-]+(?:i\s+am|i'm|me)\s*[.!]",
    re.I,
)
# A role in a life outside the game: "I'm a doctor in real life".
_OFF_GAME = re.compile(
    r"\W*(?:\w+\s+){0,2}?(?:in\s+real\s+life|irl|by\s+(?:profession|trade)|for\s+a\s+living)\b", re.I
)
# A speech owning up to being Mafia: then a bare "Mafia." is a confession, not a read.
_CONFESSION = re.compile(
    r"\b(?:you\s+got\s+me|i\s+confess|i\s+concede|guilty\s+as\s+charged|gg|busted|caught\s+me|"
    r"last\s+words|it's\s+true)\b",
    re.I,
)
_NAME = "§"  # names are masked as §k§ before the action patterns run
_CURLY_APOSTROPHE = "\u2019"  # read as "'" (after the names are masked)
_EMPHASIS = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)")  # Markdown emphasis: "**Claim: Doctor.**"
# First person ("I investigated X", "I had checked X"), or a fragment opening with the verb
# ("Checked X: Mafia.").
_TARGET = r"(?:§\d+§|myself|#?\d{1,2}\b)"  # a name, or a seat number ("saved 4 N1")
_ACTOR = r"(?:\bi(?:'ve|'d|\s+have|\s+had)?\s+(?:been\s+|was\s+|also\s+)?|^\s*(?:(?:and|also|then)\s+)?)"
_INVESTIGATED = re.compile(
    rf"{_ACTOR}(?:investigated|investigating|checked|checking|inspected|looked\s+into)\s+{_TARGET}"
    rf"|\bmy\s+(?:\w+\s+)?(?:investigation|check|result)s?\s+(?:was\s+)?(?:on|of|into|for)\s+{_TARGET}"
    r"|\bmy\s+next\s+check\b"
    r"|\bmy\s+(?:\w+\s+)?(?:investigations|checks|results)\s*[:\u2014\u2013-]"
    rf"|^\W*(?:\w+\s*,\s*)?(?:results?|checks?|investigations?)(?:\s+(?:update|so\s+far))?\s*[:\u2014\u2013-]\s*{_TARGET}"
    rf"|{_ACTOR}looked\s+at\s+{_TARGET}\s*[:,\u2014\u2013-]?\s*(?:is\s+|was\s+|came\s+back\s+)?"
    r"(?:innocent|guilty|mafia|town|clean|not\s+mafia)\b",
    re.I,
)
_PROTECTED = re.compile(
    rf"{_ACTOR}(?:protected|protecting|saved|healed|guarded|guarding)\s+{_TARGET}"
    rf"|\bmy\s+(?:\w+\s+)?(?:protection|save|heal|guard)s?\s+(?:was\s+|went\s+)?(?:on|of|for|to)\s+{_TARGET}"
    r"|\bmy\s+(?:\w+\s+)?(?:protections|saves|heals)\s*[:\u2014\u2013-]"
    r"|\bthe\s+one\s+who\s+(?:saved|protected|healed)\b",
    re.I,
)
# Sentences asserting nothing: hypotheticals, and sarcasm ("Oh sure, I'm the mafia").
_HYPOTHETICAL = re.compile(
    r"^\s*(?:if|suppose|imagine|what if|pretend|hypothetically|oh\s+sure|yeah\s+right|oh\s+yeah)\b", re.I
)

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
    "framing concern concerned concerning worry worries worried worrying wolves scummiest scummier"
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
    "argued mentioned called think believe assume assumes suggested implied saying asked asks asking "
    "wondered wonders wondering if whether"
)
# Direct pushes at one named player: "vote Player 2", "my vote goes to X", "eliminate X".
_PUSH = re.compile(
    r"\b(?:vote|voting|nominate|nominating|eliminate|eliminating|lynch|lynching|execute|"
    r"(?:my\s+)?(?:vote|nomination)\s+(?:goes\s+|is\s+)?(?:to|on|for)|calling|vote\s+out|"
    r"vote\s+for|voting\s+for|voting\s+out|my\s+top\s+suspect\s+is|leaning(?:\s+towards?)?|"
    r"(?:put\s+)?my\s+vote\s+on|vote\s+on)"
    r"\s+(?:to\s+eliminate\s+|out\s+)?(?P<name>§\d+§|them|him|her)",
    re.I,
)
_PUSH_AFTER = re.compile(
    r"(?P<name>§\d+§)(?:\s+\w+){0,3}?\s+(?:my\s+top\s+suspect|out\s+as\s+fake|"
    r"is\s+my\s+(?:vote|suspect|pick|lynch)|has\s+my\s+vote)",
    re.I,
)
# "Look at Player 7." (not "look at Player 7's vote" or "look at Player 7 and Player 2 together").
_LOOK_AT = re.compile(r"\blook(?:ing)?\s+(?:hard\s+|closely\s+)?at\s+(?P<name>§\d+§)(?!'s|\s+and)", re.I)
_OFF = re.compile(r"\b(?:feels?|seems?|looks?|is|something)\s+(?:\w+\s+)?off\b", re.I)
_NEGATION_WINDOW = 4


@dataclass(frozen=True)
class Extraction:
    """What one speech asserts: the players it accuses and the roles its speaker claims."""

    accused: tuple[str, ...]
    claims: tuple[Role, ...]


_SEAT_NAME = re.compile(r"player\s*(\d+)", re.I)
# A bare seat number names a player ("vote 5", "7 is scum") unless it counts or dates something
# ("3 days", "day 2", "90%", "N1", "1 or 2").
_NUMBER_BEFORE = r"(?<![\w§#%.,:/'-])(?<!day\s)(?<!night\s)(?<!round\s)(?<!top\s)(?<!last\s)(?<!first\s)"
_NUMBER_AFTER = (
    r"(?![\w§%]|[.,]\d|\s*(?:days?|nights?|rounds?|times?|votes?|players?|people|of|more|others?|left|"
    r"mafia|scum|town|or\s+\d|to\s+\d|out\s+of|x|am|pm|hours?|minutes?|seconds?|%)\b)"
)


def _aliases(players: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """Every way a name is written, lowercased, to the name, and the bare seat numbers among
    them: at a table of "Player N" names, "Player 6" is also "p6", "p 6" and "6" (short forms
    only where no player is called that)."""
    canonical = {p.lower(): p for p in players}
    seats = [_SEAT_NAME.fullmatch(p) for p in players]
    numbers: list[str] = []
    for player, seat in zip(players, seats, strict=True):
        if seat:
            for alias in (f"p{seat.group(1)}", f"p {seat.group(1)}", f"player{seat.group(1)}"):
                canonical.setdefault(alias, player)
            if all(seats) and seat.group(1) not in canonical:
                canonical[seat.group(1)] = player
                numbers.append(seat.group(1))
    return canonical, numbers


@lru_cache(maxsize=64)
def _matcher(players: tuple[str, ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    canonical, numbers = _aliases(players)
    names = sorted((n for n in canonical if n not in numbers), key=len, reverse=True)
    pattern = rf"(?<![\w§])(?:{'|'.join(re.escape(n) for n in names)})(?![\w§])"
    if numbers:
        digits = "|".join(sorted(numbers, key=len, reverse=True))
        pattern += rf"|{_NUMBER_BEFORE}(?:{digits}){_NUMBER_AFTER}"
    return re.compile(pattern, re.I), canonical


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
    """Whether a claim at ``start`` is under a denial in its own phrase ("I never said I...") or
    reports what someone else says of the speaker ("they think I was the Doctor")."""
    clause = _CLAUSE_CUT.split(sentence[:start])[-1]
    phrase = _TOKEN.findall(re.split(r"[,;\u2014\u2013]|\s-\s", clause)[-1])
    if any(_is_negator(t) for t in phrase[-4:]):
        return True
    return any(
        word.lower() in _REPORTING and (i == 0 or phrase[i - 1].lower() != "i")
        for i, word in enumerate(phrase)
    )


# Words in quotes (two words or more) that someone else said: 'Player 4 keeps saying "I'm the doc"',
# "Player 2 said, 'I'm the Doctor.'" (a single quote opens after a space and closes before one; an
# apostrophe inside a word, as in "I'm", does neither).
_QUOTED = re.compile(
    r"(?<!\bi said )(?<!\bi say )"
    r"(?:[\"\u201c](?=[^\"\u201d]*\s)[^\"\u201d]{1,300}[\"\u201d]"
    r"|(?<![\w'])[\u2018'](?=\w)(?=(?:[^'\s]|'(?=\w))*\s)(?:[^'\n]|'(?=\w)){1,300}?'(?!\w))",
    re.I,
)


# One word in quotes is a scare quote, not someone's words: "I'm the 'Doctor' you doubted".
_ONE_WORD_QUOTED = re.compile(r"(?<![\w'])[\"\u201c\u2018']([\w-]+)[\"\u201d'](?!\w)")


def _as_speaker(masked: str, names: list[str], speaker: str) -> str:
    """``masked`` as its speaker's own claims are read: their name as "I" ("Player 4 is a humble
    villager"), and words they quote from others left out."""
    own = re.sub(r"§(\d+)§", lambda m: "I" if names[int(m.group(1))] == speaker else m.group(0), masked)
    return _ONE_WORD_QUOTED.sub(r"\1", _QUOTED.sub(" ", own))


# A tag that leaves a statement one ("I'm the mafia, ok??"), dropped before questions are skipped.
_TAG = re.compile(r",?\s*\b(?:ok|okay|alright|right|happy|satisfied)\s*\?+\s*$", re.I)
_CLAIM_PATTERNS = (
    _I_AM,
    _AS_ROLE,
    *_NAMED_ROLE,
    _JUST_A,
    _NIGHTMARE,
    _ROLE_HERE,
    _BARE_ROLE,
    _ROLE_CLAIM,
    _LABELLED,
    _ROLE_IS_ME,
)


def _roles(match: re.Match[str]) -> list[Role]:
    """The roles a claim pattern's named groups caught."""
    return [role for role in Role if match.groupdict().get(role.name)]


def _claims(masked: str) -> list[Role]:
    roles: list[Role] = []
    patterns = (*_CLAIM_PATTERNS, _BARE_MAFIA) if _CONFESSION.search(masked) else _CLAIM_PATTERNS
    for sentence in _SENTENCE_CUT.split(masked):
        sentence = _TAG.sub(".", sentence)
        # Hypotheticals and questions ("Am I the Doctor?", "...too, apparently?") claim nothing.
        if not sentence or _HYPOTHETICAL.match(sentence) or sentence.rstrip().endswith("?"):
            continue
        for pattern in patterns:
            for match in pattern.finditer(sentence):
                if _OFF_GAME.match(sentence, match.end()):
                    continue
                # "..., just a town member" follows denials of other roles by design.
                if pattern is _JUST_A or not _denied(sentence, match.start()):
                    roles.extend(_roles(match))
        for pattern, role in ((_INVESTIGATED, Role.DETECTIVE), (_PROTECTED, Role.DOCTOR)):
            found = pattern.search(sentence)
            if found and not _denied(sentence, found.start()):
                roles.append(role)
    for match in _NOT_HIM_ME.finditer(masked):
        roles.extend(_roles(match))
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
    for pattern in (_PUSH, _PUSH_AFTER, _LOOK_AT):
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


@lru_cache(maxsize=4096)  # speeches name the players: bounded for long runs with new names
def _extract(text: str, speaker: str, players: tuple[str, ...]) -> Extraction:
    masked, names = _mask(text, players)
    # Typographic apostrophes read as ASCII ones ("I’m", "don’t"); names are masked first, so
    # they are matched as written.
    masked = _EMPHASIS.sub("", masked.replace(_CURLY_APOSTROPHE, "'"))
    return Extraction(
        accused=tuple(_accusations(masked, names, speaker)),
        claims=tuple(_claims(_as_speaker(masked, names, speaker))),
    )


def claimed_role(value: object) -> Role | None:
    """The role a structured claim names, forgiving case, articles and the role words above
    ("the doc", "Townie", "cop"); None for no claim and for any value that names no role."""
    if isinstance(value, Role):
        return value
    if not isinstance(value, str):
        return None
    match = _CLAIM_VALUE.match(value.replace(_CURLY_APOSTROPHE, "'"))
    if match is None:
        return None
    return _roles(match)[0]


def extract(text: str, speaker: str, players: Sequence[str]) -> Extraction:
    """The accusations and role claims ``speaker`` makes in ``text`` (``players``: every name)."""
    return _extract(text, speaker, tuple(players))


def clear_cache() -> None:
    """Forget cached extractions (for cold-build benchmarks)."""
    _extract.cache_clear()
