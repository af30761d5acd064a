"""A LangGraph server on Postgres and Redis for tests, as ``mafia serve`` runs one: a throwaway
PostgreSQL (``pg_server``) and Redis (Debian's ``redis-server``, installed by
``scripts/system_deps.sh``) on free ports of 127.0.0.1, and one or more server processes from the
server environment (``make server-venv``) sharing them. ``ServeProcess.kill`` ends one as a crash
would (SIGKILL)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

import pg_server
from fakes import free_port
from mafia.commands.server_app import redis_down
from repo import ROOT

SERVE = ROOT / ".venv-server" / "bin" / "mafia"
HEARTBEAT_S = 2  # a killed process's runs are swept back to the queue after two missed beats
START_S = 600  # a busy machine takes minutes to start a server (its imports, the database's tables)


def unavailable() -> str | None:
    """Why no such server can be started here (None if one can)."""
    if (reason := pg_server.unavailable()) is not None:
        return reason
    if shutil.which("redis-server") is None:
        return "Redis is not installed (redis-server not on PATH; scripts/system_deps.sh installs it)"
    if not SERVE.exists():
        return f"the server environment is missing ({SERVE}; make server-venv builds it)"
    return None


class RedisServer:
    """A Redis without persistence on a free local port (``uri``); ``restart`` stops it and starts
    it again on the same port, empty, as an outage of Redis would leave it."""

    def __init__(self) -> None:
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="mafia-redis-")
        self.uri = f"redis://127.0.0.1:{self.port}"
        self.proc = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--appendonly", "no", "--dir", self.folder]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while redis_down(self.uri, 1.0) is not None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"redis-server did not start on port {self.port}")
            time.sleep(0.1)
        return proc

    def halt(self) -> None:
        """Stop it at once (SIGKILL: its connections are cut)."""
        self.proc.kill()
        self.proc.wait(timeout=20)

    def start(self) -> None:
        self.proc = self._start()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A Redis without persistence on a free local port, stopped afterwards."""
    server = RedisServer()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class ServeProcess:
    """One running ``mafia serve``: its URL and process (the leader of its own group)."""

    url: str
    proc: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        """What it logged so far (its runs' starts and ends among it)."""
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """End it as a crash would: SIGKILL, no shutdown."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Cluster:
    """A database and a Redis, and the server processes on them."""

    database_uri: str
    redis_uri: str
    work: Path
    workers: int
    pg: pg_server.PgServer
    redis: RedisServer
    processes: list[ServeProcess] = field(default_factory=list)

    def start(self) -> ServeProcess:
        """One more ``mafia serve`` (``workers`` games at once) on the same database and Redis, answering."""
        port = free_port()
        env = {
            **os.environ,
            "LANGSMITH_TRACING": "false",
            "LG_BG_JOB_HEARTBEAT": str(HEARTBEAT_S),
            "LOG_LEVEL": "INFO",
        }
        args = [str(SERVE), "serve", "--database-uri", self.database_uri, "--redis-uri", self.redis_uri]
        args += ["--workers", str(self.workers), "--port", str(port)]
        log_path = self.work / f"serve-{len(list(self.work.glob('serve-*.log')))}.log"
        with log_path.open("w") as log:
            proc = subprocess.Popen(
                args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        process = ServeProcess(f"http://127.0.0.1:{port}", proc, log_path)
        self.processes.append(process)
        deadline = time.monotonic() + START_S
        while True:
            try:
                if httpx.get(f"{process.url}/ok", timeout=1).status_code == 200:
                    return process
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("mafia serve did not start:\n" + log_path.read_text()[-3000:])
            time.sleep(0.3)

    def crash(self, process: ServeProcess) -> None:
        """Kill ``process`` as a crash would, and start another in its place on the same database."""
        process.kill()
        self.processes.remove(process)
        self.start()


@contextmanager
def cluster(work: Path, processes: int = 2, workers: int = 4, durable: bool = False) -> Iterator[Cluster]:
    """``processes`` server processes (``workers`` games at once each) on one fresh database and
    Redis (``durable``: see ``PgServer``); every process is stopped afterwards."""
    work.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        pg = pg_server.PgServer(durable)
        stack.callback(pg.stop)
        dsn = pg.database()
        database = dsn.split("dbname=")[1]
        redis = stack.enter_context(redis_server())
        database_uri = f"postgresql://mafia@127.0.0.1:{pg.port}/{database}"
        made = Cluster(database_uri, redis.uri, work, workers, pg, redis)
        try:
            for _ in range(processes):  # one after the other: the first sets up the database
                made.start()
            yield made
        finally:
            for process in made.processes:
                process.stop()
