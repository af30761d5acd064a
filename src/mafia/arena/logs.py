"""Reading an arena folder: ``arena.json`` and one run folder per game under
``games/<policy>/<model-label>/seed-<seed>/`` (events.jsonl, prompts.jsonl, run.json, and
result.json once the game finished)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mafia.arena.spec import ARENA_FILE, GAMES_DIR, RESULT_FILE
from mafia.arena.spec import ArenaError as ArenaError  # raised by the readers here too
from mafia.context.summary import SUMMARY_ACTION
from mafia.game.actions import ActionKind
from mafia.game.events import EventBase, parse_event
from mafia.game.state import JSON

_SEED = re.compile(r"^seed-(?P<seed>-?\d+)$")


@dataclass(frozen=True)
class GameLog:
    """One finished game of an arena: where it sits in the grid, and its parsed logs."""

    policy: str
    model: str
    seed: int
    folder: Path
    events: list[EventBase]
    prompts: list[JSON]
    run: JSON
    result: JSON


@dataclass(frozen=True)
class GameRef:
    """Where a game sits in the arena's grid, and its run folder."""

    policy: str
    model: str
    seed: int
    folder: Path


@dataclass(frozen=True)
class Arena:
    """An arena's request (``arena.json``, empty when absent), its finished games (read one at a
    time with ``load_game``: a large arena's logs need not fit in memory together), and the folders
    of games without a result (stopped or still running), which no metric counts."""

    folder: Path
    request: JSON
    finished: list[GameRef]
    unfinished: list[Path]


def read_json(path: Path) -> JSON:
    """A JSON object from ``path``, or ArenaError naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ArenaError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ArenaError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ArenaError(f"{path}: expected a JSON object")
    return data


def read_jsonl(path: Path) -> list[JSON]:
    """The JSON objects of a JSONL file, one a line; ArenaError names the file and line at fault.
    Lines are split on ``\\n`` only, as the logs are written."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ArenaError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ArenaError(f"{path}: not UTF-8 text ({exc.reason})") from None
    rows: list[JSON] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ArenaError(f"{path}:{number}: not valid JSON ({exc})") from None
        if not isinstance(row, dict):
            raise ArenaError(f"{path}:{number}: expected a JSON object")
        rows.append(row)
    return rows


def read_events(path: Path) -> list[EventBase]:
    """The typed events of an events.jsonl; ArenaError names the line that is no event."""
    events: list[EventBase] = []
    for number, row in enumerate(read_jsonl(path), start=1):
        try:
            events.append(parse_event(row))
        except ValueError as exc:
            first = str(exc).splitlines()[0]
            raise ArenaError(f"{path}: event {number} is not a valid event ({first})") from None
    return events


def read_prompts(path: Path) -> list[JSON]:
    """The prompt records of a prompts.jsonl (the players' turns and the summariser's calls);
    ArenaError names a record that lacks what the metrics read (its round, player, action and
    attempts)."""
    records = read_jsonl(path)
    actions = {kind.value for kind in ActionKind} | {SUMMARY_ACTION}
    for number, r in enumerate(records, start=1):
        attempts = r.get("attempts")
        if not (
            isinstance(r.get("round"), int)
            and isinstance(r.get("player"), str)
            and r.get("action") in actions
            and isinstance(attempts, list)
            and all(isinstance(a, dict) for a in attempts)
        ):
            raise ArenaError(
                f"{path}: record {number} is not a prompt record (round, player, action, attempts)"
            )
    return records


def game_folders(arena_dir: Path) -> Iterator[GameRef]:
    """Every game folder of the arena, in a stable order (policy, model, seed)."""
    root = arena_dir / GAMES_DIR
    for policy in sorted(p for p in root.iterdir() if p.is_dir()):
        for model in sorted(m for m in policy.iterdir() if m.is_dir()):
            seeds = sorted(
                (int(m["seed"]), s) for s in model.iterdir() if s.is_dir() and (m := _SEED.match(s.name))
            )
            for seed, folder in seeds:
                yield GameRef(policy.name, model.name, seed, folder)


def load_game(ref: GameRef) -> GameLog:
    """A finished game's logs, parsed."""
    folder = ref.folder
    return GameLog(
        policy=ref.policy,
        model=ref.model,
        seed=ref.seed,
        folder=folder,
        events=read_events(folder / "events.jsonl"),
        prompts=read_prompts(folder / "prompts.jsonl"),
        run=read_json(folder / "run.json"),
        result=read_json(folder / RESULT_FILE),
    )


def load_arena(arena_dir: str | Path) -> Arena:
    """The arena in ``arena_dir``: its request and its games, finished or not; ArenaError if it is
    not one."""
    arena_dir = Path(arena_dir)
    if not arena_dir.is_dir():
        raise ArenaError(f"{arena_dir}: no such folder")
    if not (arena_dir / GAMES_DIR).is_dir():
        raise ArenaError(f"{arena_dir}: not an arena folder (it has no {GAMES_DIR}/ folder)")
    request = read_json(arena_dir / ARENA_FILE) if (arena_dir / ARENA_FILE).exists() else {}
    games = list(game_folders(arena_dir))
    finished = [g for g in games if (g.folder / RESULT_FILE).exists()]
    unfinished = [g.folder for g in games if not (g.folder / RESULT_FILE).exists()]
    return Arena(arena_dir, request, finished, unfinished)
