"""The game's protocol as two tables: what each action is (``ACTIONS``) and what each step of the
turn sequence does (``STEPS``), in the shape of open_spiel's game definitions.

An action's row holds its answer fields, whether its words may claim a role, its legal fallback,
its text limit, its legal options (from the rules) and its task template. A step's row says who is
asked, how their answers apply (each returning a typed ``GameUpdate`` that names the next step)
and which steps may follow: the graph (mafia.graph) is built from this table, one node and one
router (``route``) per step, so it draws exactly the edges a game can take, and the reference
game (mafia.game.play) runs the same sequence without LangGraph. Adding an action is a row here, a template
under prompts/tasks/ and a house tactic.

The Mafia's kill is applied here, beside its rows: each proposal or choice is logged, then the
rules (mafia.game.rules: ``after_round1``, ``after_round2``) decide the kill and name the step that
follows, which ``route`` checks. The other steps' appliers live in mafia.game.day and .night.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from mafia.game.actions import ActionKind, TextLimits
from mafia.game.day import (
    open_day,
    record_defense,
    record_last_words,
    record_speech,
    tally_revote,
    tally_vote,
    to_speeches,
)
from mafia.game.events import Ballot, MafiaDiscussion, MafiaVote
from mafia.game.night import (
    check_win,
    game_over,
    has_uses_left,
    night_resolution,
    open_night,
    record_night_zero,
)
from mafia.game.reading import chosen, dump, request, since_daybreak, table
from mafia.game.rules import (
    ROLES,
    SKIP,
    KillProgress,
    NightSpec,
    after_round1,
    after_round2,
    ballot_options,
    lone_kill,
    night_kill_targets,
    nomination_targets,
)
from mafia.game.state import JSON, GameState, GameUpdate, StepName, Turn, TurnRequest

# ---- actions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Board:
    """What an action's legal options are computed from: the engine fills it from the game state,
    a prompt from the player's view, so both list the same options."""

    living: Sequence[str]
    me: str
    mafia: Sequence[str]
    nominees: Sequence[str]
    tied: Sequence[str]


Targets = Callable[[Board], list[str]]
Fallback = Callable[[str, Sequence[str]], str | None]


def _no_choice(player: str, options: Sequence[str]) -> str | None:
    return None


def _skip(player: str, options: Sequence[str]) -> str | None:
    return SKIP


def _speech_limit(limits: TextLimits) -> int:
    return limits.speech


def _message_limit(limits: TextLimits) -> int:
    return limits.message


def _plan_limit(limits: TextLimits) -> int:
    return limits.plan


def _kill_targets(board: Board) -> list[str]:
    return night_kill_targets(board.living, board.mafia or [board.me])


@dataclass(frozen=True)
class ActionSpec:
    """One decision a player can be asked for."""

    template: str
    """The task's template under prompts/ (its values come from context/tasks.py)."""
    answer: str
    """The task's last line: which of the answer's text and choice it asks for."""
    targets: Targets | None = None
    """The legal options (the rules'), or None when the action has no target."""
    choice_field: str | None = "choice"
    """The answer field holding the choice (None: the action chooses no one)."""
    fallback: Fallback = _skip
    """The legal choice applied after the last re-ask fails, from the player and the options (the
    request carries it, computed when the player is asked)."""
    text_field: str | None = None
    """The answer field holding its words: a speech, a message to partners or a plan."""
    fallback_text: str | None = None
    """The fixed words a fallback publishes (never a rejected answer's)."""
    text_limit: Callable[[TextLimits], int] = _speech_limit
    """The longest text kept."""
    claims: bool = False
    """Whether its words may publicly claim a role (the answer's ``claim``)."""


def _words_only(
    template: str,
    answer: str,
    fallback_text: str,
    *,
    claims: bool = True,
    text_limit: Callable[[TextLimits], int] = _speech_limit,
) -> ActionSpec:
    """An action that only speaks (a defense, last words, a plan): no choice, and fixed words as
    its fallback."""
    return ActionSpec(
        template,
        answer,
        choice_field=None,
        fallback=_no_choice,
        text_field="text",
        fallback_text=fallback_text,
        text_limit=text_limit,
        claims=claims,
    )


