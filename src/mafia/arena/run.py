"""``run_arena``: many games at once, paired across context policies and models, resumable.

Games run on a bounded pool of threads, one game per thread. A game spends nearly all its time
waiting on model calls, which release the GIL (network reads, or a simulated model's sleep), so the
threads' waits overlap while the engine's few milliseconds of work per call take turns; the graph
itself is synchronous, so threads need no event loop and keep each game's checkpoints and logs
exactly as a single run writes them. With ``server`` the games run as threads on a LangGraph
server instead, and this process only streams them and writes their logs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from threading import Event

from langchain_core.language_models import BaseChatModel

from mafia.arena.game import ArenaStopped, GameTally, play_local
from mafia.arena.progress import ArenaProgress
from mafia.arena.queued import arena_summary, queue_games
from mafia.arena.server import ServerGames, check_server, check_server_models
from mafia.arena.spec import (
    GAMES_DIR,
    LABEL,
    LABEL_HELP,
    SUMMARY_FILE,
    ArenaError,
    ArenaSpec,
    Contestant,
    GameSlot,
    check_same_ask,
    claim_arena,
    label_for,
    write_json,
)
from mafia.commands.checks import check_checkpoint_file
from mafia.context.policy import DEFAULT_POLICY, ContextPolicy, UnknownPolicy, policy_by_name
from mafia.game.rules import ConfigError
from mafia.game.state import JSON
from mafia.models.factory import ModelSpecError, resolve_model
from mafia.models.settings import ModelSettings
from mafia.play.checkpoints import CHECKPOINT_FILE
from mafia.play.runner import RunBusy, RunLock, sqlite_checkpointer
from mafia.run.runtime import ModelLike
from mafia.run.settings import SettingError, check_seats, config_from_input

PlayGame = Callable[[GameSlot, GameTally], JSON]
ModelsArg = Mapping[str, ModelLike] | Sequence[str | ModelSettings | BaseChatModel | Contestant]


def contestants_of(models: ModelsArg) -> tuple[Contestant, ...]:
    """Contestants from labelled models, or from models labelled by their specs."""
    if isinstance(models, Mapping):
        return tuple(Contestant(label, model) for label, model in models.items())
    out: list[Contestant] = []
    for model in models:
        if isinstance(model, Contestant):
            out.append(model)
        elif isinstance(model, str):
            out.append(Contestant(label_for(model), model))
        elif isinstance(model, ModelSettings):
            out.append(Contestant(label_for(model.model), model))
        else:
            out.append(Contestant(label_for(type(model).__name__), model))
    return tuple(out)


def policies_of(policies: Sequence[str | ContextPolicy]) -> tuple[ContextPolicy, ...]:
    """Policies by registered name, or given as they are."""
    try:
        return tuple(p if isinstance(p, ContextPolicy) else policy_by_name(p) for p in policies)
    except UnknownPolicy as exc:
        raise ArenaError(f"--policy: {exc}") from None


def check_spec(spec: ArenaSpec) -> None:
    """Everything about the ask that can be checked before a game starts: the table, the seeds, the
    per-seat models and every model spec (each is built once here)."""
    for seed in {spec.seeds[0], spec.seeds[-1]}:
        try:
            config = config_from_input(spec.setup(seed))
        except ConfigError as exc:
            raise ArenaError(f"invalid game setting {exc}") from None
    for contestant in spec.contestants:
        try:
            check_seats(contestant.seat_models, config, f"model {contestant.label!r}: seats")
        except SettingError as exc:
            raise ArenaError(str(exc)) from None
        try:
            for model in (contestant.model, *contestant.seat_models.values()):
                resolve_model(model)
        except ModelSpecError as exc:
            raise ArenaError(f"--model {contestant.label}: {exc}") from None


def run_arena(
    *,
    games: int,
    players: int = 7,
    policies: Sequence[str | ContextPolicy] = (DEFAULT_POLICY,),
    models: ModelsArg = ("house",),
    concurrency: int = 4,
    seed_start: int = 0,
    out: str | Path = "runs",
    arena_id: str | None = None,
    roles: Mapping[str, int] | None = None,
    round_cap: int | None = None,
    max_retries: int = 2,
    summariser: str | None = None,
    server: str | None = None,
    queue: bool = False,
    progress: bool = False,
    on_start: Callable[[Path, int], None] | None = None,
    stop: Event | None = None,
) -> JSON:
    """Play ``games`` paired seeds (from ``seed_start``) with every policy and model, ``concurrency``
    games at once, under ``out/arena-<id>/``; returns the summary (also written to summary.json).

    ``policies`` are registered names or ContextPolicy objects; ``models`` are specs, settings or
    chat models (labelled by spec), a mapping of label to model, or Contestants with per-seat
    models. Without ``arena_id`` the id is derived from the ask, so the same call resumes: finished
    games are skipped and stopped ones go on from their checkpoints. Games that stop with an error
    are listed under the summary's ``run.unfinished`` and resumed by the next call; a
    KeyboardInterrupt stops every game at its next step and is raised again once they have.
    ``summariser`` writes the summaries of policies with summaries (a model spec or ``"seat:N"``;
    by default each contestant's model). ``on_start`` receives the arena's folder and its number
    of games before the first game starts;
    setting ``stop`` (from another thread) stops every game at its next step, as Ctrl-C does, but
    returns the summary. With ``queue`` the games are queued on ``server`` (``mafia serve``) as
    background runs and this returns at once, the summary counting the games finished so far;
    ``mafia.arena.queued.collect`` writes them as they finish.
    """
    spec = ArenaSpec(
        games=games,
        players=players,
        policies=policies_of(policies),
        contestants=contestants_of(models),
        seed_start=seed_start,
        roles=roles,
        round_cap=round_cap,
        max_retries=max_retries,
        summariser=summariser,
    )
    arena_dir, played = play_ask(
        spec,
        Path(out),
        "arena",
        arena_id,
        concurrency=concurrency,
        server=server,
        queue=queue,
        progress=progress,
        on_start=on_start,
        stop=stop,
    )
    summary = {**arena_summary(arena_dir), "run": played.record(arena_dir, concurrency, server)}
    write_json(arena_dir / SUMMARY_FILE, summary)
    return summary


@dataclass(frozen=True)
class Played:
    """What one run of an arena's games did: games in all, played now, and those left unfinished
    with why."""

    games: int
    played: int
    unfinished: dict[str, str]
    wall_s: float

    def record(self, folder: Path, concurrency: int, server: str | None) -> JSON:
        """The run as the summary's ``run`` holds it: where, how, and its figures."""
        return {
            "folder": str(folder),
            "concurrency": concurrency,
            "server": server,
            "wall_s": round(self.wall_s, 3),
            "played": self.played,
            "skipped": self.games - self.played,
            "unfinished": self.unfinished,
        }


def play_ask(
    spec: ArenaSpec,
    out: Path,
    kind: str,
    ask_id: str | None,
    *,
    concurrency: int,
    server: str | None,
    progress: bool,
    on_start: Callable[[Path, int], None] | None,
    stop: Event | None,
    queue: bool = False,
    title: str = "",
) -> tuple[Path, Played]:
    """Check ``spec`` whole, then play it under ``out/<kind>-<id>`` (the id derived from the ask
    unless ``ask_id`` names it; ``title`` follows it on the progress bar); returns the folder and
    what was played."""
    if concurrency < 1:
        raise ArenaError(f"--concurrency: must be 1 or more, got {concurrency}")
    check_spec(spec)
    spec.check_table()
    ask_id = ask_id or spec.default_id()
    folder = out / f"{kind}-{ask_id}"
    played = play_games(
        spec,
        folder,
        ask_id,
        title=f"{kind} {ask_id}{title}",
        concurrency=concurrency,
        server=server,
        queue=queue,
        progress=progress,
        on_start=on_start,
        stop=stop,
    )
    return folder, played


def play_games(
    spec: ArenaSpec,
    arena_dir: Path,
    arena_id: str,
    *,
    title: str,
    concurrency: int = 4,
    server: str | None = None,
    queue: bool = False,
    progress: bool = False,
    on_start: Callable[[Path, int], None] | None = None,
    stop: Event | None = None,
) -> Played:
    """Claim ``arena_dir`` for ``spec`` (refused if it holds another ask or another process runs
    it) and play its unfinished games, ``concurrency`` at once, locally or on ``server``, or queue
    them there (``queue``); the progress bar is titled ``title``. See ``run_arena`` for
    ``on_start`` and ``stop``."""
    if queue and server is None:
        raise ArenaError("--queue: give the --server to queue the games on")
    if not LABEL.fullmatch(arena_id):
        raise ArenaError(f"--id {arena_id!r}: use {LABEL_HELP}")
    try:
        # One checkpoint file beside the games' folders, named as `mafia play` names its own, so
        # games/ is a folder `mafia runs --out` reads.
        check_checkpoint_file(arena_dir / GAMES_DIR / CHECKPOINT_FILE)
    except SettingError as exc:
        raise ArenaError(str(exc)) from None
    check_same_ask(arena_dir, spec, arena_id)  # before anything is written
    with ExitStack() as stack:
        if server is not None:
            check_server_models(spec)
            check_server(server)
        stack.enter_context(_arena_lock(arena_dir))
        record = claim_arena(arena_dir, spec, arena_id, concurrency, server)
        servers = ServerGames(server, record["uid"]) if server is not None else None
        slots = list(spec.games_in(arena_dir))
        pending = [slot for slot in slots if slot.result() is None]
        if on_start is not None:
            on_start(arena_dir, spec.all_games)
        if servers is not None and queue:
            queue_games(spec, arena_dir, servers)
            return Played(len(slots), 0, {}, 0.0)
        play: PlayGame
        if servers is None:
            saver = stack.enter_context(sqlite_checkpointer(arena_dir / GAMES_DIR / CHECKPOINT_FILE))
            play = lambda slot, tally: play_local(slot, spec, saver, tally)  # noqa: E731
        else:
            play = lambda slot, tally: servers.play(slot, spec, tally)  # noqa: E731
        done = len(slots) - len(pending)
        shown = stack.enter_context(ArenaProgress(title, spec.all_games, done, progress))
        start = time.perf_counter()
        unfinished = _play_all(pending, play, concurrency, shown, servers, stop or Event())
        wall_s = time.perf_counter() - start
    return Played(len(slots), len(pending), unfinished, wall_s)


@contextmanager
def _arena_lock(arena_dir: Path) -> Iterator[None]:
    """One process runs an arena at a time (two would play its games twice)."""
    arena_dir.mkdir(parents=True, exist_ok=True)
    lock = RunLock(arena_dir)
    try:
        lock.acquire()
    except RunBusy:
        raise ArenaError(f"{arena_dir} is being run by another process; wait for it to stop") from None
    try:
        yield
    finally:
        lock.release()


def _play_all(
    pending: list[GameSlot],
    play: PlayGame,
    concurrency: int,
    shown: ArenaProgress,
    servers: ServerGames | None,
    stop: Event,
) -> dict[str, str]:
    """Play the pending games on ``concurrency`` threads; the games that stopped, with why."""
    unfinished: dict[str, str] = {}

    def one(slot: GameSlot) -> None:
        if stop.is_set():
            unfinished[slot.thread_id] = "the arena was stopped before the game started"
            return
        shown.started()
        try:
            play(slot, GameTally(stop, on_call=shown.call))
        except (ArenaStopped, KeyboardInterrupt):  # the arena is stopping (a model call given up)
            unfinished[slot.thread_id] = "the arena was stopped"
            shown.stopped(slot.thread_id, None)
        except Exception as exc:  # the game stays resumable; the others go on
            unfinished[slot.thread_id] = f"{type(exc).__name__}: {exc}"
            shown.stopped(slot.thread_id, unfinished[slot.thread_id])
        else:
            shown.finished()

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="arena-game") as pool:
        futures: list[Future[None]] = [pool.submit(one, slot) for slot in pending]
        try:
            wait(futures)
        except KeyboardInterrupt:
            stop.set()
            for future in futures:
                future.cancel()
            if servers is not None:
                servers.cancel_all()
            wait(futures)
            raise
    return unfinished
