"""What the house model makes of a prompt: claims, trust, and a suspicion score per player.

``assess`` turns a ``PromptView`` into a ``Board``: who claimed which role, whose Detective claim
it trusts, which players it knows or believes to be Mafia or cleared, and a suspicion score with
reasons for every other living player. With ``private=False`` it ignores the player's own secrets
and scores the table as an ordinary Town player would (the Mafia use that to read the room).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from mafia.game.rules import ROLES, SKIP, Role, on_mafia
from mafia.models.house.prompt_reading import PromptView, SaidLine
from mafia.models.house.text_reading import TextReading

CERTAIN = 50.0

_TOWN_ROLES = frozenset(role.value for role, spec in ROLES.items() if spec.side == "town")


class Reason(NamedTuple):
    """One piece of evidence: its weight, a public wording (no names) and a private note."""

    weight: float
    public: str
    note: str


@dataclass(slots=True)
class Board:
    """The house model's reading of the table for one decision."""

    me: str
    role: str
    living: list[str]
    others: list[str]
    partners: set[str]
    today: int
    night_victims: set[str]
    readings: list[tuple[SaidLine, TextReading]]
    detective_claims: list[str] = field(default_factory=list)  # order of first claim
    doctor_claims: list[str] = field(default_factory=list)
    findings: list[tuple[str, str, str]] = field(default_factory=list)  # claimant, target, result
    my_results: dict[str, str] = field(default_factory=dict)
    trust: dict[str, float] = field(default_factory=dict)  # Detective claimant -> credibility
    liars: set[str] = field(default_factory=set)
    saved: set[str] = field(default_factory=set)  # Doctor: protected on a night nobody died
    known_mafia: set[str] = field(default_factory=set)
    cleared: set[str] = field(default_factory=set)
    score: dict[str, float] = field(default_factory=dict)  # evidence, bandwagon apart
    bandwagon: dict[str, float] = field(default_factory=dict)  # nominations and accusations
    reasons: dict[str, list[Reason]] = field(default_factory=dict)
    pointed_by: dict[str, list[str]] = field(default_factory=dict)  # who nominated or accused
    nominations_today: Counter[str] = field(default_factory=Counter)
    nominators_today: dict[str, list[str]] = field(default_factory=dict)
    my_nomination_today: str | None = None
    pressure: int = 0  # nominations and accusations of me today

    @property
    def team(self) -> frozenset[str]:
        """Me and my Mafia partners (just me when I have none)."""
        return frozenset(self.partners | {self.me})

    def add(self, player: str, weight: float, public: str, note: str) -> None:
        if player in self.score:
            self.score[player] += weight
            self.reasons[player].append(Reason(weight, public, note))

    def press(self, player: str, weight: float, by: str) -> None:
        """Count a nomination or accusation of ``player`` by ``by`` (not evidence by itself)."""
        if player in self.bandwagon:
            self.bandwagon[player] += weight
            self.pointed_by[player].append(by)

    def total(self, player: str, follow: float) -> float:
        """Evidence plus ``follow`` times the (capped) bandwagon on ``player``."""
        return self.score.get(player, 0.0) + follow * min(self.bandwagon.get(player, 0.0), 2.0)

    def is_today(self, day: int) -> bool:
        return day == self.today or day <= 0

    def why(self, player: str) -> Reason | None:
        """The strongest reason pointing at ``player``, if any."""
        pointing = [r for r in self.reasons.get(player, []) if r.weight > 0]
        return max(pointing, key=lambda r: r.weight) if pointing else None

    def level(self, player: str) -> int:
        """The score as a 0-10 suspicion level (0 and 10 only for certainties)."""
        s = self.total(player, 0.5)
        if s >= CERTAIN * 0.8:
            return 10
        if s <= -CERTAIN * 0.8:
            return 0
        return max(1, min(9, round(5 + s)))

    @property
    def i_claimed_detective(self) -> bool:
        return self.me in self.detective_claims

    @property
    def i_claimed_doctor(self) -> bool:
        return self.me in self.doctor_claims