_NO_TEXT = "; text null."


def _night_row(action: ActionKind, night: NightSpec) -> ActionSpec:
    """The action row of a role's own night choice, as its ``ROLES`` row says."""
    return ActionSpec(
        f"tasks/{action.value}",
        f"Answer: choice ({night.answer})" + _NO_TEXT,
        targets=lambda b: night.targets(b.living, b.me),
        fallback=night.fallback,
    )


_CLAIM = "claim (the role you claim, or null)"

ACTIONS: dict[ActionKind, ActionSpec] = {
    ActionKind.SPEAK: ActionSpec(
        "tasks/speak",
        f"Answer: text (your speech), choice (whom you nominate, or null), {_CLAIM}.",
        targets=lambda b: nomination_targets(b.living, b.me),
        fallback=_no_choice,  # a speech may nominate no one
        text_field="text",
        fallback_text="I have nothing to add right now.",
        claims=True,
    ),
    ActionKind.VOTE: ActionSpec(
        "tasks/vote",
        "Answer: choice (your ballot)" + _NO_TEXT,
        targets=lambda b: ballot_options(b.nominees),
    ),
    ActionKind.DEFENSE: _words_only(
        "tasks/defense",
        f"Answer: text (your defense), {_CLAIM}; choice null.",
        "I am not Mafia. I have nothing more to add.",
    ),
    ActionKind.REVOTE: ActionSpec(
        "tasks/revote",
        "Answer: choice (your ballot)" + _NO_TEXT,
        targets=lambda b: ballot_options(b.tied),
    ),
    ActionKind.LAST_WORDS: _words_only(
        "tasks/last_words", f"Answer: text (your last words), {_CLAIM}; choice null.", "Good luck, everyone."
    ),
    ActionKind.NIGHT_ZERO: _words_only(
        "tasks/night_zero",
        "Answer: text (your plan); choice null.",
        "No plan given; follow your instincts.",
        claims=False,
        text_limit=_plan_limit,
    ),
    ActionKind.MAFIA_ROUND1: ActionSpec(
        "tasks/mafia_round1",
        "Answer: choice (your proposal), text (your message to partners).",
        targets=_kill_targets,
        text_field="text",
        fallback_text="No message.",
        text_limit=_message_limit,
    ),
    ActionKind.MAFIA_ROUND2: ActionSpec(
        "tasks/mafia_round2", "Answer: choice (your final choice)" + _NO_TEXT, targets=_kill_targets
    ),
    ActionKind.NIGHT_KILL: ActionSpec(
        "tasks/night_kill", "Answer: choice (the kill)" + _NO_TEXT, targets=_kill_targets
    ),
}
ACTIONS |= {
    role.night_action: _night_row(role.night_action, role.night)
    for role in sorted(
        ROLES.values(), key=lambda r: list(ActionKind).index(r.night_action or ActionKind.SPEAK)
    )
    if role.night_action is not None and role.night is not None
}
"""Every action's row. Unless it says otherwise an action chooses (skip is its fallback), writes no
text and claims nothing. A role's own night action is its ``ROLES`` row's: its task template is
named for the action, its answer line, legal choices and fallback are the row's ``night``."""


def board(state: GameState, player: str) -> Board:
    """The engine's board for ``player``: the living, the Mafia, today's nominees (the tied players
    during defense and revote)."""
    t = table(state)
    return Board(
        living=t.living,
        me=player,
        mafia=t.mafia(),
        nominees=state["nominees"],
        tied=state["nominees"],
    )


def options_of(kind: ActionKind, state: GameState, player: str) -> list[str]:
    """The legal options of ``kind`` for ``player`` now, from the rules (empty: no target)."""
    targets = ACTIONS[kind].targets
    return targets(board(state, player)) if targets is not None else []


def ask(state: GameState, player: str, kind: ActionKind, *, game_over: bool = False) -> TurnRequest:
    """The request for ``player`` to take ``kind`` now, with its legal options and the fallback its
    row takes from them."""
    options = options_of(kind, state, player)
    fallback = ACTIONS[kind].fallback(player, options)
    return request(state, player, kind, options, fallback, game_over=game_over)


