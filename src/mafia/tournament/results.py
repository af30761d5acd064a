"""A tournament's games read back from its folder: for every finished game the side that won,
each seat's model label and role, and what each model's seats cost (calls, tokens, re-asks,
fallbacks). The seating comes from arena.json, the roles and the winner from the game's event log,
the costs from its prompt records; nothing is taken from memory of the run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mafia.arena.logs import read_events, read_json, read_jsonl, read_prompts
from mafia.arena.seat_play import Tally, seat_tallies
from mafia.arena.spec import ARENA_FILE, GAMES_DIR, RESULT_FILE, ArenaError
from mafia.game.rules import ROLES, Role
from mafia.game.state import JSON
from mafia.records.call_kinds import SUMMARY_ACTION
from mafia.records.cost import Cost, cost_of
from mafia.tournament.spec import KIND

COSTS = ("calls", "recalls", "tokens", "billed_tokens", "reasks", "fallbacks")
"""Each model's figures per game, from ``mafia.records.cost``: calls (every attempt, recall searches among
them), recall searches, tokens sent and output, billed-equivalent tokens, re-asks and fallbacks;
``server_seconds`` (the provider's own time, None where it reported none) comes beside them."""


@dataclass(frozen=True)
class TableResult:
    """One finished game: its run id, its deal's seed, the winner (town, mafia or draw), each seat's
    model label and role in seat order, each model's costs over its seats, the summariser's (a
    policy with summaries: calls and billed tokens of no seat), the role of each player the Town
    exiled by vote (in order), the rounds played and each seat's judged-play tallies."""

    game: str
    seed: int
    winner: str
    seats: tuple[tuple[str, str], ...]
    costs: dict[str, dict[str, float | None]] = field(default_factory=dict)
    summaries: dict[str, float] = field(default_factory=dict)
    exiled: tuple[str, ...] = ()
    rounds: int = 0
    play: tuple[Tally, ...] = ()
    """How each seat played (``seat_play.seat_tallies``), in seat order."""

    @property
    def self_play(self) -> bool:
        """Whether one model held every seat: a game shown apart and never rated."""
        return len({label for label, _ in self.seats}) == 1


def _figures(cost: Cost) -> dict[str, float | None]:
    """The figures of ``COSTS`` and ``server_seconds`` of one model's calls in one game."""
    return {
        "calls": cost.calls,
        "recalls": cost.recalls,
        "tokens": cost.tokens_sent + cost.output_tokens,
        "billed_tokens": cost.billed_equivalent,
        "reasks": cost.reasks,
        "fallbacks": sum(cost.fallbacks.values()),
        "server_seconds": cost.reported_seconds,
    }


def side_of(role: str) -> str:
    """The side a role plays on: ``mafia`` or ``town`` (the roles table's)."""
    return ROLES[Role(role)].side


@dataclass(frozen=True)
class Tournament:
    """A tournament folder: its ask (arena.json), its finished games in the ask's order, and the
    run ids of games without a result."""

    folder: Path
    request: JSON
    tables: list[TableResult]
    unfinished: list[str]

    @property
    def models(self) -> list[str]:
        """The model labels, in the order they were given."""
        return list(self.request["models"])


def read_table(folder: Path, game: str, labels: list[str]) -> TableResult:
    """The finished game in ``folder`` whose seats hold the models ``labels`` (seat 1 first)."""
    events = read_jsonl(folder / "events.jsonl")
    started = next((e for e in events if e.get("type") == "game_started"), None)
    over = next((e for e in reversed(events) if e.get("type") == "game_over"), None)
    if started is None or over is None:
        raise ArenaError(f"{folder}/events.jsonl: a finished game's log lacks its start or its end")
    players: list[str] = started["players"]
    if len(players) != len(labels):
        raise ArenaError(f"{folder}: {len(players)} seats, but arena.json seats {len(labels)} models")
    roles = {r["player"]: r["role"] for r in over["roles"]}
    if set(roles) != set(players):
        raise ArenaError(f"{folder}/events.jsonl: the roles revealed at the end are not the players'")
    label_of = dict(zip(players, labels, strict=True))
    records: dict[str, list[JSON]] = {label: [] for label in labels}
    summaries = {"calls": 0.0, "billed_tokens": 0.0}
    prompts = read_prompts(folder / "prompts.jsonl")
    for number, record in enumerate(prompts, start=1):
        attempts = record.get("attempts", [])
        billed = sum(float(a.get("billed_tokens") or 0) for a in attempts)
        if record.get("action") == SUMMARY_ACTION:  # the summariser's call: no seat's
            summaries["calls"] += len(attempts)
            summaries["billed_tokens"] += billed
            continue
        if record["player"] not in label_of:
            raise ArenaError(f"{folder}/prompts.jsonl: record {number} names no player of the game")
        records[label_of[record["player"]]].append(record)
    costs = {label: _figures(cost_of(spent)) for label, spent in records.items()}
    seats = tuple((label, roles[name]) for label, name in zip(labels, players, strict=True))
    seed = int(read_json(folder / RESULT_FILE)["seed"])
    exiled = tuple(roles[e["player"]] for e in events if e.get("type") == "elimination")
    rounds = max((int(e.get("round") or 0) for e in events), default=0)
    tallies = seat_tallies(read_events(folder / "events.jsonl"), prompts)
    play = tuple(tallies.get(name, {}) for name in players)
    return TableResult(game, seed, str(over["winner"]), seats, costs, summaries, exiled, rounds, play)


def load_tournament(folder: str | Path) -> Tournament:
    """The tournament in ``folder``; ArenaError (one line) if it is not one."""
    folder = Path(folder)
    if not (folder / ARENA_FILE).is_file():
        raise ArenaError(f"{folder}: not a tournament folder (it has no {ARENA_FILE})")
    request = read_json(folder / ARENA_FILE)
    if request.get("kind") != KIND:
        raise ArenaError(f"{folder}: an arena, not a tournament; `mafia arena report` reads it")
    seating = request.get("seating")
    if not isinstance(seating, dict):
        raise ArenaError(f"{folder / ARENA_FILE}: no seating of the games; the file is damaged")
    tables, unfinished = [], []
    for game, labels in seating.items():
        game_dir = folder / GAMES_DIR / game
        if (game_dir / RESULT_FILE).is_file():
            tables.append(read_table(game_dir, game, labels))
        else:
            unfinished.append(game)
    return Tournament(folder, request, tables, unfinished)
