"""A readable builder of realistic event logs for scripted games (tests and benchmarks).

Events are appended in the engine's order (see the Context issue): setup, night zero, then per
round the day (DayStarted, speeches, vote, defense and revote, elimination and last words) and the
night (Mafia coordination, protection, investigation, resolution). Every decision is followed by the
deciding player's Thought unless ``thoughts=False``. Rules come from ``mafia.game.rules``, so a scripted
log is always a legal one; ``play_random`` plays whole games from a seed.

    log = LogBuilder(["Mafia", "Town", "Detective", "Doctor", "Town"])
    log.night_zero().start_day().speak("Player 1", "Player 2 is odd.", nominate="Player 2")
    ...
    build_context(log.events, "Player 3", ActionKind.VOTE)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Self

from mafia.context import ContextPolicy, RenderedPrompt, build_context
from mafia.game.actions import ActionKind
from mafia.game.events import (
    Ballot,
    Count,
    DayStarted,
    DefenseSpeech,
    DoctorProtection,
    Elimination,
    EventBase,
    GameOver,
    GameStarted,
    Investigation,
    LastWords,
    MafiaDiscussion,
    MafiaVote,
    NightResolution,
    NightZeroStrategy,
    RoleAssigned,
    RoleReveal,
    Speech,
    SuspicionNote,
    Thought,
    VoteRound,
    night_event,
)
from mafia.game.personas import deal_personas
from mafia.game.rules import (
    SKIP,
    GameConfig,
    NightChoice,
    Role,
    VoteResult,
    agreed_target,
    assign_roles,
    field_name,
    first_speaker,
    resolve_night,
    resolve_revote,
    resolve_round2,
    resolve_vote,
    saves,
    speaking_order,
    tally,
)


class LogBuilder:
    """Scripted game log, built one engine step at a time."""

    def __init__(
        self,
        roles: Sequence[Role | str] | None = None,
        *,
        players: int = 7,
        seed: int = 0,
        names: Sequence[str] | None = None,
        game_id: str = "test-game",
        round_cap: int = 20,
        thoughts: bool = True,
    ) -> None:
        if roles is not None:
            self.roles = [Role(r) for r in roles]
            self.seats = list(names) if names else [f"Player {k}" for k in range(1, len(roles) + 1)]
        else:
            config = GameConfig(players=players, seed=seed, names=tuple(names) if names else None)
            dealt = assign_roles(config)
            self.roles = [s.role for s in dealt]
            self.seats = [s.name for s in dealt]
        self.role_of = dict(zip(self.seats, self.roles, strict=True))
        self.thoughts = thoughts
        self.round = 0
        self.dead: list[str] = []
        self.events: list[EventBase] = []
        self._night_deaths: list[str] = []
        self._first: str | None = None
        self._tied: list[str] = []
        self._eliminated: str | None = None
        counts = {r: self.roles.count(r) for r in Role}
        self.events.append(
            GameStarted(
                round=0,
                game_id=game_id,
                players=list(self.seats),
                mafia=counts[Role.MAFIA],
                detective=counts[Role.DETECTIVE],
                doctor=counts[Role.DOCTOR],
                town=counts[Role.TOWN],
                round_cap=round_cap,
            )
        )
        personas = deal_personas(len(self.seats), seed)
        mafia = self.with_role(Role.MAFIA, alive_only=False)
        for name, persona in zip(self.seats, personas, strict=True):
            role = self.role_of[name]
            partners = [m for m in mafia if m != name] if role is Role.MAFIA else []
            self.events.append(
                RoleAssigned(
                    round=0,
                    player=name,
                    role=role,
                    persona=persona.description,
                    partners=partners,
                )
            )

    # ---- queries ---------------------------------------------------------------------------

    @property
    def living(self) -> list[str]:
        return [p for p in self.seats if p not in self.dead]

    def with_role(self, role: Role, *, alive_only: bool = True) -> list[str]:
        pool = self.living if alive_only else self.seats
        return [p for p in pool if self.role_of[p] is role]

    @property
    def speaking_order(self) -> list[str]:
        day = next(e for e in reversed(self.events) if isinstance(e, DayStarted))
        return list(day.speaking_order)

    def winner(self) -> str | None:
        living = self.living
        mafia = sum(1 for p in living if self.role_of[p] is Role.MAFIA)
        if mafia == 0:
            return "town"
        if mafia >= len(living) - mafia:
            return "mafia"
        return None

    # ---- bookkeeping -----------------------------------------------------------------------

    def thought(
        self,
        player: str,
        action: ActionKind | str,
        *,
        strategy: str | None = None,
        reasoning: str | None = None,
        suspicions: Mapping[str, int] | None = None,
        relationships: Iterable[str] = (),
        pattern_notes: Sequence[str] = (),
    ) -> Self:
        """Append ``player``'s private Thought for a decision (defaults are deterministic)."""
        act = ActionKind(action).value
        others = [p for p in self.living if p != player]
        levels = (
            suspicions
            if suspicions is not None
            else {p: (len(p) * 7 + self.round * 3 + i) % 11 for i, p in enumerate(others)}
        )
        self.events.append(
            Thought(
                round=self.round,
                player=player,
                action=act,
                observations=f"Round {self.round}: {len(self.living)} players alive.",
                strategy=strategy or f"Plan for {act} in round {self.round}: watch the votes.",
                reasoning=reasoning or f"{player} reasons about {act} in round {self.round}.",
                suspicions=[
                    SuspicionNote(player=p, level=lvl, reasoning=f"Level {lvl} from round play.")
                    for p, lvl in levels.items()
                ],
                relationships=list(relationships),
                pattern_notes=list(pattern_notes),
            )
        )
        return self

    def _think(self, player: str, action: ActionKind) -> None:
        if self.thoughts:
            self.thought(player, action)

    # ---- night zero ------------------------------------------------------------------------

    def night_zero(self, strategies: Mapping[str, str] | None = None) -> Self:
        """Each Mafia writes an opening strategy, in seat order (no kill)."""
        for m in self.with_role(Role.MAFIA):
            text = (strategies or {}).get(m, f"{m}: act confused, push quiet players on day 1.")
            self.events.append(NightZeroStrategy(round=0, speaker=m, strategy=text))
            self._think(m, ActionKind.NIGHT_ZERO)
        return self

    # ---- day -------------------------------------------------------------------------------

    def start_day(self) -> Self:
        """Dawn of the next round: announce the night's death and the speaking order."""
        self.round += 1
        first = first_speaker(self._first, self.living, self.seats)
        self._first = first
        self._tied = []
        self._eliminated = None
        self.events.append(
            DayStarted(
                round=self.round,
                night_deaths=self._night_deaths,
                living=self.living,
                speaking_order=speaking_order(first, self.living),
            )
        )
        self._night_deaths = []
        return self

    def speak(
        self, speaker: str, text: str, nominate: str | None = None, *, claim: Role | None = None
    ) -> Self:
        self.events.append(
            Speech(round=self.round, speaker=speaker, text=text, nomination=nominate, claim=claim)
        )
        self._think(speaker, ActionKind.SPEAK)
        return self

    def discuss(self, lines: Mapping[str, str | tuple[str, str | None]]) -> Self:
        """Every living player speaks in order; ``lines`` maps a speaker to text or (text, nominee);
        speakers not given say a short neutral line."""
        for speaker in self.speaking_order:
            line = lines.get(speaker, f"{speaker} has nothing to add today.")
            text, nominee = line if isinstance(line, tuple) else (line, None)
            self.speak(speaker, text, nominee)
        return self

    def nominees(self) -> list[str]:
        named = {
            e.nomination
            for e in self.events
            if isinstance(e, Speech) and e.round == self.round and e.nomination
        }
        return [p for p in self.seats if p in named]

    def _vote_event(self, ballots: Mapping[str, str], result: VoteResult, revote: bool) -> None:
        # Each ballot is a decision followed by the voter's Thought; the tally comes after.
        action = ActionKind.REVOTE if revote else ActionKind.VOTE
        for voter in self.living:
            if voter in ballots:
                self._think(voter, action)
        options = self._tied if revote else self.nominees()
        self.events.append(
            VoteRound(
                round=self.round,
                revote=revote,
                nominees=list(options),
                ballots=[Ballot(voter=v, target=ballots[v]) for v in self.living if v in ballots],
                counts=[Count(option=o, votes=n) for o, n in tally(ballots, [*options, SKIP])],
                outcome=result.kind,
                eliminated=result.eliminated,
                tied=list(result.tied),
            )
        )
        if result.kind == "tie" and not revote:
            self._tied = list(result.tied)
        if result.eliminated is not None:
            self._eliminated = result.eliminated
            self.events.append(Elimination(round=self.round, player=result.eliminated))
            self.dead.append(result.eliminated)

    def vote(self, ballots: Mapping[str, str]) -> VoteResult:
        """Every living player's ballot; returns the rules' result (eliminations are applied)."""
        result = resolve_vote(ballots, self.nominees())
        self._vote_event(ballots, result, revote=False)
        return result

    def defend(self, speaker: str, text: str, *, claim: Role | None = None) -> Self:
        self.events.append(DefenseSpeech(round=self.round, speaker=speaker, text=text, claim=claim))
        self._think(speaker, ActionKind.DEFENSE)
        return self

    def revote(self, ballots: Mapping[str, str]) -> VoteResult:
        result = resolve_revote(ballots, self._tied)
        self._vote_event(ballots, result, revote=True)
        return result

    def last_words(self, text: str, *, claim: Role | None = None) -> Self:
        if self._eliminated is None:
            raise ValueError("no one was eliminated today")
        self.events.append(LastWords(round=self.round, speaker=self._eliminated, text=text, claim=claim))
        self._think(self._eliminated, ActionKind.LAST_WORDS)
        return self

    # ---- night -----------------------------------------------------------------------------

    def mafia_round1(self, proposals: Mapping[str, tuple[str, str]]) -> Self:
        """Round 1 proposals (target, message) of the given Mafia, in seat order."""
        for m in self.with_role(Role.MAFIA):
            if m in proposals:
                target, message = proposals[m]
                self.events.append(
                    MafiaDiscussion(
                        round=self.round,
                        speaker=m,
                        target=target,
                        message=message,
                        coordination_round=1,
                    )
                )
                self._think(m, ActionKind.MAFIA_ROUND1)
        return self

    def night(
        self,
        kill: str = SKIP,
        *,
        protect: str | None = None,
        investigate: str | None = None,
        proposals: Mapping[str, tuple[str, str]] | None = None,
        round2: Mapping[str, str] | None = None,
    ) -> Self:
        """A whole night: the Mafia settle ``kill`` (or the given proposals), the Doctor protects,
        the Detective investigates, and the night resolves."""
        mafia = self.with_role(Role.MAFIA)
        final = SKIP
        if len(mafia) == 1:
            m = mafia[0]
            self.events.append(
                MafiaDiscussion(
                    round=self.round,
                    speaker=m,
                    target=kill,
                    message="",
                    coordination_round=0,
                )
            )
            self._think(m, ActionKind.NIGHT_KILL)
            self.events.append(
                MafiaVote(
                    round=self.round,
                    votes=[Ballot(voter=m, target=kill)],
                    final_target=kill,
                    decided_by="direct",
                    coordination_round=0,
                )
            )
            final = kill
        elif mafia:
            chosen = proposals or {m: (kill, f"Let's take {kill}.") for m in mafia}
            self.mafia_round1(chosen)
            first = {m: chosen[m][0] for m in mafia if m in chosen}
            agreed = agreed_target(first)
            if agreed is not None:
                final = agreed
                votes, decided, coordination = first, "round1", 1
            else:
                second = dict(round2 or first)
                for m in mafia:
                    self.events.append(
                        MafiaDiscussion(
                            round=self.round,
                            speaker=m,
                            target=second[m],
                            message="",
                            coordination_round=2,
                        )
                    )
                    self._think(m, ActionKind.MAFIA_ROUND2)
                decision = resolve_round2(second, mafia)
                final, votes, decided, coordination = (
                    decision.target,
                    second,
                    decision.decided_by,
                    2,
                )
            self.events.append(
                MafiaVote(
                    round=self.round,
                    votes=[Ballot(voter=m, target=t) for m, t in votes.items()],
                    final_target=final,
                    decided_by=decided,  # type: ignore[arg-type]
                    coordination_round=coordination,
                )
            )
        doctor = self.with_role(Role.DOCTOR)
        if doctor and protect is not None:
            self.events.append(
                DoctorProtection(
                    round=self.round,
                    protector=doctor[0],
                    protected=protect,
                    reasoning=f"Protect {protect} tonight.",
                )
            )
            self._think(doctor[0], ActionKind.PROTECT)
        detective = self.with_role(Role.DETECTIVE)
        if detective and investigate is not None:
            result = "Mafia" if self.role_of[investigate] is Role.MAFIA else "Not Mafia"
            self.events.append(
                Investigation(
                    round=self.round,
                    detective=detective[0],
                    target=investigate,
                    result=result,
                    reasoning=f"Check {investigate}.",
                )
            )
            self._think(detective[0], ActionKind.INVESTIGATE)
        saved = [NightChoice(doctor[0] if doctor else "", protect, saves)] if protect is not None else []
        deaths = resolve_night(final, saved)
        self.events.append(
            NightResolution(
                round=self.round,
                deaths=deaths,
                intended_kill=None if final == SKIP else final,
                protected=protect if doctor else None,
            )
        )
        self.dead.extend(deaths)
        self._night_deaths = deaths
        return self

    def game_over(self, winner: str, reason: str) -> Self:
        self.events.append(
            GameOver(
                round=self.round,
                winner=winner,  # type: ignore[arg-type]
                reason=reason,
                roles=[RoleReveal(player=p, role=self.role_of[p]) for p in self.seats],
            )
        )
        return self


