"""The PostgreSQL and Redis that ``mafia serve`` starts for itself when it is given neither: the
system packages' binaries (Debian keeps PostgreSQL's under /usr/lib/postgresql/<version>/bin),
each on a free port of 127.0.0.1, the database's files in a folder it names and reuses at the next
start, both stopped when the server stops. PostgreSQL refuses to run as root, so as root it runs
as the ``postgres`` user (or ``nobody``), which then owns its folder."""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mafia.run.settings import SettingError

START_S = 60  # a busy machine starts PostgreSQL in seconds; a minute means it will not
STOP_S = 30
DATABASE = "postgres"  # the database initdb makes; the server's tables go there
USER = "mafia"
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a child gets when its parent ends
INSTALL = "install PostgreSQL and Redis (Debian: apt-get install postgresql redis-server; make system-deps)"


def pg_binary(name: str) -> str | None:
    """PostgreSQL's ``name`` (initdb, pg_ctl, postgres) on PATH, else in the newest of
    /usr/lib/postgresql/<version>/bin; None when neither has it."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    return versions[-1] if versions else None


def server_user() -> pwd.struct_passwd | None:
    """The user PostgreSQL runs as when this process is root (None when it is not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise SettingError("serve: running as root, and no postgres or nobody user exists to run PostgreSQL as")


def free_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def missing_binaries() -> list[str]:
    """The binaries a local PostgreSQL and Redis need that this machine lacks."""
    missing = [name for name in ("initdb", "postgres") if pg_binary(name) is None]
    return missing + ([] if shutil.which("redis-server") else ["redis-server"])


@dataclass(frozen=True)
class LocalServices:
    """The running local PostgreSQL and Redis: their URIs and the folder holding them."""

    folder: Path
    database_uri: str
    redis_uri: str


def _answers(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _wait_until_up(proc: subprocess.Popen[bytes], port: int, what: str, log: Path) -> None:
    """Wait until ``proc`` accepts connections on ``port``; a process that ends first, or a
    minute without an answer, is one line naming it and its log."""
    deadline = time.monotonic() + START_S
    while not _answers(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            last = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
            why = " ".join(last) or "no log"
            raise SettingError(f"serve: the local {what} did not start ({why}; see {log})")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes], signal_number: int) -> None:
    """Stop ``proc`` with ``signal_number`` (PostgreSQL: SIGINT, its fast shutdown), killing it
    after STOP_S."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal_number)
    try:
        proc.wait(timeout=STOP_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _as_server_user(user: pwd.struct_passwd | None) -> dict[str, Any]:
    """Popen's arguments to run a command as ``user`` (none when it is None)."""
    return {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def _dies_with_us(signal_number: int) -> Callable[[], None]:
    """A Popen ``preexec_fn`` that has Linux send the child ``signal_number`` when this process
    ends, even killed (SIGKILL): a local PostgreSQL or Redis never outlives its server."""

    def preexec() -> None:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal_number)

    return preexec


def _initdb(data: Path, user: pwd.struct_passwd | None) -> None:
    """A new database cluster in ``data`` (trust for local connections: it listens on 127.0.0.1)."""
    initdb = str(pg_binary("initdb"))
    args = [initdb, "-D", str(data), "-U", USER, "-A", "trust", "-E", "UTF8"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, **_as_server_user(user))
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:]
        as_user = f"; it runs as the {user.pw_name} user, who must reach that folder" if user else ""
        raise SettingError(f"serve: initdb could not make the database in {data} ({' '.join(last)}{as_user})")


@contextlib.contextmanager
def local_services(folder: Path) -> Iterator[LocalServices]:
    """PostgreSQL (its files in ``folder``/postgres, made at the first start and reused at every
    later one) and Redis (``folder``/redis: streams and heartbeats only, nothing kept), each on a
    free local port, running while the context is open; both are stopped on leaving it."""
    missing = missing_binaries()
    if missing:
        raise SettingError(
            f"serve: no --database-uri or --redis-uri given, and {', '.join(missing)} not found to "
            f"start them here: {INSTALL}"
        )
    user = server_user()
    folder.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()  # Redis changes into its --dir before it opens its log
    data, redis_dir = folder / "postgres", folder / "redis"
    redis_dir.mkdir(exist_ok=True)
    if user is not None:
        for path in (folder, data) if data.exists() else (folder,):
            os.chown(path, user.pw_uid, user.pw_gid)
    if (data / "postmaster.pid").exists() and _pid_alive(data / "postmaster.pid"):
        raise SettingError(
            f"serve: {data} is in use by another PostgreSQL (another mafia serve with this --data?); "
            "give this process that one's --database-uri and --redis-uri, or another --data"
        )
    if not (data / "PG_VERSION").exists():
        _initdb(data, user)
    with contextlib.ExitStack() as stack:
        pg_port, redis_port = free_port(), free_port()
        pg_log = folder / "postgres.log"
        postgres = [str(pg_binary("postgres")), "-D", str(data), "-p", str(pg_port)]
        postgres += ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="]
        with pg_log.open("ab") as log:
            pg = subprocess.Popen(
                postgres,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_dies_with_us(signal.SIGINT),
                **_as_server_user(user),
            )
        stack.callback(_stop, pg, signal.SIGINT)  # PostgreSQL's fast shutdown: every commit kept
        _wait_until_up(pg, pg_port, "PostgreSQL", pg_log)
        redis_log = folder / "redis.log"
        redis = ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--dir", str(redis_dir)]
        redis += ["--save", "", "--appendonly", "no", "--logfile", str(redis_log)]
        rd = subprocess.Popen(
            redis,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_dies_with_us(signal.SIGTERM),
        )
        stack.callback(_stop, rd, signal.SIGTERM)
        _wait_until_up(rd, redis_port, "Redis", redis_log)
        yield LocalServices(
            folder,
            f"postgresql://{USER}@127.0.0.1:{pg_port}/{DATABASE}",
            f"redis://127.0.0.1:{redis_port}",
        )


def _pid_alive(pid_file: Path) -> bool:
    """Whether the process a postmaster.pid names still runs (a killed server leaves the file)."""
    try:
        os.kill(int(pid_file.read_text().split()[0]), 0)
    except PermissionError:  # another user's live process
        return True
    except (ValueError, IndexError, OSError):
        return False
    return True