def assess(view: PromptView, *, private: bool = True) -> Board:
    """Score every other living player from the prompt (see the module doc)."""
    me = view.me
    role = view.role if private else Role.TOWN
    living = list(view.living)
    if not living:
        living = [t for t in (view.targets or []) if t != SKIP]
        if me and me not in living:
            living.append(me)
    others = [p for p in living if p != me]
    partners = set(view.partners) if private and on_mafia(view.role) else set()
    today = view.today
    board = Board(
        me=me,
        role=role,
        living=living,
        others=others,
        partners=partners,
        today=today,
        night_victims={name for name, how, _ in view.dead if how == "night"},
        readings=[*view.readings(), *_digest_readings(view)],
        score={p: 0.0 for p in others},
        bandwagon={p: 0.0 for p in others},
        pointed_by={p: [] for p in others},
        reasons={p: [] for p in others},
    )
    _claims(board, view)
    if private and view.role == Role.DOCTOR:
        board.saved = _saved(view)
    _trust(board, private)
    _knowledge(board, view, private)
    _speeches(board, view, private)
    _votes(board, view)
    if private:
        _memory(board, view)
    for p in partners:
        if p in board.score:
            board.score[p] = -2 * CERTAIN
    return board


def _saved(view: PromptView) -> set[str]:
    """Players the Doctor protected on a night that ended without a death: most likely the
    Mafia's target that night, so not Mafia (the Mafia cannot target their own)."""
    quiet = set(view.quiet_nights)
    if view.dead_listed:
        killed_on = {number for _name, how, number in view.dead if how == "night"}
        resolved = view.round if view.phase in ("Day", "Night") else 0
        quiet.update(n for n in range(1, resolved) if n not in killed_on)
    return {t for night, t in view.protections if night in quiet}


def _claims(board: Board, view: PromptView) -> None:
    for said, reading in board.readings:
        if reading.detective_claim and said.speaker not in board.detective_claims:
            board.detective_claims.append(said.speaker)
        if reading.doctor_claim and said.speaker not in board.doctor_claims:
            board.doctor_claims.append(said.speaker)
        if reading.detective_claim:
            for target, result in reading.findings:
                finding = (said.speaker, target, result)
                if finding not in board.findings:  # a result repeated on later days counts once
                    board.findings.append(finding)
    for player, claimed, _day in view.claims:
        if claimed == Role.DETECTIVE and player not in board.detective_claims:
            board.detective_claims.append(player)
        elif claimed == Role.DOCTOR and player not in board.doctor_claims:
            board.doctor_claims.append(player)


def _trust(board: Board, private: bool) -> None:
    """Who the Detective claimants are to me: all liars to the real Detective, real to the Mafia
    (but for partners'), else judged by their findings and by the night's evidence."""
    me, role = board.me, board.role
    claimants = [c for c in board.detective_claims if c != me]
    if not claimants:
        return
    if private and role == Role.DETECTIVE:
        board.liars.update(claimants)
        return
    if private and on_mafia(role):
        # Mafia know which claims are fake (their partners'); the others are taken as real.
        for c in claimants:
            if c not in board.partners:
                board.trust[c] = 1.0
        return
    _expose_false_findings(board, claimants, private)
    _weigh_honest(board, [c for c in claimants if c not in board.liars])


def _expose_false_findings(board: Board, claimants: list[str], private: bool) -> None:
    """A claimant whose finding names me (I know I am not Mafia) or a night victim Mafia lies."""
    for c in claimants:
        for claimant, target, result in board.findings:
            if claimant != c or result != "Mafia":
                continue
            if (private and target == board.me) or target in board.night_victims:
                board.liars.add(c)  # a night victim is never Mafia; neither am I


def _weigh_honest(board: Board, honest: list[str]) -> None:
    """Trust among the claims not caught lying: one the Mafia went for (on a night I protected it,
    or killed) is the real one; a single claim is believed; rival claims, the first more."""
    vouched = [c for c in honest if c in board.saved]
    if vouched:
        # The Mafia went for the claimant I protected: that claim is the real one.
        board.trust[vouched[0]] = 1.0
        board.liars.update(c for c in honest if c != vouched[0])
        return
    killed = [c for c in honest if c in board.night_victims]
    if killed:
        board.trust[killed[0]] = 1.0
        for c in honest:
            if c != killed[0]:
                board.trust[c] = 0.2
    elif len(honest) == 1:
        board.trust[honest[0]] = 1.0
    elif honest:
        board.trust[honest[0]] = 0.6
        for c in honest[1:]:
            board.trust[c] = 0.35