# ---- random play -----------------------------------------------------------------------------

_OPENERS = (
    "I have been watching the votes closely.",
    "Honestly I am still unsure about most of you.",
    "Let me be direct with everyone here.",
    "Quiet players worry me more than loud ones.",
    "We need to stop skipping and start deciding.",
)
_READS = (
    "I think {x} is Mafia.",
    "{x} seems suspicious to me, the way they voted was odd.",
    "I trust {x} for now.",
    "{x} is not Mafia in my book.",
    "I don't think {x} is lying.",
    "{x} keeps deflecting every question.",
    "My vote goes to {x}.",
    "I have no reason to suspect {x}.",
)
_CLAIMS = (
    "I am the Doctor.",
    "I'm the Detective and I checked {x}.",
    "I'm just a plain townie.",
    "I am not the Detective.",
    "",
    "",
    "",
)


def random_speech(rng: random.Random, speaker: str, others: Sequence[str], words: int = 0) -> str:
    """A plausible speech: an opener, two reads, maybe a claim, padded to about ``words`` words."""
    parts = [rng.choice(_OPENERS)]
    for _ in range(2):
        parts.append(rng.choice(_READS).format(x=rng.choice(others)))
    claim = rng.choice(_CLAIMS).format(x=rng.choice(others))
    if claim:
        parts.append(claim)
    text = " ".join(parts)
    filler = (
        "I will keep comparing what people say with how they vote, because the record does not "
        "lie and every night kill tells us who the Mafia feared most."
    )
    while words and len(text.split()) < words:
        text += " " + filler
    return " ".join(text.split()[: words or None])


