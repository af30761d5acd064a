"""What an arena is asked to play: the table, the paired seeds, the context policies and the models,
as recorded in ``arena.json``; and where each of its games lives under ``runs/arena-<id>/``.

Every policy and model plays the same seeds with the same setup, so their games differ only in what
is compared. The recorded ask is also the arena's identity: a stopped arena resumes only under the
same ask, so a resumed game never mixes two setups.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mafia.context.policy import ContextPolicy
from mafia.game.state import JSON
from mafia.models.settings import ModelSettings
from mafia.run.runtime import ModelLike

ARENA_FILE = "arena.json"
SUMMARY_FILE = "summary.json"
RESULT_FILE = "result.json"
GAMES_DIR = "games"
LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
LABEL_HELP = "1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"


class ArenaError(ValueError):
    """An arena that cannot be run as asked, or a folder that cannot be read as an arena; the
    one-line message names the field and what is allowed, or the file (and line) at fault."""


def model_record(model: ModelLike) -> str | JSON:
    """A model as arena.json records it: its spec, its settings, or its class for an instance."""
    if isinstance(model, str):
        return model
    if isinstance(model, ModelSettings):
        return asdict(model)
    return f"<{type(model).__name__}>"


def label_for(spec: str) -> str:
    """A folder-safe label for a model spec: ``openai:gpt-4o-mini`` is ``openai-gpt-4o-mini``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-._")[:64] or "model"


@dataclass(frozen=True)
class Contestant:
    """One model entry of an arena: its label (the folder of its games), the model of every seat
    not in ``seat_models``, and per-seat models (by seat number or player name)."""

    label: str
    model: ModelLike
    seat_models: Mapping[str, ModelLike] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not LABEL.fullmatch(self.label):
            raise ArenaError(f"model label {self.label!r}: use {LABEL_HELP}")

    def record(self) -> JSON:
        """How arena.json records it."""
        return {
            "model": model_record(self.model),
            "seat_models": {seat: model_record(m) for seat, m in self.seat_models.items()},
        }


@dataclass(frozen=True)
class ArenaSpec:
    """What an arena plays: ``games`` seeds from ``seed_start`` at a table of ``players`` (with
    ``roles`` and ``round_cap`` when given), each seed by every policy with every contestant."""

    games: int
    players: int
    policies: tuple[ContextPolicy, ...]
    contestants: tuple[Contestant, ...]
    seed_start: int = 0
    roles: Mapping[str, int] | None = None
    round_cap: int | None = None
    max_retries: int = 2
    summariser: str | None = None
    """Who writes the summaries of policies with summaries (a spec or ``seat:N``; None: each
    contestant's own model)."""

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ArenaError(f"--games: must be 1 or more, got {self.games}")
        if not self.policies:
            raise ArenaError("--policy: give at least one context policy")
        if not self.contestants:
            raise ArenaError("--model: give at least one model")
        _distinct("--policy", [p.name for p in self.policies])
        _distinct("--model", [c.label for c in self.contestants])
        for policy in self.policies:
            if not LABEL.fullmatch(policy.name):
                raise ArenaError(
                    f"--policy: policy name {policy.name!r} cannot name a folder; use {LABEL_HELP}"
                )
        if self.max_retries < 0:
            raise ArenaError(f"--max-retries: must be 0 or more, got {self.max_retries}")

    @property
    def seeds(self) -> list[int]:
        """The paired seeds every policy and model plays."""
        return list(range(self.seed_start, self.seed_start + self.games))

    def setup(self, seed: int) -> dict[str, Any]:
        """The game setup of ``seed``: the same for every policy and model."""
        setup: dict[str, Any] = {"seed": seed, "players": self.players}
        if self.roles is not None:
            setup["roles"] = dict(self.roles)
        if self.round_cap is not None:
            setup["round_cap"] = self.round_cap
        return setup

    def record(self) -> JSON:
        """The ask as arena.json holds it (concurrency and the id are added by the run)."""
        return {
            "players": self.players,
            "games": self.games,
            "seed_start": self.seed_start,
            "seeds": self.seeds,
            "roles": dict(self.roles) if self.roles is not None else None,
            "round_cap": self.round_cap,
            "max_retries": self.max_retries,
            "policies": [p.name for p in self.policies],
            "policy_settings": {p.name: asdict(p) for p in self.policies},
            "models": {c.label: c.record() for c in self.contestants},
            # Only when given: the arenas asked without one keep the ids they had.
            **({"summariser": self.summariser} if self.summariser is not None else {}),
        }

    def check_table(self) -> None:
        """The models fit the table (ArenaError otherwise; called once the setup is known to be
        valid): an arena seats one model in every seat, so any table fits."""

    @property
    def all_games(self) -> int:
        """Every game of the ask, scheduled or not (what the progress bar counts)."""
        return len(self.seeds) * len(self.policies) * len(self.contestants)

    def scheduled_keys(self) -> tuple[str, ...]:
        """The record's fields that grow as the ask is played (later games scheduled on the results
        of earlier ones): left out of the id; on resuming only their common entries must agree."""
        return ()

    def default_id(self) -> str:
        """An id that the same ask always gets, so running the same command again resumes it."""
        grows = self.scheduled_keys()
        fixed = {key: value for key, value in self.record().items() if key not in grows}
        text = json.dumps(fixed, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:10]

    def games_in(self, arena_dir: Path) -> Iterator[GameSlot]:
        """Every game of the arena, seed by seed (so an early stop leaves whole paired seeds)."""
        for seed in self.seeds:
            for policy in self.policies:
                for contestant in self.contestants:
                    yield GameSlot(arena_dir, policy, contestant, seed)


