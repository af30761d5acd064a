"""Games killed with SIGKILL at random points and resumed, some killed again, end with logs
byte-identical to uninterrupted runs; no log on disk ever holds less than it held before."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mafia.models.house import HouseModel
from mafia.play.checkpoints import CHECKPOINT_FILE
from mafia.play.runner import run_game
from repo import SUPPORT
from stores import Store

LOGS = ("events.jsonl", "prompts.jsonl")
SCRIPT = str(SUPPORT / "crash_game.py")
POLL = 0.002  # seconds between looks at the logs while a game runs


def reference(tmp: Path, seed: int, players: int) -> dict[str, bytes]:
    """The logs of the game played through without a stop."""
    run_game({"seed": seed, "players": players}, model=HouseModel(seed=seed), out_dir=tmp)
    folder = tmp / f"game-{players}p-seed{seed}"
    return {name: (folder / name).read_bytes() for name in LOGS}


def shrunk(before: dict[str, bytes], now: dict[str, bytes]) -> list[str]:
    """The logs that no longer start with what they held before (lost or rewritten bytes)."""
    return [name for name in LOGS if not now.get(name, b"").startswith(before.get(name, b""))]


@dataclass
class Watch:
    """The logs of one run folder, read over and over while a game plays and after it stops."""

    folder: Path
    held: dict[str, bytes] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)

    def look(self) -> None:
        """Check that no log got smaller since the last look (cheap: sizes only)."""
        for name in LOGS:
            path = self.folder / name
            size = path.stat().st_size if path.exists() else 0
            if size < self.sizes.get(name, 0):
                self.faults.append(f"{name} shrank from {self.sizes[name]} to {size} bytes")
            self.sizes[name] = size

    def settle(self) -> None:
        """After a process ended: every log still starts with every byte it held before."""
        now = {name: (self.folder / name).read_bytes() for name in LOGS if (self.folder / name).exists()}
        self.faults += [f"{name} lost bytes it held" for name in shrunk(self.held, now)]
        self.held = now
        self.look()


def run_until(
    command: list[str], watch: Watch, kill_at: int | None, extra_env: Mapping[str, str] | None = None
) -> int | None:
    """Run ``command``; SIGKILL it once ``events.jsonl`` reaches ``kill_at`` bytes. The exit code,
    or None if it was killed before it ended."""
    env = {**os.environ, "LANGSMITH_TRACING": "false", **(extra_env or {})}
    proc = subprocess.Popen([sys.executable, SCRIPT, *command], env=env)
    killed = False
    while proc.poll() is None:
        watch.look()
        if kill_at is not None and watch.sizes.get("events.jsonl", 0) >= kill_at:
            proc.send_signal(signal.SIGKILL)
            killed = True
            break
        time.sleep(POLL)
    code = proc.wait()
    watch.settle()
    return None if killed and code == -signal.SIGKILL else code


def crash_and_resume(
    tmp: Path, seed: int, players: int, delay: float, kills: int, extra_env: Mapping[str, str] | None = None
) -> int:
    """Play one game, killed ``kills`` times at random points (the first while playing, the
    others while resuming), then resumed to the end. Returns how many kills hit a running game.
    ``extra_env`` reaches the game processes (``MAFIA_CHECKPOINT_DSN``: checkpoints in PostgreSQL)."""
    expected = reference(tmp / "reference", seed, players)
    out = tmp / "game"
    run_id = f"game-{players}p-seed{seed}"
    watch = Watch(out / run_id)
    rng = random.Random(f"{seed}-{players}-{delay}-{kills}")
    hits = 0
    command = ["play", str(out), str(seed), str(players), str(delay)]
    for _ in range(kills):
        start = watch.sizes.get("events.jsonl", 0)
        if start >= len(expected["events.jsonl"]):
            break  # the last kill came after the last event: nothing is left to cut short
        kill_at = rng.randint(start + 1, len(expected["events.jsonl"]))
        code = run_until(command, watch, kill_at, extra_env)
        assert code in (None, 0), f"the game process failed with exit code {code}"
        hits += code is None
        command = ["resume", str(out), run_id, str(seed), str(delay)]
        for name in LOGS:
            assert expected[name].startswith(watch.held.get(name, b"")), f"{name} holds a wrong line"
    assert run_until(command, watch, None, extra_env) == 0
    assert watch.faults == []
    assert watch.held == expected, "the logs differ from the uninterrupted game's"
    return hits


# (seed, players, seconds per model call, kills): full speed killed once by default; a slow model
# killed twice and the other pairings with -m slow.
DEFAULT_GAMES = [(3, 5, 0.0, 1)]
SLOW_GAMES = [
    (seed, players, delay, kills)
    for seed, players, delay, kills in (
        (6, 6, 0.004, 2),
        (4, 6, 0.0, 2),
        (5, 5, 0.004, 1),
        *((s, 5 + s % 4, 0.0, 1 + s % 3) for s in range(10, 20)),
        *((s, 5 + s % 4, 0.003, 1 + s % 3) for s in range(20, 30)),
        (31, 12, 0.0, 3),
        (32, 12, 0.002, 2),
    )
]


@pytest.mark.parametrize(("seed", "players", "delay", "kills"), DEFAULT_GAMES)
@pytest.mark.slow
def test_killed_games_resume_to_identical_logs(
    tmp_path: Path, store: Store, seed: int, players: int, delay: float, kills: int
) -> None:
    """On each checkpoint store: the game's checkpoints are in it, and only in it."""
    hits = crash_and_resume(tmp_path, seed, players, delay, kills, store.env())
    assert hits >= 1, "no kill hit a running game"
    in_sqlite = (tmp_path / "game" / CHECKPOINT_FILE).exists()
    assert in_sqlite == (store.dsn is None), f"the game was not checkpointed in {store.name} alone"
    if store.dsn is not None:
        assert stored_checkpoints(store.dsn, f"game-{players}p-seed{seed}") > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "players", "delay", "kills"), [(4, 6, 0.0, 2), (5, 8, 0.003, 3), (6, 12, 0.0, 2)]
)
def test_games_killed_again_and_again_resume_on_every_store(
    tmp_path: Path, store: Store, seed: int, players: int, delay: float, kills: int
) -> None:
    assert crash_and_resume(tmp_path, seed, players, delay, kills, store.env()) >= 1


def stored_checkpoints(dsn: str, thread: str) -> int:
    """How many checkpoints of ``thread`` a PostgreSQL store holds."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread,)).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "players", "delay", "kills"), SLOW_GAMES)
def test_many_killed_games_resume_to_identical_logs(
    tmp_path: Path, seed: int, players: int, delay: float, kills: int
) -> None:
    assert crash_and_resume(tmp_path, seed, players, delay, kills) >= 1, "no kill hit a running game"


def test_the_checker_catches_a_log_that_lost_bytes(tmp_path: Path) -> None:
    """A planted fault: a log cut back between two looks is reported."""
    watch = Watch(tmp_path)
    (tmp_path / "events.jsonl").write_bytes(b'{"a":1}\n{"b":2}\n')
    watch.settle()
    (tmp_path / "events.jsonl").write_bytes(b'{"a":1}\n')
    watch.settle()
    assert watch.faults == ["events.jsonl lost bytes it held", "events.jsonl shrank from 16 to 8 bytes"]
    assert shrunk({"prompts.jsonl": b"x\n"}, {"prompts.jsonl": b"y\n"}) == ["prompts.jsonl"]