def play_day(log: LogBuilder, rng: random.Random, *, words: int = 0, nominate_p: float = 0.5) -> None:
    """One random but legal day: speeches, a vote, maybe a tie and revote, last words."""
    log.start_day()
    for speaker in log.speaking_order:
        others = [p for p in log.living if p != speaker]
        nominee = rng.choice(others) if rng.random() < nominate_p else None
        log.speak(speaker, random_speech(rng, speaker, others, words), nominee)
    nominees = log.nominees()
    if not nominees:
        return
    result = log.vote({v: rng.choice([*nominees, SKIP, *nominees]) for v in log.living})
    if result.kind == "tie":
        for tied in result.tied:
            log.defend(tied, f"I am innocent, {tied} is just a scapegoat today.")
        result = log.revote({v: rng.choice([*result.tied, SKIP]) for v in log.living})
    if result.eliminated is not None and log.winner() is None:
        log.last_words(f"Remember my votes. {result.eliminated} out.")


def play_night(log: LogBuilder, rng: random.Random) -> None:
    """One random but legal night, with disagreement in Round 1 now and then."""
    mafia = log.with_role(Role.MAFIA)
    targets = [p for p in log.living if p not in mafia]
    doctor = log.with_role(Role.DOCTOR)
    detective = log.with_role(Role.DETECTIVE)
    protect = rng.choice(log.living) if doctor else None
    investigate = None
    if detective:
        investigate = rng.choice([p for p in log.living if p != detective[0]])
    if len(mafia) >= 2 and rng.random() < 0.3:
        proposals = {m: (rng.choice([*targets, SKIP]), f"{m} wants this one.") for m in mafia}
        log.night(protect=protect, investigate=investigate, proposals=proposals)
    else:
        log.night(rng.choice([*targets, SKIP]), protect=protect, investigate=investigate)