def _distinct(field_name: str, names: list[str]) -> None:
    seen = {name for name in names if names.count(name) > 1}
    if seen:
        raise ArenaError(f"{field_name}: {sorted(seen)[0]!r} is given twice; each must be distinct")


@dataclass(frozen=True)
class GameSlot:
    """One game of an arena: a policy, a contestant and a seed, with its run folder."""

    arena_dir: Path
    policy: ContextPolicy
    contestant: Contestant
    seed: int

    @property
    def games_dir(self) -> Path:
        """The folder holding every game's run folder and the checkpoints (a ``--out`` folder)."""
        return self.arena_dir / GAMES_DIR

    @property
    def thread_id(self) -> str:
        """The game's run id: its folder under ``games/`` and its checkpointed thread."""
        return f"{self.policy.name}/{self.contestant.label}/seed-{self.seed}"

    @property
    def folder(self) -> Path:
        """``games/<policy>/<model-label>/seed-<seed>/``: a run folder as ``mafia play`` writes one."""
        return self.games_dir / self.thread_id

    def result(self) -> JSON | None:
        """The finished game's result, or None while it is not finished."""
        try:
            data = json.loads((self.folder / RESULT_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON, whole or not at all (a kill never leaves half a file)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(path)


def read_record(path: Path, what: str, fix: str = "") -> JSON:
    """The JSON object in ``path``, ``what`` it should be (ArenaError when it cannot be read or is
    no object, ending with ``fix``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ArenaError(f"{path} is not readable as {what} ({exc}){fix}") from None
    if not isinstance(data, dict):
        raise ArenaError(f"{path} is not {what}{fix}")
    return data


def check_same_ask(arena_dir: Path, spec: ArenaSpec, arena_id: str) -> None:
    """An arena already in ``arena_dir`` was asked the same as ``spec`` (ArenaError names the first
    field that differs); concurrency and the server may change between runs."""
    path = arena_dir / ARENA_FILE
    if not path.exists():
        return
    earlier = read_record(path, "an arena file", "; move the folder aside or use another --id")
    grows = spec.scheduled_keys()
    for key, value in spec.record().items():
        now = json.loads(json.dumps(value))
        if not (_agree(earlier.get(key), now) if key in grows else earlier.get(key) == now):
            raise ArenaError(
                f"arena {arena_id!r} was asked with {key} = {json.dumps(earlier.get(key))}, now "
                f"{json.dumps(value, default=str)}; give the same arguments to resume it, or another --id"
            )


def _agree(before: Any, now: Any) -> bool:
    """Whether two records of a growing field agree where both hold an entry (a list's common
    start, a mapping's common keys)."""
    if isinstance(before, list) and isinstance(now, list):
        return before[: len(now)] == now[: len(before)]
    if isinstance(before, dict) and isinstance(now, dict):
        return all(now[key] == value for key, value in before.items() if key in now)
    return bool(before == now)


def claim_arena(
    arena_dir: Path, spec: ArenaSpec, arena_id: str, concurrency: int, server: str | None
) -> JSON:
    """Write arena.json for ``spec`` (after ``check_same_ask``: an existing one asked the same).
    Its ``uid`` is made once, with the folder: it names the arena's threads on a server, so a new
    arena folder never picks up the games of an earlier one there, and a resumed one finds its own."""
    check_same_ask(arena_dir, spec, arena_id)
    path = arena_dir / ARENA_FILE
    uid = json.loads(path.read_text(encoding="utf-8")).get("uid") if path.exists() else None
    record = {
        "id": arena_id,
        "uid": uid or str(uuid.uuid4()),
        **spec.record(),
        "concurrency": concurrency,
        "server": server,
    }
    arena_dir.mkdir(parents=True, exist_ok=True)
    write_json(path, record)
    return record
