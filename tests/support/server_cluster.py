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


@contextmanager
def redis_server() -> Iterator[str]:
    """A Redis without persistence on a free local port; yields its URI."""
    port = free_port()
    folder = tempfile.mkdtemp(prefix="mafia-redis-")
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    proc = subprocess.Popen([*args, "--dir", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)


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
def cluster(work: Path, processes: int = 2, workers: int = 4) -> Iterator[Cluster]:
    """``processes`` server processes (``workers`` games at once each) on one fresh database and
    Redis; every process is stopped afterwards."""
    work.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        pg = pg_server.PgServer()
        stack.callback(pg.stop)
        dsn = pg.database()
        database = dsn.split("dbname=")[1]
        redis = stack.enter_context(redis_server())
        made = Cluster(f"postgresql://mafia@127.0.0.1:{pg.port}/{database}", redis, work, workers)
        try:
            for _ in range(processes):  # one after the other: the first sets up the database
                made.start()
            yield made
        finally:
            for process in made.processes:
                process.stop()