def play_random(
    seed: int, players: int = 7, rounds: int = 6, *, words: int = 0, thoughts: bool = True
) -> LogBuilder:
    """A whole random legal game of up to ``rounds`` rounds (stops when a side wins)."""
    rng = random.Random(seed)
    log = LogBuilder(players=players, seed=seed, thoughts=thoughts)
    log.night_zero()
    for _ in range(rounds):
        play_day(log, rng, words=words)
        if log.winner() is not None:
            break
        play_night(log, rng)
        if log.winner() is not None:
            break
    winner = log.winner()
    if winner is not None:
        log.game_over(winner, f"{winner} reached its goal")
    return log


# ---- the seven-player script shared by the context tests and the golden files ---------------

SEVEN = ("Mafia", "Town", "Detective", "Doctor", "Mafia", "Town", "Town")
DAY2_SPEECHES = {
    "Player 2": "Player 7 died last night, so the Mafia fear quiet voices. I think Player 1 is "
    "suspicious: he pushed Player 6 hard yesterday.",
    "Player 3": "I'm the Detective. I checked Player 5 last night: Mafia. Vote Player 5.",
    "Player 4": "I believe Player 3. Player 5 has been dodging questions all game.",
    "Player 5": "Player 3 is lying, I am not Mafia. Player 2 is the one pushing a mislynch.",
    "Player 1": "I agree with Player 5 that Player 3 is a fake claim.",
}
DAY2_NOMINATIONS = {"Player 2": "Player 1", "Player 3": "Player 5", "Player 5": "Player 2"}
# Nominations that put the Detective and the Doctor on the ballot (for their ties and exits).
DAY2_NOMINATIONS_34 = {
    "Player 2": "Player 1",
    "Player 3": "Player 5",
    "Player 5": "Player 3",
    "Player 1": "Player 4",
}