def _knowledge(board: Board, view: PromptView, private: bool) -> None:
    """Who is known or believed Mafia or cleared: my investigations, night victims, players saved
    by my protection, false claims, and the findings of the Detective claims I trust."""
    if private and board.role == Role.DETECTIVE:
        _my_results(board, view)
    board.cleared.update(board.night_victims)
    for player in board.saved:
        if player != board.me:
            board.cleared.add(player)
            board.add(player, -4.0, "", "the Mafia went for them on a night I protected them")
    board.known_mafia.update(board.partners)
    for liar in board.liars:
        sure = private and board.role in _TOWN_ROLES
        weight = CERTAIN if sure else 6.0
        board.add(liar, weight, "their Detective claim is false", "false Detective claim")
    _detective_claims(board)
    _doctor_claims(board, private)


def _my_results(board: Board, view: PromptView) -> None:
    """The Detective's own investigations: certainties both ways."""
    for _night, target, result in view.results:
        board.my_results[target] = result
        if result == "Mafia":
            board.known_mafia.add(target)
            board.add(target, 2 * CERTAIN, "my investigation says so", "investigated: Mafia")
        else:
            board.cleared.add(target)
            board.add(target, -2 * CERTAIN, "", "investigated: Not Mafia")


def _detective_claims(board: Board) -> None:
    """Rival Detective claims cast doubt on each claimant, a lone one vouches for its claimant;
    a trusted claim's findings weigh on their targets (and settle them when trusted enough)."""
    for c, w in board.trust.items():
        if c in board.partners:
            continue
        if len(board.trust) > 1:
            extra = 1.5 if w >= 0.6 else 3.0
            board.add(c, extra, "the Detective claims contradict each other", "contested claim")
        else:
            board.add(c, -3.0 * w, "", "claimed Detective")
    for claimant, target, result in board.findings:
        w = board.trust.get(claimant, 0.0)
        if w <= 0 or target == claimant:
            continue
        if result == "Mafia":
            board.add(
                target,
                8.0 * w,
                "the Detective claim named them Mafia",
                f"named Mafia by {claimant}'s investigation",
            )
            if w >= 0.6:
                board.known_mafia.add(target)
        else:
            board.add(target, -4.0 * w, "", f"cleared by {claimant}")
            if w >= 0.6:
                board.cleared.add(target)


def _doctor_claims(board: Board, private: bool) -> None:
    """Another's Doctor claim is false to the real Doctor; to others rival claims cast doubt and
    a lone claim vouches a little."""
    me = board.me
    if private and board.role == Role.DOCTOR:
        for c in board.doctor_claims:
            if c != me:
                board.add(c, CERTAIN, "their Doctor claim is false", "false Doctor claim")
    else:
        doctors = [c for c in board.doctor_claims if c != me]
        for c in doctors:
            if len(doctors) > 1:
                board.add(c, 2.0, "the Doctor claims contradict each other", "contested claim")
            else:
                board.add(c, -1.0, "", "claimed Doctor")


def _digest_readings(view: PromptView) -> list[tuple[SaidLine, TextReading]]:
    """The digest's lines read as the speeches they stand for (the digest writes them only for
    speeches it leaves out): a nomination as one, an accusation as words accusing."""
    return [
        (
            SaidLine(p.accuser, "", p.accused if p.nominated else None, p.day, "speech"),
            TextReading(False, False, (), () if p.nominated else (p.accused,), ()),
        )
        for p in view.accusations
    ]