# ---- who each step asks --------------------------------------------------------------------


def ask_night_zero(state: GameState) -> list[TurnRequest]:
    """The next Mafia member's night-zero plan (each sees the earlier plans)."""
    return [ask(state, state["queue"][0], ActionKind.NIGHT_ZERO)]


def ask_speech(state: GameState) -> list[TurnRequest]:
    """The next speaker, who may nominate any other living player."""
    return [ask(state, state["queue"][0], ActionKind.SPEAK)]


def ask_defense(state: GameState) -> list[TurnRequest]:
    """The next tied player's defense."""
    return [ask(state, state["queue"][0], ActionKind.DEFENSE)]


def ask_last_words(state: GameState) -> list[TurnRequest]:
    """The eliminated player's last words (told when the elimination ends the game)."""
    player = state["pending_last_words"]
    assert player is not None, "last words follow an elimination"
    return [ask(state, player, ActionKind.LAST_WORDS, game_over=table(state).winner() is not None)]


def ask_round1(state: GameState) -> list[TurnRequest]:
    """The next Mafia member's Round 1 proposal (each sees the earlier ones)."""
    return [ask(state, state["queue"][0], ActionKind.MAFIA_ROUND1)]


def _ballots(state: GameState, kind: ActionKind) -> list[TurnRequest]:
    """Every living player's ballot among today's nominees (or the tied); no nominee, no ballots."""
    if not state["nominees"]:
        return []
    return [ask(state, p, kind) for p in table(state).living]


def ask_vote(state: GameState) -> list[TurnRequest]:
    """Every living player's ballot among today's nominees, at once."""
    return _ballots(state, ActionKind.VOTE)


def ask_revote(state: GameState) -> list[TurnRequest]:
    """Every living player's ballot among the tied players, at once."""
    return _ballots(state, ActionKind.REVOTE)


def ask_round2(state: GameState) -> list[TurnRequest]:
    """Every living Mafia member's Round 2 choice, at once."""
    return [ask(state, m, ActionKind.MAFIA_ROUND2) for m in table(state).mafia()]


def ask_night_start(state: GameState) -> list[TurnRequest]:
    """The night's first turns, at once: the first Mafia member's Round 1 proposal (a lone Mafia's
    direct choice), then each role's own night action (``ROLES``: the Doctor's protection, the
    Detective's check), role by role, from every holder with a use left (a row's ``uses``)."""
    t = table(state)
    mafia = t.mafia()
    kill = ActionKind.NIGHT_KILL if len(mafia) == 1 else ActionKind.MAFIA_ROUND1
    own = sorted((spec.wakes, role, spec.night_action) for role, spec in ROLES.items() if spec.night_action)
    return [
        ask(state, mafia[0], kill),
        *(
            ask(state, p, action)
            for _, role, action in own
            for p in t.with_role(role)
            if has_uses_left(state, role, p)
        ),
    ]


# ---- the Mafia's kill: each answer logged, then the rules' decision and the step it names ------


def record_night_turn(state: GameState, turn: Turn) -> GameUpdate:
    """Apply one of the night's first turns: the first Mafia proposal (or a lone Mafia's kill) at
    once; each role's own night choice waits in ``night_turns`` until the night resolves."""
    if turn["action"] in (ActionKind.MAFIA_ROUND1.value, ActionKind.NIGHT_KILL.value):
        return record_round1(state, turn)
    return {"night_turns": [*state["night_turns"], turn]}


def _discussion(state: GameState, turn: Turn, coordination_round: int) -> MafiaDiscussion:
    return MafiaDiscussion(
        round=state["round"],
        speaker=turn["player"],
        target=turn["choice"],
        message=turn["text"] or "",
        coordination_round=coordination_round,
    )