def seven_to_day2(*, thoughts: bool = True) -> LogBuilder:
    """Night zero, day 1 (Player 6 voted out, last words), night 1 (Round 2, Player 7 killed,
    Player 3 protected, Player 5 investigated), and the dawn of day 2."""
    log = LogBuilder(list(SEVEN), thoughts=thoughts)
    log.night_zero(
        {
            "Player 1": "Signal agreement by opening with 'honestly'. Push Player 6 on day 1.",
            "Player 5": "I will play the quiet analyst and vote with the majority.",
        }
    )
    log.start_day()
    log.discuss(
        {
            "Player 1": (
                "Player 6 has been evasive from the start. I nominate Player 6.",
                "Player 6",
            ),
            "Player 2": "Too early to tell. I am just a townie listening.",
            "Player 3": "No reads yet; I want to hear everyone first.",
            "Player 4": ("Player 2 is hedging too much for my taste.", "Player 2"),
            "Player 5": "Honestly, I agree with Player 1 about Player 6.",
            "Player 6": "I am not Mafia. Player 1 is rushing this, which is suspicious.",
            "Player 7": "I will follow the votes and keep notes.",
        }
    )
    log.vote(
        {
            "Player 1": "Player 6",
            "Player 2": "Player 6",
            "Player 3": "skip",
            "Player 4": "Player 2",
            "Player 5": "Player 6",
            "Player 6": "Player 2",
            "Player 7": "Player 6",
        }
    )
    log.last_words("You are making a mistake. Watch Player 1 and Player 5.")
    log.night(
        protect="Player 3",
        investigate="Player 5",
        proposals={
            "Player 1": ("Player 7", "Player 7 takes notes; he will find us."),
            "Player 5": ("Player 3", "Player 3 stayed neutral; likely a power role."),
        },
        round2={"Player 1": "Player 7", "Player 5": "Player 7"},
    )
    log.start_day()
    return log


