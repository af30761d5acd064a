"""``mafia serve``: a database or Redis that does not answer is one line naming which and how to
start it; given neither URI, the server starts its own PostgreSQL and Redis (their files in a
folder reused at the next start) and stops them when it stops. The last tests start real servers
(slow tier)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import pytest

import mafia.commands.serve as serve
from fakes import free_port
from mafia.commands.serve import check_reachable, check_serve
from mafia.commands.server_app import database_down, redis_down
from mafia.run.settings import SettingError
from server_cluster import SERVE, unavailable


@pytest.fixture
def runtime_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server runtime counted as installed (the default test environment has none)."""
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())


@pytest.mark.usefixtures("runtime_here")
def test_neither_uri_means_the_server_starts_its_own() -> None:
    assert check_serve(None, None, 4, "warning") is None
    uris = ("postgresql://u@127.0.0.1:5432/db", "redis://127.0.0.1:6379")
    assert check_serve(*uris, 4, "warning") == uris


@pytest.mark.usefixtures("runtime_here")
@pytest.mark.parametrize(
    ("database", "redis", "field"),
    [
        ("postgresql://u@127.0.0.1:5432/db", None, "--redis-uri"),
        (None, "redis://127.0.0.1:6379", "--database-uri"),
    ],
)
def test_one_uri_without_the_other_is_refused_in_one_line(
    database: str | None, redis: str | None, field: str
) -> None:
    with pytest.raises(
        SettingError, match=f"^{field} None: give .* or neither and mafia serve starts its own$"
    ):
        check_serve(database, redis, 4, "warning")


def test_a_database_that_does_not_answer_is_one_line_naming_it_and_how_to_start_it() -> None:
    database = f"postgresql://mafia:secret@127.0.0.1:{free_port()}/games"
    with pytest.raises(SettingError) as caught:
        check_reachable(database, f"redis://127.0.0.1:{free_port()}")
    line = str(caught.value)
    assert "\n" not in line and "secret" not in line
    assert line.startswith(
        f"--database-uri: the PostgreSQL at postgresql://127.0.0.1:{database.split(':')[3]}"
    )
    assert "start it (e.g. pg_ctlcluster" in line and "give neither URI" in line


def test_a_redis_that_does_not_answer_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve, "database_down", lambda uri: None)  # a database that answers
    port = free_port()
    with pytest.raises(SettingError) as caught:
        check_reachable("postgresql://u@127.0.0.1:1/db", f"redis://127.0.0.1:{port}")
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith(f"--redis-uri: the Redis at redis://127.0.0.1:{port} does not answer (")
    assert "redis-server --port PORT" in line


# The whole command, on this machine's PostgreSQL and Redis.
JOINS = re.compile(r"--database-uri (\S+) --redis-uri (\S+)")


def _start(data: Path, log: Path) -> tuple[subprocess.Popen[bytes], str, str, str]:
    """``mafia serve`` with no URIs on a free port; its process, URL and the URIs of its own
    PostgreSQL and Redis (as its first line gives them) once it answers."""
    port = free_port()
    env = {**os.environ, "LANGSMITH_TRACING": "false"}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(SERVE), "serve", "--port", str(port), "--data", str(data)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while True:
        try:
            if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            _stop(proc)
            raise AssertionError("mafia serve did not start:\n" + log.read_text()[-3000:])
        time.sleep(0.3)
    found = JOINS.search(log.read_text())
    assert found, log.read_text()[:2000]
    return proc, url, found[1], found[2]


def _stop(proc: subprocess.Popen[bytes]) -> int:
    """SIGTERM, as a service manager stops it; its exit code."""
    if proc.poll() is not None:
        return proc.returncode
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        return proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise


@pytest.mark.slow
def test_serve_with_no_uris_starts_and_stops_its_own_postgres_and_redis(tmp_path: Path) -> None:
    if (why := unavailable()) is not None:
        pytest.skip(f"no server environment here: {why}")
    # In /tmp: as root, PostgreSQL runs as the postgres user, who cannot reach pytest's folders.
    data = Path(tempfile.mkdtemp(prefix="mafia-serve-"))
    try:
        _serve_twice(data, tmp_path)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def _serve_twice(data: Path, tmp_path: Path) -> None:
    proc, url, database, redis = _start(data, tmp_path / "first.log")
    try:
        assert database_down(database) is None and redis_down(redis) is None
        assert httpx.get(f"{url}/mafia/health", timeout=30).json() == {"PostgreSQL": None, "Redis": None}
        thread = str(uuid.uuid4())
        httpx.post(f"{url}/threads", json={"thread_id": thread}, timeout=30).raise_for_status()
    finally:
        _stop(proc)
    assert database_down(database) is not None, "its PostgreSQL outlived the server"
    assert redis_down(redis) is not None, "its Redis outlived the server"
    assert (data / "postgres" / "PG_VERSION").exists()
    again, url, database_again, _ = _start(data, tmp_path / "second.log")
    try:  # the same database, kept across the two starts
        assert httpx.get(f"{url}/threads/{thread}", timeout=30).status_code == 200
    finally:
        _stop(again)
    assert database_down(database_again) is not None


@pytest.mark.slow
def test_serve_with_a_database_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    if (why := unavailable()) is not None:
        pytest.skip(f"no server environment here: {why}")
    args = [str(SERVE), "serve", "--database-uri", f"postgresql://u@127.0.0.1:{free_port()}/db"]
    args += ["--redis-uri", f"redis://127.0.0.1:{free_port()}"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --database-uri: the PostgreSQL at"), done.stderr
