"""Game state: the shared GameState, the input a user gives, and a turn's request.

State is JSON-plain (dicts, lists, strings) so checkpoints, Studio and the JSONL logs all read it
without custom serializers. The event log is the single source of truth; the other game fields are
small derived values kept beside it deliberately so routers stay O(1). How the graph stores the
two append-only fields (``events``, ``prompts``) is the graph's (mafia.graph): this package knows
nothing of LangGraph.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

JSON = dict[str, Any]


class SetupInput(TypedDict):
    """A game's setup as a user gives it (every key optional; defaults are the 7-seat game)."""

    players: NotRequired[int]
    names: NotRequired[list[str]]
    roles: NotRequired[dict[str, int]]
    seed: NotRequired[int]
    round_cap: NotRequired[int]
    game_id: NotRequired[str]


class InputState(TypedDict):
    """What a run starts from: only the setup (Studio's input form asks for this alone)."""

    setup: SetupInput


class OutputState(TypedDict):
    """What a finished run returns: the log and the result."""

    game_id: str
    events: list[JSON]
    winner: str | None


StepName = Literal[
    "setup",
    "night_zero",
    "day_start",
    "summary",
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
"""Every step of the turn sequence (one graph node each), by the one name the protocol table, the
appliers, the state and the graph all use."""


class GameState(TypedDict, total=False):
    """The shared state of one game. Before setup it holds only ``setup``; setup writes every other
    field, so each node after it reads them all (and a node's update, ``GameUpdate``, any of them)."""

    setup: SetupInput
    """The setup as given; read by ``setup`` only."""
    game_id: str
    """Stable id of this game (from the setup or derived from the seed)."""
    day: str
    """For people reading the state: "Night 0", "Day 2", "Night 2"... and "Game over"."""
    alive: list[str]
    """For people reading the state: the living players in seat order."""
    turn: str
    """For people reading the state: whose turn comes next, e.g. "Day 2 · speak · Player 4"."""
    events: list[JSON]
    """The append-only event log (JSON-plain events): a node's update holds only its new events."""
    prompts: list[JSON]
    """One record per finished turn (its prompt, attempts and choice), written in the same step as
    the turn's events, so a checkpoint holds exactly the records of the turns it holds. Kept out of
    the output: the run's log writer reads it and writes ``prompts.jsonl``."""
    seats: list[JSON]
    """Seat order with each player's secret role: ``{"seat", "name", "role"}``. Engine-only."""
    dead: list[str]
    """Players who have died, in order of death. Overwritten whole."""
    round: int
    """Current round: Day k then Night k; 0 is setup and night zero."""
    round_cap: int
    """The last round that may start; a game still running after it is a draw."""
    phase: Literal["day", "night"]
    """Where ``check_win`` goes on to when nobody has won."""
    step: StepName
    """The step that comes next, named by the step that just ran (its appliers); the step's router
    checks it against the followers its row declares."""
    opener: str | None
    """Who opened the current day's speeches (the next day starts one living seat further)."""
    queue: list[str]
    """Players still to act in the current sequential phase (speeches, defenses, Mafia Round 1)."""
    nominees: list[str]
    """Today's nominees in order of first nomination; the tied players during defense/revote."""
    night_turns: list[Turn]
    """Tonight's finished Doctor and Detective turns, in seat order, until the night resolves."""
    pending_last_words: str | None
    """The player just voted out, who speaks last words next."""
    winner: str | None
    """"mafia", "town" or "draw" once the game is over."""
    run: JSON
    """What the run was started as (``mafia.run.record``): models by seat, people, policy and
    settings. Written by setup; replaced only by a change a resume asked for explicitly."""


GameUpdate = GameState
"""What a node of the game graph returns: any of GameState's fields, each typed as the state types
it, so a misspelt ``step`` or a field the state lacks fails the type check."""


class Turn(TypedDict):
    """One finished turn, as the appliers read it: who answered what (a fallback's choice and
    words where the answers were rejected)."""

    id: str
    order: int
    player: str
    action: str
    choice: str | None
    text: str | None
    claim: str | None
    reasoning: str
    """The turn's private reasoning (a night action's event keeps it)."""


class TurnRequest(TypedDict):
    """What a step asks of one player: the action, its legal options and its fallback, computed
    once by the protocol table from the game state. The prompt lists ``options``, ``commit`` checks
    the answer against them and applies ``fallback`` once every answer is rejected."""

    id: str
    round: int
    player: str
    action: str
    options: list[str]
    fallback: str | None
    """The legal choice applied when every answer is rejected (None: the action chooses no one)."""
    game_over: bool
    order: int