def seven_day2_speeches(
    log: LogBuilder, upto: int | None = None, nominations: Mapping[str, str] = DAY2_NOMINATIONS
) -> LogBuilder:
    """The first ``upto`` speeches of day 2 (all of them by default), in speaking order."""
    for speaker in log.speaking_order[:upto]:
        log.speak(speaker, DAY2_SPEECHES[speaker], nominations.get(speaker))
    return log


Case = tuple[list[EventBase], str, ActionKind, bool]  # (log so far, player, action, game_over)


def _vote_day2(nominations: Mapping[str, str], ballots: Mapping[str, str]) -> LogBuilder:
    log = seven_day2_speeches(seven_to_day2(), nominations=nominations)
    log.vote(ballots)
    return log


def context_cases() -> dict[tuple[ActionKind, Role], Case]:
    """One decision for every action and every role that can take it, all from the seven-player
    script: day 2 speeches, votes, ties (Player 2/Player 5 and Player 3/Player 4), revotes, last
    words (Player 2's exit ends the game), and night 2 with a Round 2 and a lone Mafia."""
    cases: dict[tuple[ActionKind, Role], Case] = {}
    mafia, town, det, doc = Role.MAFIA, Role.TOWN, Role.DETECTIVE, Role.DOCTOR

    zero = LogBuilder(list(SEVEN))
    zero.events.append(
        NightZeroStrategy(round=0, speaker="Player 1", strategy="Open with 'honestly' to signal.")
    )
    cases[(ActionKind.NIGHT_ZERO, mafia)] = (
        list(zero.events),
        "Player 5",
        ActionKind.NIGHT_ZERO,
        False,
    )

    for role, speaker in (
        (town, "Player 2"),
        (det, "Player 3"),
        (doc, "Player 4"),
        (mafia, "Player 5"),
    ):
        log = seven_to_day2()
        seven_day2_speeches(log, upto=log.speaking_order.index(speaker))
        cases[(ActionKind.SPEAK, role)] = (list(log.events), speaker, ActionKind.SPEAK, False)

    voting = seven_day2_speeches(seven_to_day2())
    for role, voter in (
        (mafia, "Player 1"),
        (town, "Player 2"),
        (det, "Player 3"),
        (doc, "Player 4"),
    ):
        cases[(ActionKind.VOTE, role)] = (list(voting.events), voter, ActionKind.VOTE, False)

    tie25 = {
        "Player 1": "Player 2",
        "Player 5": "Player 2",
        "Player 3": "Player 5",
        "Player 4": "Player 5",
        "Player 2": "skip",
    }
    tie34 = {
        "Player 1": "Player 3",
        "Player 5": "Player 3",
        "Player 2": "Player 4",
        "Player 3": "Player 4",
        "Player 4": "Player 1",
    }
    log = _vote_day2(DAY2_NOMINATIONS, tie25)
    cases[(ActionKind.DEFENSE, town)] = (list(log.events), "Player 2", ActionKind.DEFENSE, False)
    log.defend("Player 2", "I nominated no one yesterday and I am Town. Look at Player 5.")
    cases[(ActionKind.DEFENSE, mafia)] = (list(log.events), "Player 5", ActionKind.DEFENSE, False)
    log.defend("Player 5", "The Detective claim is fake. Player 2 is the safer bet.")
    for role, voter in (
        (mafia, "Player 1"),
        (town, "Player 2"),
        (det, "Player 3"),
        (doc, "Player 4"),
    ):
        cases[(ActionKind.REVOTE, role)] = (list(log.events), voter, ActionKind.REVOTE, False)
    log = _vote_day2(DAY2_NOMINATIONS_34, tie34)
    cases[(ActionKind.DEFENSE, det)] = (list(log.events), "Player 3", ActionKind.DEFENSE, False)
    log.defend("Player 3", "I am the Detective and Player 5 is Mafia. Do not waste my results.")
    cases[(ActionKind.DEFENSE, doc)] = (list(log.events), "Player 4", ActionKind.DEFENSE, False)

    exits = (
        (town, "Player 2", DAY2_NOMINATIONS, True),
        (det, "Player 3", DAY2_NOMINATIONS_34, False),
        (doc, "Player 4", DAY2_NOMINATIONS_34, False),
        (mafia, "Player 5", DAY2_NOMINATIONS, False),
    )
    for role, out, nominations, ends in exits:
        voters = seven_to_day2().living
        log = _vote_day2(nominations, {v: out if v != out else "skip" for v in voters})
        cases[(ActionKind.LAST_WORDS, role)] = (list(log.events), out, ActionKind.LAST_WORDS, ends)

    night = _vote_day2(DAY2_NOMINATIONS, dict.fromkeys(seven_to_day2().living, "skip"))
    cases[(ActionKind.PROTECT, doc)] = (list(night.events), "Player 4", ActionKind.PROTECT, False)
    cases[(ActionKind.INVESTIGATE, det)] = (
        list(night.events),
        "Player 3",
        ActionKind.INVESTIGATE,
        False,
    )
    night.mafia_round1({"Player 1": ("Player 3", "The Detective claim must die tonight.")})
    cases[(ActionKind.MAFIA_ROUND1, mafia)] = (
        list(night.events),
        "Player 5",
        ActionKind.MAFIA_ROUND1,
        False,
    )
    night.mafia_round1({"Player 5": ("Player 4", "Player 4 will protect Player 3; hit the Doctor.")})
    cases[(ActionKind.MAFIA_ROUND2, mafia)] = (
        list(night.events),
        "Player 1",
        ActionKind.MAFIA_ROUND2,
        False,
    )

    lone = _vote_day2(DAY2_NOMINATIONS, {v: "Player 5" for v in seven_to_day2().living})
    lone.last_words("Player 1, it is up to you now.")
    cases[(ActionKind.NIGHT_KILL, mafia)] = (
        list(lone.events),
        "Player 1",
        ActionKind.NIGHT_KILL,
        False,
    )
    for role, action in ((Role.BODYGUARD, ActionKind.GUARD), (Role.VIGILANTE, ActionKind.SHOOT)):
        power_night = (list(cases[(ActionKind.PROTECT, doc)][0]), POWER_SEAT, action, False)
        cases.update(power_cases({**cases, (action, town): power_night}, role))
    cases.update(godfather_cases(cases))
    return cases


