"""The game's protocol as two tables: what each action is (``ACTIONS``) and what each step of the
turn sequence does (``STEPS``), in the shape of open_spiel's game definitions.

An action's row holds its answer fields, whether its words may claim a role, its legal fallback,
its text limit, its legal options (from the rules) and its task template. A step's row says who is
asked, how their answers apply (each returning a typed ``GameUpdate``) and which steps may follow,
named by its router's ``Literal`` return: the graph (mafia.graph) is built from this table, one
node and one router per step, so it draws exactly the edges a game can take, and a random-play
driver can run the same sequence without LangGraph. Adding an action is a row here, a template
under prompts/tasks/ and a house tactic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args, get_type_hints

from mafia.game.actions import ActionKind, TextLimits
from mafia.game.day import (
    open_day,
    record_defense,
    record_last_words,
    record_speech,
    tally_revote,
    tally_vote,
)
from mafia.game.night import (
    check_win,
    game_over,
    night_resolution,
    open_night,
    record_night_turn,
    record_night_zero,
    record_round1,
    record_round2,
)
from mafia.game.reading import request, table
from mafia.game.rules import (
    SKIP,
    Role,
    ballot_options,
    investigation_targets,
    night_kill_targets,
    nomination_targets,
    protection_targets,
)
from mafia.game.state import JSON, GameState, GameUpdate, TurnRequest

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


def _protect_self(player: str, options: Sequence[str]) -> str | None:
    return player if player in options else options[0]


def _first_option(player: str, options: Sequence[str]) -> str | None:
    return options[0]


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
    """The legal choice applied after the last re-ask fails, from the player and the options."""
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
    ActionKind.PROTECT: ActionSpec(
        "tasks/protect",
        "Answer: choice (whom you protect)" + _NO_TEXT,
        targets=lambda b: protection_targets(b.living),
        fallback=_protect_self,
    ),
    ActionKind.INVESTIGATE: ActionSpec(
        "tasks/investigate",
        "Answer: choice (whom you investigate)" + _NO_TEXT,
        targets=lambda b: investigation_targets(b.living, b.me),
        fallback=_first_option,  # the lowest-seat candidate
    ),
}
"""Every action's row. Unless it says otherwise an action chooses (skip is its fallback), writes no
text and claims nothing."""


def board(state: GameState, player: str) -> Board:
    """The engine's board for ``player``: the living, the Mafia, today's nominees (the tied players
    during defense and revote)."""
    t = table(state)
    return Board(
        living=t.living,
        me=player,
        mafia=t.with_role(Role.MAFIA),
        nominees=state["nominees"],
        tied=state["nominees"],
    )


def options_of(kind: ActionKind, state: GameState, player: str) -> list[str]:
    """The legal options of ``kind`` for ``player`` now, from the rules (empty: no target)."""
    targets = ACTIONS[kind].targets
    return targets(board(state, player)) if targets is not None else []


def ask(state: GameState, player: str, kind: ActionKind, *, game_over: bool = False) -> TurnRequest:
    """The request for ``player`` to take ``kind`` now, with its legal options."""
    return request(state, player, kind, options_of(kind, state, player), game_over=game_over)


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
    return [ask(state, m, ActionKind.MAFIA_ROUND2) for m in table(state).with_role(Role.MAFIA)]


def ask_night_start(state: GameState) -> list[TurnRequest]:
    """The night's first turns, at once: the first Mafia member's Round 1 proposal (a lone Mafia's
    direct choice), the Doctor's protection and the Detective's check."""
    t = table(state)
    mafia = t.with_role(Role.MAFIA)
    kill = ActionKind.NIGHT_KILL if len(mafia) == 1 else ActionKind.MAFIA_ROUND1
    return [
        ask(state, mafia[0], kill),
        *(ask(state, d, ActionKind.PROTECT) for d in t.with_role(Role.DOCTOR)),
        *(ask(state, d, ActionKind.INVESTIGATE) for d in t.with_role(Role.DETECTIVE)),
    ]


# ---- which step follows --------------------------------------------------------------------

StepName = Literal[
    "setup",
    "night_zero",
    "day_start",
    "speak",
    "vote",
    "defense",
    "revote",
    "last_words",
    "check_win",
    "night_start",
    "mafia_round1",
    "mafia_round2",
    "night_resolution",
    "game_over",
]
"""Every step of the turn sequence: one graph node each."""

AfterNightZero = Literal["night_zero", "day_start"]
AfterDayStart = Literal["speak", "game_over"]
AfterSpeak = Literal["speak", "vote"]
AfterVote = Literal["last_words", "defense", "night_start"]
AfterDefense = Literal["defense", "revote"]
AfterRevote = Literal["last_words", "night_start"]
AfterNightStart = Literal["mafia_round1", "night_resolution"]
AfterRound1 = Literal["mafia_round1", "mafia_round2", "night_resolution"]
AfterCheckWin = Literal["game_over", "night_start", "day_start"]


def route_night_zero(state: GameState) -> AfterNightZero:
    """Mafia plan one at a time in seat order, each seeing the earlier plans; then the first day."""
    return "night_zero" if state["queue"] else "day_start"


def route_day_start(state: GameState) -> AfterDayStart:
    """The day's first speech, or the end of a game that reached its round cap."""
    return "game_over" if state["step"] == "over" else "speak"


