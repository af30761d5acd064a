"""What ``mafia serve`` adds to the LangGraph API server:

- ``GET /mafia/health``: whether this server's PostgreSQL and Redis answer, so that ``status``
  can say which one is down where the server itself only answers "500 Internal Server Error";
- the keeper, a task of every server process: every few seconds it looks for games whose latest
  run was ended by a fault of the server's infrastructure (``faults``) and starts a new run on
  the game's thread, which goes on from the last checkpoint (its last whole step), logging each
  retry. The runtime itself takes up the runs of a killed worker (a missed heartbeat puts them
  back in the queue) but marks a run that lost its connection to PostgreSQL or Redis as failed
  and leaves it there. Such a game's thread is looked for among the threads in error and among
  the idle ones whose game is not over: the runtime's sweep of busy threads left without a run
  reads them, then sets each idle without a lock, so a run's failure written in between is left
  with its thread idle (its error recorded on it); seen after a PostgreSQL restart, such a game
  was never found again by a look at the threads in error alone. Several processes' keepers
  may see the same game: a thread takes one active run at a time (``multitask_strategy="reject"``,
  under the thread's row lock), so only one new run starts."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import ConflictError

from mafia.commands.faults import COMPONENTS, RUN_METADATA, fault_of

# The server's web framework comes with the server extra: ``mafia serve`` checks for it first.
if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse

KEEP_S = 5.0  # seconds between two looks for games to take up
PAGE = 100  # threads a search returns at a time
HEALTH_TIMEOUT_S = 3.0
GRAPH_ID = "mafia"
_log = logging.getLogger("mafia.keeper")


def where(uri: str) -> str:
    """``uri`` without its user and password: what a message may show of it."""
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.hostname or '?'}{f':{parts.port}' if parts.port else ''}{parts.path}"


def database_down(database_uri: str, timeout_s: float = 5.0) -> str | None:
    """Why the database at ``database_uri`` does not answer a query (None when it does)."""
    import psycopg

    try:
        with psycopg.connect(database_uri, connect_timeout=max(1, round(timeout_s))) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return " ".join(str(exc).split()) or type(exc).__name__
    return None


def redis_down(redis_uri: str, timeout_s: float = 5.0) -> str | None:
    """Why the Redis at ``redis_uri`` does not answer a PING (None when it does); spoken in
    Redis's own protocol, so that the check needs no client package."""
    parts = urlsplit(redis_uri)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), timeout_s) as sock:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            answer = sock.recv(256).decode(errors="replace").strip()
    except OSError as exc:
        return " ".join(str(exc).split()) or type(exc).__name__
    return None if answer == "+PONG" else f"it answered {answer[:80]!r} to PING"


async def health(request: Request) -> JSONResponse:
    """Each component's state: null when it answers, else why not."""
    from starlette.responses import JSONResponse

    database, redis = os.environ.get("DATABASE_URI", ""), os.environ.get("REDIS_URI", "")
    down_pg, down_redis = await asyncio.gather(
        asyncio.to_thread(database_down, database, HEALTH_TIMEOUT_S),
        asyncio.to_thread(redis_down, redis, HEALTH_TIMEOUT_S),
    )
    return JSONResponse(dict(zip(COMPONENTS, (down_pg, down_redis), strict=True)))


async def take_up_games(client: LangGraphClient) -> int:
    """One look: a new run for every game whose latest run a fault ended, within the bound; the
    number started. The threads in error first, then the idle ones whose game is not over (read
    without their states: a finished game's is large, and most idle threads hold one)."""
    started = 0
    async for thread in _threads(client, status="error"):
        started += await _take_up(client, thread)
    async for thread in _threads(
        client, status="idle", select=["thread_id", "metadata", "status"], extract={"winner": "values.winner"}
    ):
        if (thread.get("extracted") or {}).get("winner") is None:
            started += await _take_up(client, thread)
    return started


async def _threads(client: LangGraphClient, **search: Any) -> AsyncIterator[Any]:
    """The threads of games that ``search`` finds on the server, a page at a time."""
    offset = 0
    while True:
        threads = await client.threads.search(limit=PAGE, offset=offset, **search)
        for thread in threads:
            if "game" in (thread["metadata"] or {}):
                yield thread
        if len(threads) < PAGE:
            return
        offset += PAGE


async def _take_up(client: LangGraphClient, thread: Any) -> bool:
    """A new run of ``thread``'s game when its latest run was ended by a fault (within the
    bound); whether one was started."""
    thread_id = str(thread["thread_id"])
    runs = list(await client.runs.list(thread_id, limit=100))
    if not runs or runs[0].get("status") != "error":
        return False
    # A thread listed without its error (an idle one) is read whole once its latest run failed.
    whole: Mapping[str, Any] = thread if "error" in thread else await client.threads.get(thread_id)
    error = whole.get("error")  # the SDK's type of a thread omits it
    fault = fault_of(runs, error)
    game = thread["metadata"]["game"]
    if fault is None:
        return False
    if not fault.taken_up:
        _log.error("game %s (thread %s): %s", game, thread_id, fault.line())
        return False
    latest: Mapping[str, Any] = runs[0]
    context = (latest.get("kwargs") or {}).get("context")
    # A game whose first run ended before its first checkpoint starts again from its setup.
    begun = bool((await client.threads.get_state(thread_id))["values"])
    try:
        await client.runs.create(
            thread_id,
            GRAPH_ID,
            input=None if begun else first_input(runs),
            context=context,
            multitask_strategy="reject",
            metadata=RUN_METADATA,
        )
    except ConflictError:  # another process's keeper took it up first
        return False
    _log.warning(
        "game %s (thread %s): %s, from its %s (error: %s)",
        game,
        thread_id,
        fault.line(),
        "last whole step" if begun else "setup (no step was saved)",
        error,
    )
    return True


def first_input(runs: Sequence[Mapping[str, Any]]) -> Any:
    """The input the game's first run was given (its setup), from its runs newest first."""
    given = [(run.get("kwargs") or {}).get("input") for run in runs]
    return next((start for start in reversed(given) if start is not None), None)


async def keep(url: str, every_s: float = KEEP_S) -> None:
    """Take up games every ``every_s`` seconds until cancelled; a look that fails (a component
    down) is tried again at the next tick."""
    client = get_client(url=url)
    while True:
        await asyncio.sleep(every_s)
        try:
            await take_up_games(client)
        except Exception as exc:  # the next tick tries again; the games wait meanwhile
            _log.info("keeper: no look this time (%s: %s)", type(exc).__name__, exc)


def add_routes(app: Starlette) -> None:
    """The health check on ``app`` (the API server's), ahead of its own routes. (Not as the
    server's custom app, ``LANGGRAPH_HTTP``: with this runtime, a custom app's middleware asks for
    the database's store before the server has set it up, and the server does not start.)"""
    from starlette.routing import Route

    app.router.routes.insert(0, Route("/mafia/health", health, methods=["GET"]))