POWER_SEAT = "Player 2"
"""The seat an optional Town power's cases deal that role: the script's Town player who speaks,
votes, defends, revotes and leaves (the seven-player script with that seat's role swapped)."""

NIGHT1_CHOICE = {Role.BODYGUARD: ("Player 4", "Player 4 spoke up."), Role.VIGILANTE: (SKIP, "Too early.")}
"""What each optional Town power chose on night 1 of the script: the Bodyguard guarded Player 4,
the Vigilante kept its shot."""


def with_power(events: Sequence[EventBase], power: Role) -> list[EventBase]:
    """The script's log with Player 2 dealt ``power``, who made its night 1 choice."""
    out: list[EventBase] = []
    for event in events:
        if isinstance(event, GameStarted):
            event = event.model_copy(update={"town": event.town - 1, field_name(power): 1})
        elif isinstance(event, RoleAssigned) and event.player == POWER_SEAT:
            event = event.model_copy(update={"role": power})
        elif isinstance(event, GameOver):
            roles = [
                r.model_copy(update={"role": power}) if r.player == POWER_SEAT else r for r in event.roles
            ]
            event = event.model_copy(update={"roles": roles})
        out.append(event)
        if isinstance(event, DoctorProtection) and event.round == 1:
            out.append(night_event(power, 1, POWER_SEAT, *NIGHT1_CHOICE[power]))
    return out