def route_speeches(state: GameState) -> AfterSpeak:
    """Next speaker; after the last speech every living player votes at once."""
    return "speak" if state["queue"] else "vote"


def route_vote(state: GameState) -> AfterVote:
    """Last words for the eliminated, defense for the tied, or on to the night."""
    step = state["step"]
    return "last_words" if step == "last_words" else "defense" if step == "defense" else "night_start"


def route_defense(state: GameState) -> AfterDefense:
    """Tied players defend in seat order; then everyone revotes among them at once."""
    return "defense" if state["queue"] else "revote"


def route_revote(state: GameState) -> AfterRevote:
    """Last words for the eliminated; a tied revote eliminates no one."""
    return "last_words" if state["step"] == "last_words" else "night_start"


def route_night(state: GameState) -> AfterNightStart:
    """After the night's first turns: the other Mafia's proposals, or (a lone Mafia) the outcome."""
    return "mafia_round1" if state["step"] == "mafia_round1" else "night_resolution"


def route_round1(state: GameState) -> AfterRound1:
    """Round 1 goes on in seat order; without agreement every Mafia answers Round 2 at once."""
    step = state["step"]
    if step == "mafia_round1":
        return "mafia_round1"
    return "mafia_round2" if step == "mafia_round2" else "night_resolution"


def route_check_win(state: GameState) -> AfterCheckWin:
    """A winner ends the game; otherwise a day is followed by night and a night by day."""
    if state["winner"] is not None:
        return "game_over"
    return "night_start" if state["phase"] == "day" else "day_start"


Router = Callable[[GameState], str]
Record = Callable[[GameState, JSON], GameUpdate]
Settle = Callable[[GameState, list[JSON]], GameUpdate]


@dataclass(frozen=True)
class StepSpec:
    """One step of the turn sequence: a bookkeeping step (``run``) or a turn step (``ask``), and
    what may follow it (one fixed step, or its router's ``Literal`` return)."""

    follows: tuple[StepName, ...]
    """The steps that may come next: the router's ``Literal`` values, or the one fixed successor
    (empty: the game ends)."""
    route: Router | None = None
    """Picks the next step from the state after this one (None: ``follows`` holds one step)."""
    run: Callable[..., GameUpdate] | None = None
    """A bookkeeping step's node function (the day's opening, the night's outcome...)."""
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


def _routed(router: Callable[[GameState], Any]) -> tuple[StepName, ...]:
    """The steps a router may return: its ``Literal`` annotation, read once."""
    return tuple(get_args(get_type_hints(router)["return"]))


def _routed_step(router: Callable[[GameState], Any], **fields: Any) -> StepSpec:
    return StepSpec(follows=_routed(router), route=router, **fields)


STEPS: dict[StepName, StepSpec] = {
    # Setup's node (nodes/setup.py) checks the run's models and context, so the graph adds it.
    "setup": StepSpec(follows=("night_zero",)),  # every table has Mafia, who plan first
    "night_zero": _routed_step(route_night_zero, ask=ask_night_zero, record=record_night_zero),
    "day_start": _routed_step(route_day_start, run=open_day),
    "speak": _routed_step(route_speeches, ask=ask_speech, record=record_speech),
    "vote": _routed_step(route_vote, ask=ask_vote, at_once=True, settle=tally_vote),
    "defense": _routed_step(route_defense, ask=ask_defense, record=record_defense),
    "revote": _routed_step(route_revote, ask=ask_revote, at_once=True, settle=tally_revote),
    "last_words": StepSpec(follows=("check_win",), ask=ask_last_words, record=record_last_words),
    "check_win": _routed_step(route_check_win, run=check_win),
    "night_start": _routed_step(
        route_night, ask=ask_night_start, at_once=True, opens=open_night, record=record_night_turn
    ),
    "mafia_round1": _routed_step(route_round1, ask=ask_round1, record=record_round1),
    "mafia_round2": StepSpec(
        follows=("night_resolution",), ask=ask_round2, at_once=True, settle=record_round2
    ),
    "night_resolution": StepSpec(follows=("check_win",), run=night_resolution),
    "game_over": StepSpec(follows=(), run=game_over),
}
"""The turn sequence: every step, what it does and what may follow. The game starts at ``setup``
and ends after ``game_over``."""

FIRST_STEP: StepName = "setup"


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
    spec: StepSpec, opened: GameUpdate, state: GameState, played: Sequence[tuple[JSON, list[JSON]]]
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
