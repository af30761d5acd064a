"""Where games are checkpointed: a SQLite file beside the logs, or a PostgreSQL database.

A PostgreSQL connection string (``--checkpoint-dsn``, or ``MAFIA_CHECKPOINT_DSN``) puts every
game's checkpoints in one database that many processes and machines share; the logs stay under
the run folder either way. Both stores hold the same checkpoints, so play, resume and the listing
of runs behave alike on either. The stores and the engine behind them load only when a store is
opened, so the command line's options, which name the file and the variable here, start without them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

DSN_ENV = "MAFIA_CHECKPOINT_DSN"
CHECKPOINT_FILE = "checkpoints.sqlite"
CONNECT_TIMEOUT = 10  # seconds
POSTGRES_PACKAGES = "langgraph-checkpoint-postgres and psycopg (pip install 'mafia-graph[postgres]')"


class CheckpointStoreError(RuntimeError):
    """The checkpoint store cannot be used: a bad connection string, a server out of reach, or
    the PostgreSQL packages missing. The message says which, without the password."""


@contextmanager
def postgres_checkpointer(dsn: str) -> Iterator[BaseCheckpointSaver[Any]]:
    """A PostgreSQL checkpointer on ``dsn`` (its tables created if missing), closed afterwards.

    One autocommit connection, as ``PostgresSaver.from_conn_string`` opens it: each checkpoint is
    committed when it is saved, so a killed process loses no finished step.
    """
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        from mafia.play.checkpoint_serde import CompressedSerializer
    except ImportError as exc:
        raise CheckpointStoreError(
            f"a PostgreSQL checkpoint store needs {POSTGRES_PACKAGES} ({exc})"
        ) from None
    # A host that never answers would hang the command: give up after a while, unless told how long.
    wait: dict[str, Any] = {} if "connect_timeout" in check_dsn(dsn) else {"connect_timeout": CONNECT_TIMEOUT}
    try:
        conn = psycopg.Connection.connect(
            dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row, **wait
        )
    except psycopg.Error as exc:
        raise CheckpointStoreError(f"cannot connect to the checkpoint database: {_one_line(exc)}") from None
    with conn:
        saver = PostgresSaver(conn, serde=CompressedSerializer())
        try:
            saver.setup()
        except psycopg.Error as exc:
            raise CheckpointStoreError(f"cannot set up the checkpoint tables: {_one_line(exc)}") from None
        yield saver


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def check_dsn(dsn: str) -> dict[str, Any]:
    """The parts of a connection string psycopg can read (CheckpointStoreError names what is
    wrong with one it cannot)."""
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError as exc:
        raise CheckpointStoreError(
            f"a PostgreSQL checkpoint store needs {POSTGRES_PACKAGES} ({exc})"
        ) from None
    try:
        return conninfo_to_dict(dsn)
    except Exception as exc:  # psycopg.ProgrammingError: the message names the bad part
        raise CheckpointStoreError(f"not a PostgreSQL connection string: {_one_line(exc)}") from None


@contextmanager
def open_checkpointer(out: str | Path, dsn: str | None = None) -> Iterator[BaseCheckpointSaver[Any]]:
    """The run's checkpointer: PostgreSQL at ``dsn`` if given, else SQLite at ``out/checkpoints.sqlite``."""
    if dsn:
        with postgres_checkpointer(dsn) as saver:
            yield saver
    else:
        from mafia.play.runner import sqlite_checkpointer

        with sqlite_checkpointer(Path(out) / CHECKPOINT_FILE) as saver:
            yield saver


def list_threads(saver: BaseCheckpointSaver[Any], out: Path) -> list[str]:
    """The thread ids of the games ``saver`` holds, oldest first."""
    conn = getattr(saver, "conn", None)
    if isinstance(conn, sqlite3.Connection):
        from mafia.play.runner import saved_threads

        return saved_threads(out / CHECKPOINT_FILE)
    if conn is None:
        raise TypeError(f"cannot list the games of a {type(saver).__name__}")
    # Checkpoint ids are time-ordered (UUIDv6), so a thread's smallest is its first checkpoint.
    with conn.cursor() as cur:
        cur.execute(
            "SELECT thread_id FROM checkpoints WHERE checkpoint_ns = '' "
            "GROUP BY thread_id ORDER BY MIN(checkpoint_id)"
        )
        return [str(row["thread_id"]) for row in cur.fetchall()]