def _kill_vote(state: GameState, progress: KillProgress, coord: int) -> list[JSON]:
    """The Mafia's vote event once ``progress`` holds the decided kill (none before)."""
    decision = progress.decision
    if decision is None:
        return []
    names = table(state).names
    votes = progress.ballots
    ballots = [Ballot(voter=m, target=votes[m]) for m in sorted(votes, key=names.index)]
    vote = MafiaVote(
        round=state["round"],
        votes=ballots,
        final_target=decision.target,
        decided_by=decision.decided_by,
        coordination_round=coord,
    )
    return dump([vote])


def round1_proposals(state: GameState) -> dict[str, str]:
    """Tonight's Round 1 proposals so far, by Mafia member (read from the log)."""
    proposals: dict[str, str] = {}
    for event in since_daybreak(state, "mafia_discussion"):
        if event["coordination_round"] == 1 and event["round"] == state["round"]:
            proposals.setdefault(event["speaker"], event["target"])
    return proposals


def record_round1(state: GameState, turn: Turn) -> GameUpdate:
    """Record a Round 1 proposal (or a lone Mafia's direct choice) and what the rules make of it
    (``after_round1``, ``lone_kill``): the next proposal, Round 2, or the decided kill."""
    player = turn["player"]
    if turn["action"] == ActionKind.NIGHT_KILL.value:
        progress = lone_kill(player, chosen(turn))
        events = [*dump([_discussion(state, turn, 0)]), *_kill_vote(state, progress, 0)]
        return {"events": events, "queue": [], "step": progress.follows}
    queue = [q for q in state["queue"] if q != player]
    progress = after_round1({**round1_proposals(state), player: chosen(turn)}, queue)
    events = [*dump([_discussion(state, turn, 1)]), *_kill_vote(state, progress, 1)]
    return {"queue": queue, "step": progress.follows, "events": events}


def record_round2(state: GameState, turns: list[Turn]) -> GameUpdate:
    """Record every Round 2 choice in seat order and the kill the rules decide (``after_round2``:
    agreement, else the lowest-seat living Mafia member's choice)."""
    events = dump([_discussion(state, turn, 2) for turn in turns])
    choices = {t["player"]: chosen(t) for t in turns}
    progress = after_round2(choices, table(state).mafia())
    return {"events": [*events, *_kill_vote(state, progress, 2)], "step": progress.follows}


# ---- which step follows --------------------------------------------------------------------


class StepError(RuntimeError):
    """A step named a next step its row does not declare: a fault of the appliers, never routed."""


Record = Callable[[GameState, Turn], GameUpdate]
Settle = Callable[[GameState, list[Turn]], GameUpdate]


@dataclass(frozen=True)
class StepSpec:
    """One step of the turn sequence: a bookkeeping step (``run``) or a turn step (``ask``), and
    the steps that may follow it. Whatever runs the step names the next one in the state's
    ``step``; its router (``route``) checks the name against ``follows``."""

    follows: tuple[StepName, ...]
    """The steps that may come next (empty: the game ends)."""
    run: Callable[[GameState], GameUpdate] | None = None
    """A bookkeeping step's function (the day's opening, the night's outcome...)."""
    ask: Callable[[GameState], list[TurnRequest]] | None = None
    """Who a turn step asks, and for what: requests with their legal options."""
    at_once: bool = False
    """Whether its players answer at once (one task each, applied in request order) or alone."""
    opens: Callable[[GameState], GameUpdate] | None = None
    """An update applied before anyone is asked (the night's opening)."""
    record: Record | None = None
    """Applies one answered turn, right after that player's own events."""
    settle: Settle | None = None
    """Applies every answered turn together, after all of them (a vote's tally)."""


