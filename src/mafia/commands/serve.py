"""``mafia serve``: the game graph on the stock LangGraph API server (``langgraph-api``) with the
Postgres + Redis runtime of ``langgraph-runtime-pg``: runs queued in Postgres and claimed once
(``SKIP LOCKED``), each running run's heartbeat in Redis (a killed process's runs are swept back
to the queue and resume from their last checkpoint), streams through Redis. Every process started
on the same database and Redis is one more "machine" taking runs from the same queue.

Given neither a database nor Redis, the command starts its own (``local_services``). Each process
also runs the keeper and the health check of ``server_app``.

The runtime pins its own ``langgraph-api``, another than ``langgraph dev``'s, so it lives in an
environment of its own (the ``server`` extra; ``make server-venv`` builds ``.venv-server``)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
import signal
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from mafia.commands.server_app import add_routes, database_down, keep, redis_down, where
from mafia.game.rules import MAX_PLAYERS
from mafia.run.settings import SettingError

RUNTIME = "langgraph_runtime_pg"
GRAPHS = {"mafia": "mafia.served:served_graph"}  # as langgraph.json names it, by module
# A running run's heartbeat in Redis, in seconds: a process killed mid-run has its runs taken up
# again by another once two beats are missed.
HEARTBEAT_S = 10


def server_env(database_uri: str, redis_uri: str, workers: int, base: Mapping[str, str]) -> dict[str, str]:
    """The environment the API server reads its settings from: ``base`` (this process's) with the
    runtime, the database, Redis, the graph and the runs taken at once (``workers``)."""
    return {
        **base,
        "LANGGRAPH_RUNTIME_EDITION": RUNTIME.removeprefix("langgraph_runtime_"),
        "DATABASE_URI": database_uri,
        "REDIS_URI": redis_uri,
        "LANGSERVE_GRAPHS": json.dumps(GRAPHS),
        "N_JOBS_PER_WORKER": str(workers),
        "LG_BG_JOB_HEARTBEAT": base.get("LG_BG_JOB_HEARTBEAT", str(HEARTBEAT_S)),
    }


LOG_LEVELS = ("debug", "info", "warning", "error")


def check_serve(
    database_uri: str | None, redis_uri: str | None, workers: int, log_level: str
) -> tuple[str, str] | None:
    """The database and Redis URIs, checked with the runtime's presence (SettingError says what
    is missing); None when neither is given (the server starts its own, ``local_services``)."""
    if importlib.util.find_spec(RUNTIME) is None:
        raise SettingError(
            "serve: the server runtime is not installed here; install the server extra in an "
            "environment of its own (make server-venv, then .venv-server/bin/mafia serve)"
        )
    if log_level not in LOG_LEVELS:
        raise SettingError(f"--log-level {log_level!r}: use one of {', '.join(LOG_LEVELS)}")
    if workers < 1:
        raise SettingError(f"--workers: must be 1 or more, got {workers}")
    if not database_uri and not redis_uri:
        return None
    if not database_uri or not database_uri.startswith(("postgresql://", "postgres://")):
        raise SettingError(
            f"--database-uri {database_uri!r}: give a postgresql://USER@HOST:PORT/DB URI with "
            "--redis-uri (or set DATABASE_URI), or neither and mafia serve starts its own"
        )
    if not redis_uri or not redis_uri.startswith("redis://"):
        raise SettingError(
            f"--redis-uri {redis_uri!r}: give a redis://HOST:PORT URI with --database-uri (or set "
            "REDIS_URI), or neither and mafia serve starts its own"
        )
    return database_uri, redis_uri


def check_reachable(database_uri: str, redis_uri: str) -> None:
    """Both the database and Redis answer; else SettingError naming which, and how to start it."""
    if (why := database_down(database_uri)) is not None:
        raise SettingError(
            f"--database-uri: the PostgreSQL at {where(database_uri)} does not answer ({why}); start "
            "it (e.g. pg_ctlcluster 15 main start), or give neither URI and mafia serve starts its own"
        )
    if (why := redis_down(redis_uri)) is not None:
        raise SettingError(
            f"--redis-uri: the Redis at {where(redis_uri)} does not answer ({why}); start it (e.g. "
            "redis-server --port PORT), or give neither URI and mafia serve starts its own"
        )


def threads_for(workers: int) -> int:
    """Threads of the server's default executor for ``workers`` games at once. A run's steps run
    there (the graph is synchronous), and so does every player turn of a step taken at once; a
    player turn reaches the checkpointer (asynchronous, on the server's loop) from its thread and
    waits for it there. Python's default (cores + 4) would let those waits fill every thread while
    the loop's own work waits for one: the server stops answering."""
    return workers * (MAX_PLAYERS + 4) + 8


def serve(database_uri: str, redis_uri: str, workers: int, host: str, port: int, log_level: str) -> None:
    """Run the API server in this process until it is stopped (Ctrl-C or SIGTERM: the runs in
    flight go back to the queue for another process); its log (each run's start and end at
    ``info``) goes to standard error."""
    import uvicorn

    os.environ.update(server_env(database_uri, redis_uri, workers, os.environ))
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    from langgraph_api.server import app  # type: ignore[import-untyped,unused-ignore]  # reads the settings above

    add_routes(app)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False, lifespan="on")

    async def run() -> None:
        executor = ThreadPoolExecutor(threads_for(workers), thread_name_prefix="mafia-step")
        asyncio.get_running_loop().set_default_executor(executor)
        keeper = asyncio.create_task(keep(f"http://127.0.0.1:{port}"))
        try:
            await uvicorn.Server(config).serve()
        finally:
            keeper.cancel()

    # uvicorn shuts down gracefully on SIGTERM, then raises it again with the handler it found:
    # a Python one, so that the process ends through its `finally`s (a local PostgreSQL and
    # Redis are stopped there) rather than at once.
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        asyncio.run(run())
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminated(signal_number: int, frame: object) -> None:
    raise SystemExit(128 + signal_number)