def _speeches(board: Board, view: PromptView, private: bool) -> None:
    """Score each speaker by whom its lines point at and defend, and count the bandwagon: today's
    nominations, repeated nominations, and the digest's nominations and accusations."""
    town_me = private and not on_mafia(board.role)
    nominators: dict[str, list[str]] = {}
    for said, reading in board.readings:
        today = board.is_today(said.day)
        w = 1.0 if today else 0.6
        pointed = _press_pointed(board, said, reading, today, w, nominators)
        if said.speaker == board.me:
            continue
        for t in pointed:
            _judge_pointing(board, said, t, today, w, town_me)
        for t in reading.cleared:
            if t in board.known_mafia and t not in board.partners and t != said.speaker:
                board.add(said.speaker, 1.5 * w, "they defended a known Mafia", f"defended {t}")
    for n, who in nominators.items():
        if n in board.score and len(who) >= 2:
            public = f"{len(who)} players nominated them"
            board.reasons[n].append(Reason(0.0, public, "nominated repeatedly"))


def _press_pointed(
    board: Board,
    said: SaidLine,
    reading: TextReading,
    today: bool,
    w: float,
    nominators: dict[str, list[str]],
) -> list[str]:
    """Whom a line points at (its nomination, then whom it accuses), each pressed onto the
    bandwagon; a nomination is noted in ``nominators`` and, in today's speeches, counted."""
    speaker = said.speaker
    pointed: list[str] = []
    if said.nomination:
        n = said.nomination
        pointed.append(n)
        nominators.setdefault(n, []).append(speaker)
        if today and said.kind == "speech":
            board.nominations_today[n] += 1
            board.nominators_today.setdefault(n, []).append(speaker)
            if speaker == board.me:
                board.my_nomination_today = n
        board.press(n, 0.8 * w, speaker)
    for t in reading.accused:
        if t == said.nomination:
            continue
        pointed.append(t)
        board.press(t, 0.4 * w, speaker)
    return pointed


def _judge_pointing(board: Board, said: SaidLine, t: str, today: bool, w: float, town_me: bool) -> None:
    """What pointing at ``t`` says of the speaker (going after me, a cleared or a known Mafia
    player, or a trusted Detective claim) and, from a later night victim, of ``t``."""
    me, speaker = board.me, said.speaker
    strong = 1.0 if t == said.nomination else 0.5
    if t == me:
        if today:
            board.pressure += 1
        if town_me:
            board.add(speaker, 1.2 * w * strong, "they went after me", "pushed me")
    elif t in board.cleared:
        board.add(speaker, 1.5 * w * strong, "they pushed a cleared player", f"pushed {t}")
    elif t in board.known_mafia and t not in board.partners:
        board.add(speaker, -0.8 * w * strong, "", f"went after {t}")
    if board.trust.get(t, 0.0) >= 0.6:
        board.add(
            speaker,
            2.0 * w * strong,
            "they attacked the Detective claim",
            f"went after the claimed Detective {t}",
        )
    if speaker in board.night_victims:
        board.add(
            t,
            1.0 * strong,
            "a player killed at night had pointed at them",
            f"accused by {speaker}, later killed at night",
        )


def _votes(board: Board, view: PromptView) -> None:
    by_day: dict[int, dict[str, str]] = {}
    for voter, target, day in view.votes:
        by_day.setdefault(day, {})[voter] = target
        if voter == board.me:
            continue
        if target in board.known_mafia and target not in board.partners:
            board.add(voter, -1.0, "", f"voted {target}")
        elif target in board.cleared or board.trust.get(target, 0.0) >= 0.6:
            board.add(voter, 1.2, "they voted against a cleared player", f"voted {target}")
    for ballots in by_day.values():
        for m in sorted(board.known_mafia):
            t = ballots.get(m)
            if t is None or t == SKIP:
                continue
            for voter, target in ballots.items():
                if voter not in (m, board.me) and target == t and voter not in board.partners:
                    board.add(voter, 1.2, "they voted alongside a known Mafia", f"voted with {m}")


def _memory(board: Board, view: PromptView) -> None:
    for player, level in view.memory_levels.items():
        if player not in board.score or player in board.partners:
            continue
        # A prior that fades unless today's evidence renews it (certainties are re-derived).
        if level != 5:
            weight = 0.6 * (max(0, min(10, level)) - 5)
            public = "my read on them has been firm" if level >= 8 else ""
            board.add(player, weight, public, f"my earlier read ({level}/10)")