STEPS: dict[StepName, StepSpec] = {
    # Setup's node (nodes/setup.py) checks the run's models and context, so the graph adds it.
    "setup": StepSpec(follows=("night_zero",)),  # every table has Mafia, who plan first
    # Mafia plan one at a time in seat order, each seeing the earlier plans; then the first day.
    "night_zero": StepSpec(("night_zero", "day_start"), ask=ask_night_zero, record=record_night_zero),
    # The day's summary, or the end of a game past its round cap.
    "day_start": StepSpec(("summary", "game_over"), run=open_day),
    # Under a policy with summaries, the summariser's call (its node: nodes/summary.py); then the
    # day's first speech.
    "summary": StepSpec(("speak",), run=to_speeches),
    # Speeches in order; after the last every living player votes at once.
    "speak": StepSpec(("speak", "vote"), ask=ask_speech, record=record_speech),
    # Last words for the eliminated, defense for the tied, or on to the night.
    "vote": StepSpec(("last_words", "defense", "night_start"), ask=ask_vote, at_once=True, settle=tally_vote),
    # Tied players defend in seat order; then everyone revotes among them at once.
    "defense": StepSpec(("defense", "revote"), ask=ask_defense, record=record_defense),
    # Last words for the eliminated; a tied revote eliminates no one.
    "revote": StepSpec(("last_words", "night_start"), ask=ask_revote, at_once=True, settle=tally_revote),
    "last_words": StepSpec(("check_win",), ask=ask_last_words, record=record_last_words),
    # A winner ends the game; otherwise a day is followed by night and a night by day.
    "check_win": StepSpec(("game_over", "night_start", "day_start"), run=check_win),
    # The night's first turns; then the other Mafia's proposals, or (a lone Mafia) the outcome.
    "night_start": StepSpec(
        ("mafia_round1", "night_resolution"),
        ask=ask_night_start,
        at_once=True,
        opens=open_night,
        record=record_night_turn,
    ),
    # Round 1 goes on in seat order; without agreement every Mafia answers Round 2 at once.
    "mafia_round1": StepSpec(
        ("mafia_round1", "mafia_round2", "night_resolution"), ask=ask_round1, record=record_round1
    ),
    "mafia_round2": StepSpec(("night_resolution",), ask=ask_round2, at_once=True, settle=record_round2),
    "night_resolution": StepSpec(("check_win",), run=night_resolution),
    "game_over": StepSpec((), run=game_over),
}
"""The turn sequence: every step, what it does and what may follow. The game starts at ``setup``
and ends after ``game_over``."""

FIRST_STEP: StepName = "setup"


def route(name: StepName, table: Mapping[StepName, StepSpec] = STEPS) -> Callable[[GameState], StepName]:
    """The router of step ``name``: the next step as the step itself named it in the state, checked
    against the followers its row declares; any other name stops the game with a ``StepError``."""
    follows = table[name].follows

    def next_step(state: GameState) -> StepName:
        chosen = state["step"]
        if chosen not in follows:
            raise StepError(f"step {name!r} named {chosen!r} next; its row allows {', '.join(follows)}")
        return chosen

    next_step.__name__ = next_step.__qualname__ = f"after_{name}"
    return next_step


# ---- how a step's answers apply ------------------------------------------------------------


def merged(state: GameState, update: GameUpdate) -> GameState:
    """The state a later turn of the same step is applied to: ``update``'s fields over ``state``
    (its events excepted: appliers read only what was logged before the step)."""
    fields = {k: v for k, v in update.items() if k != "events"}
    return cast(GameState, {**state, **fields})


def opening(spec: StepSpec, state: GameState) -> GameUpdate:
    """What a step writes before anyone is asked (the night's opening), or nothing."""
    return spec.opens(state) if spec.opens is not None else {}


def apply_turns(
    spec: StepSpec, opened: GameUpdate, state: GameState, played: Sequence[tuple[Turn, list[JSON]]]
) -> GameUpdate:
    """What a step writes, in one update: its opening (``opened``), then each answered turn's own
    events (its player's thought, any fallback) followed by what applying that turn logged
    (``record``), then what applying them together logged (``settle``). ``played`` holds each turn
    with its own events, in request order."""
    update: GameUpdate = {**opened}
    current = merged(state, update)
    events: list[JSON] = [*update.get("events", [])]
    for turn, own in played:
        events += own
        if spec.record is not None:
            applied = spec.record(current, turn)
            events += applied.get("events", [])
            update |= applied
            current = merged(current, applied)
    if spec.settle is not None:
        settled = spec.settle(current, [turn for turn, _ in played])
        events += settled.get("events", [])
        update |= settled
    update["events"] = events
    return update
