#!/usr/bin/env bash
# System packages some tests need, installed from Debian's packages where they are missing.
# Quiet and non-interactive; it never fails the run: a test whose package cannot be had is
# skipped and says why. Each part of the project adds its packages below.
set -u

# Whether every command named is on PATH.
have() {
    local cmd
    for cmd in "$@"; do
        command -v "$cmd" >/dev/null 2>&1 || return 1
    done
}

APT_UPDATED=0

# apt_install PACKAGE...: install with apt-get (as root, or through a password-less sudo).
apt_install() {
    local sudo=""
    if [ "${EUID:-$(id -u)}" -ne 0 ]; then
        if have sudo && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
            echo "system_deps: not root: cannot install $* (tests that need it are skipped)" >&2
            return 0
        fi
    fi
    if ! have apt-get; then
        echo "system_deps: no apt-get: cannot install $* (tests that need it are skipped)" >&2
        return 0
    fi
    # Other installs may hold the dpkg lock for a while: wait for it rather than fail.
    local opts=(-qq -o DPkg::Lock::Timeout=600 -o Dpkg::Use-Pty=0)
    if [ "$APT_UPDATED" -eq 0 ]; then
        $sudo apt-get "${opts[@]}" update >/dev/null 2>&1 || true
        APT_UPDATED=1
    fi
    if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get "${opts[@]}" install -y --no-install-recommends "$@" \
        >/dev/null 2>&1; then
        echo "system_deps: could not install $* (tests that need it are skipped)" >&2
    fi
}

# Replays: the HTML page is checked in headless Chromium.
have chromium || apt_install chromium

# PostgreSQL server binaries (initdb, pg_ctl) for the checkpointer tests (tests/runs/test_postgres.py).
# Debian keeps them under /usr/lib/postgresql/<version>/bin, off PATH.
if ! have initdb pg_ctl && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    apt_install postgresql
fi

# Redis for the LangGraph server's streams and heartbeats (mafia serve; tests/server/test_server_queue.py).
have redis-server || apt_install redis-server

exit 0
