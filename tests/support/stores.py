"""The checkpoint stores a checkpoint test runs on, as a fixture parameter (LangGraph's own tests
run the same tests on every checkpointer): ``store`` is SQLite in the default tier and PostgreSQL
(a real server started here, ``pg_server``) in the slow tier."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from mafia.play.checkpoints import DSN_ENV, open_checkpointer
from pg_server import PgServer, unavailable


@dataclass(frozen=True)
class Store:
    """One checkpoint store: SQLite (a file beside the run's logs) or a PostgreSQL database."""

    name: str
    dsn: str | None = None
    """The PostgreSQL connection string (None: SQLite)."""

    def env(self) -> dict[str, str]:
        """What a game process is given to checkpoint here."""
        return {DSN_ENV: self.dsn} if self.dsn is not None else {}

    def open(self, out: Path) -> AbstractContextManager[BaseCheckpointSaver[Any]]:
        """The store's checkpointer for runs under ``out``, as the command line opens it."""
        return open_checkpointer(out, self.dsn)


STORES = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.slow),
]


@pytest.fixture(scope="session")
def pg() -> Iterator[PgServer]:
    """A PostgreSQL server for the session (skipped where its packages are not installed)."""
    reason = unavailable()
    if reason is not None:
        pytest.skip(reason)
    server = PgServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> Store:
    """Each checkpoint store in turn: a PostgreSQL case gets a new empty database."""
    if request.param == "sqlite":
        return Store("sqlite")
    server: PgServer = request.getfixturevalue("pg")
    return Store("postgres", server.database())