def power_cases(
    cases: Mapping[tuple[ActionKind, Role], Case], power: Role
) -> dict[tuple[ActionKind, Role], Case]:
    """An optional Town power's decisions: the Town seat's cases (and the night's own choice)
    with that seat dealt ``power``."""
    return {
        (action, power): (with_power(events, power), player, action, game_over)
        for (action, role), (events, player, _, game_over) in cases.items()
        if role is Role.TOWN and player == POWER_SEAT
    }


def with_godfather(events: Sequence[EventBase], seat: str) -> list[EventBase]:
    """The script's log with the Mafia player ``seat`` dealt the Godfather: the Detective's
    check of them shows Not Mafia, as the rules say."""
    out: list[EventBase] = []
    for event in events:
        if isinstance(event, GameStarted):
            event = event.model_copy(update={"mafia": event.mafia - 1, "godfather": 1})
        elif isinstance(event, RoleAssigned) and event.player == seat:
            event = event.model_copy(update={"role": Role.GODFATHER})
        elif isinstance(event, Investigation) and event.target == seat:
            event = event.model_copy(update={"result": "Not Mafia"})
        elif isinstance(event, GameOver):
            roles = [
                r.model_copy(update={"role": Role.GODFATHER}) if r.player == seat else r for r in event.roles
            ]
            event = event.model_copy(update={"roles": roles})
        out.append(event)
    return out


def godfather_cases(cases: Mapping[tuple[ActionKind, Role], Case]) -> dict[tuple[ActionKind, Role], Case]:
    """The Godfather's decisions: every Mafia case with its player dealt the Godfather."""
    return {
        (action, Role.GODFATHER): (with_godfather(events, player), player, action, game_over)
        for (action, role), (events, player, _, game_over) in cases.items()
        if role is Role.MAFIA
    }


def build_case(case: Case, policy: ContextPolicy = ContextPolicy()) -> RenderedPrompt:  # noqa: B008
    """The prompt ``build_context`` renders for one of the ``context_cases``."""
    events, player, action, game_over = case
    return build_context(events, player, action, policy, game_over=game_over)
