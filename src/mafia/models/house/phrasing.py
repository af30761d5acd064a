"""The house model's phrasing: several wordings per situation, coloured by the speaker's persona.

Core sentences always name players explicitly with the words the reader in ``prompt_reading``
recognises ("I suspect Player 4", "Player 4 is Mafia", "I am the Detective", "I investigated
Player 4: Mafia"), so house players can follow each other's accusations and claims. Reasons inside
an accusation never name a second player: a sentence's names are all read as its targets. "X is
Mafia" is kept for findings and for Town echoing a claim: next to a Detective claim it reads as a
result, so a Detective's mere suspicion is worded "I suspect X". Speeches are one line without
double quotes.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from mafia.game.personas import PERSONAS
from mafia.game.rules import Role


@dataclass(frozen=True, slots=True)
class Style:
    """How a persona talks and how readily it points fingers."""

    openers: tuple[str, ...] = ()
    closers: tuple[str, ...] = ()
    eagerness: float = 0.0  # added to the chance of an early read, taken off the threshold
    terse: bool = False  # the core sentences only, no opener or closer


STYLES: dict[str, Style] = {
    "analyst": Style(
        ("Let me look at the record.", "I go by the numbers.", "Let me be precise."),
        ("That is where the evidence points.", "The record will show who was right."),
    ),
    "firebrand": Style(
        ("Enough waiting!", "Listen up!", "I will say it plainly."),
        ("No fence-sitting today!", "Stop hiding behind maybes!"),
        eagerness=0.35,
    ),
    "diplomat": Style(
        ("Friends, let us stay calm.", "I would like us to find common ground."),
        ("Let us decide together.", "I am open to other views."),
        eagerness=-0.25,
    ),
    "skeptic": Style(
        ("Claims are cheap.", "I will believe it when I see proof."),
        ("Convince me otherwise.", "Prove me wrong."),
        eagerness=-0.1,
    ),
    "storyteller": Style(
        ("You know, I have been watching how everyone talks.", "Funny thing about this table."),
        ("Tone tells you more than words.", "Habits give people away."),
    ),
    "veteran": Style(("Seen this before.", "Patterns do not lie."), (), eagerness=0.1),
    "newcomer": Style(
        ("I am still learning, so bear with me.", "I am thinking aloud here."),
        ("I might be wrong, though.", "Happy to be corrected."),
        eagerness=-0.15,
    ),
    "lawyer": Style(
        ("Let me put the contradictions on the record.", "Consider the evidence."),
        ("I rest my case.", "The contradictions speak for themselves."),
        eagerness=0.05,
    ),
    "joker": Style(
        ("Well, this is cozy.", "Nobody panic."),
        ("Jokes aside, I mean it.", "Laugh now, vote wisely."),
    ),
    "guardian": Style(
        ("Let us not pile on the quiet ones.", "I will not join a bandwagon blindly."),
        ("Protect the innocent first.",),
        eagerness=-0.2,
    ),
    "strategist": Style(
        ("Count the living: {n} of us left.", "Think about the endgame."),
        ("Every vote matters now.", "Play the numbers."),
        eagerness=0.1,
    ),
    "empath": Style(
        ("I am listening to how people sound, not just what they say.", "Something feels off."),
        ("Sincerity is hard to fake.",),
    ),
    "contrarian": Style(
        ("Everyone agrees too fast.", "Let me push back a little."),
        ("Somebody has to say it.",),
    ),
    "historian": Style(
        ("Remember what was said earlier.", "History matters here."),
        ("Mark these words for later.",),
    ),
    "gambler": Style(
        ("I will take a risk.", "Call it a hunch."),
        ("Fortune favours the bold.",),
        eagerness=0.35,
    ),
    "monk": Style(terse=True, eagerness=-0.05),
}
PLAIN = Style(("Alright.", "Here is my view."), ())

_BY_DESCRIPTION = {p.description: p.key for p in PERSONAS}


def style_for(persona: str) -> Style:
    """The style of a persona line: an exact known description, else a known persona word."""
    key = _BY_DESCRIPTION.get(persona.strip())
    if key is None:
        low = persona.lower()
        key = next((k for k in STYLES if k in low), "")
    return STYLES.get(key, PLAIN)


LINES: dict[str, tuple[str, ...]] = {
    "no_read": (
        "Nothing stands out to me yet, so I will not nominate anyone.",
        "It is too early for a hard read; I am listening for now.",
        "I have no strong suspicion yet and I will not throw out a random name.",
        "No nomination from me this round; I want more evidence first.",
    ),
    "accuse": (
        "I suspect {t}: {why}.",
        "My top suspect is {t}, because {why}.",
        "{t} looks like Mafia to me, since {why}.",
        "I am nominating {t}: {why}.",
        "I suspect {t}; {why}.",
    ),
    "gut": (
        "I suspect {t}; call it a gut read for now.",
        "{t} feels a little suspicious to me, so I am nominating them to hear a defense.",
        "I want to hear {t} defend themselves; I suspect them, lightly.",
    ),
    "deny": (
        "I am not Mafia, whatever has been said about me.",
        "Nominating me is a mistake; I am not Mafia.",
        "I am Town, and the pressure on me is misplaced.",
    ),
    "detective_intro": (
        "I am the Detective.",
        "Time to come out: I am the Detective.",
        "I am the Detective, and I have results.",
    ),
    "detective_again": (
        "As I said, I am the Detective.",
        "I am the Detective, and here are my results again.",
        "I am the Detective; my record stands.",
    ),
    "finding": ("I investigated {t}: {r}.",),
    "detective_call": (
        "{t} is Mafia; vote {t}.",
        "Nominate and vote {t}: {t} is Mafia.",
        "{t} is Mafia, so I am voting {t} today.",
    ),
    "fake_detective": (
        "{c} is lying; I am the real Detective.",
        "{c} is a liar and Mafia; there is only one Detective and it is me.",
    ),
    "support_claim": (
        "{c} claims Detective and I believe them.",
        "{c} has claimed Detective; that claim is credible.",
        "I take the Detective claim by {c} seriously.",
    ),
    "claim_target": (
        "{t} is Mafia; I am voting {t}.",
        "So I suspect {t} above everyone.",
        "I will vote {t}, who was named Mafia.",
    ),
    "doctor_claim": (
        "I am the Doctor; eliminating me only helps the Mafia.",
        "I am the Doctor, and losing me leaves the town unprotected.",
    ),
    "bodyguard_claim": (
        "I am the Bodyguard; I stand between the Mafia and the town every night.",
        "I am the Bodyguard, and I have been guarding this town's best voices.",
    ),
    "godfather_dare": (
        "I am Town, and any Detective is welcome to check me tonight.",
        "Check me if you doubt me: I am Town, and a check will show it.",
    ),
    "attack_claim": (
        "{c} is lying about being the Detective.",
        "I do not buy the claim by {c}, and a fake Detective is exactly what Mafia would try.",
        "{c} is a fake Detective and I suspect {c} of being Mafia.",
    ),
    "redirect": (
        "I suspect {t} instead: {why}.",
        "If you want Mafia, I suspect {t}: {why}.",
        "Look harder at {t}; I suspect {t}, because {why}.",
    ),
    "defense_intro": (
        "I am not Mafia.",
        "You have the wrong player: I am Town.",
        "I understand the suspicion, but I am not Mafia.",
    ),
    "last_town": ("I was Town.", "For the record, I was Town.", "I was a plain Town player."),
    "last_read": (
        "I suspect {t}; vote {t} next.",
        "My last read: I suspect {t}.",
        "Remember this when I am gone: I suspect {t}.",
    ),
    "last_none": (
        "I have no strong read; trust the votes, not the voices.",
        "Watch who pushed hardest for this.",
        "Keep your eyes on who stays quiet.",
    ),
    "last_doctor": ("I was the Doctor.", "For the record, I was the Doctor."),
    "last_bodyguard": ("I was the Bodyguard.", "For the record, I was the Bodyguard."),
    "last_mafia": (
        "I was Town, and you got it wrong. I suspect {t}.",
        "You voted out a Town player. {t} is Mafia, mark my words.",
        "I was Town. I suspect {t}; do not let {t} off the hook.",
    ),
    "game_over": ("Good game, everyone.", "Well played, all.", "That was a good game."),
}


# The role a situation's lines claim for the speaker; lines of other situations claim Town where
# they say so ("You have the wrong player: I am Town.").
_CLAIMING = {
    "detective_intro": Role.DETECTIVE,
    "detective_again": Role.DETECTIVE,
    "fake_detective": Role.DETECTIVE,
    "finding": Role.DETECTIVE,
    "doctor_claim": Role.DOCTOR,
    "last_doctor": Role.DOCTOR,
    "bodyguard_claim": Role.BODYGUARD,
    "last_bodyguard": Role.BODYGUARD,
    "last_town": Role.TOWN,
    "godfather_dare": Role.TOWN,
}
_TOWN_CLAIMS = ("I am Town", "I was Town")


def _claim_patterns() -> list[tuple[re.Pattern[str], Role]]:
    found = []
    for situation, lines in LINES.items():
        for template in lines:
            role = _CLAIMING.get(situation)
            if role is None and any(words in template for words in _TOWN_CLAIMS):
                role = Role.TOWN
            if role is not None:
                pattern = re.sub(r"\\\{\w+\\\}", ".+?", re.escape(template))
                found.append((re.compile(pattern), role))
    return found


_CLAIM_PATTERNS = _claim_patterns()


def claimed_in(speech: str) -> str | None:
    """The role the house model's own speech claims (its first claiming line), if any: what it
    states as its structured claim."""
    hits = [(m.start(), role) for pattern, role in _CLAIM_PATTERNS if (m := pattern.search(speech))]
    return min(hits)[1] if hits else None


def line(rng: random.Random, situation: str, **fields: str) -> str:
    """One wording of a situation, with its fields filled in."""
    return rng.choice(LINES[situation]).format(**fields)


def compose(rng: random.Random, style: Style, core: Sequence[str], *, living: int) -> str:
    """A speech: the core sentences framed by the persona's opener and closer (if any)."""
    if style.terse:
        return " ".join(core) if core else "Nothing to add."
    parts: list[str] = []
    if style.openers and rng.random() < 0.7:
        parts.append(rng.choice(style.openers).format(n=living))
    parts.extend(core)
    if style.closers and rng.random() < 0.4:
        parts.append(rng.choice(style.closers))
    return " ".join(parts)
