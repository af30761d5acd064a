"""A throwaway PostgreSQL server for tests: Debian's ``initdb`` and ``pg_ctl`` (installed by
``scripts/system_deps.sh``) on a free port of 127.0.0.1, its data in a temporary folder.

PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user (or
``nobody``), which owns the folder. Durability settings are off unless ``durable`` is asked for:
most tests kill game processes, never the server.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from mafia.commands.local_services import pg_binary as _binary


def _server_user() -> pwd.struct_passwd | None:
    """The user to run the server as when this process is root (None when it is not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root, and neither a postgres nor a nobody user exists to run PostgreSQL")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def unavailable() -> str | None:
    """Why no server can be started here (None if one can)."""
    missing = [name for name in ("initdb", "pg_ctl") if _binary(name) is None]
    if missing:
        return (
            f"PostgreSQL is not installed ({', '.join(missing)} not found on PATH or under "
            "/usr/lib/postgresql/*/bin; scripts/system_deps.sh installs Debian's postgresql package)"
        )
    try:
        import langgraph.checkpoint.postgres  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        return f"the PostgreSQL checkpointer packages are missing ({exc}); install '.[dev]'"
    return None


class PgServer:
    """One running server; ``dsn(database)`` connects to it, ``database()`` makes a fresh database."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        self.user = _server_user()
        self.folder = Path(tempfile.mkdtemp(prefix="mafia-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._made = 0
        if self.user is not None:
            os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
        try:
            self._run(
                _binary("initdb"),
                "-D",
                str(self.data),
                "-U",
                "mafia",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            )
            self.start()
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise

    def start(self) -> None:
        """Start the server (again) on its port and data."""
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        log = str(self.folder / "server.log")
        pg_ctl = _binary("pg_ctl")
        self._run(pg_ctl, "-D", str(self.data), "-l", log, "-o", options, "-w", "-t", "60", "start")

    def halt(self) -> None:
        """Stop the server as a crash would (its connections cut at once, no shutdown), keeping its
        data: only a ``durable`` server keeps every commit it acknowledged through that (without,
        the last fraction of a second of commits is lost, as PostgreSQL documents for
        ``synchronous_commit=off``)."""
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def _run(self, *command: Any) -> None:
        kwargs: dict[str, Any] = {}
        if self.user is not None:
            kwargs = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        done = subprocess.run(
            [str(c) for c in command], capture_output=True, text=True, timeout=120, cwd=self.folder, **kwargs
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{command[0]} failed ({done.returncode}): {done.stderr.strip() or done.stdout}"
            )

    def dsn(self, database: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=mafia dbname={database}"

    def database(self) -> str:
        """A new, empty database; its DSN."""
        import psycopg

        self._made += 1
        name = f"games_{self._made}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.dsn(name)

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        try:
            self.halt()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
