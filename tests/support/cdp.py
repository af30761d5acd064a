"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``):
no port, no websocket and no package beyond the standard library. Enough for page tests: open a
page, evaluate script, click like a mouse, press keys, take a screenshot, and list the requests it made."""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Self

# Chromium runs as root here (so without its sandbox) on a machine without network or GPU.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DEADLINE = 60.0  # seconds any one reply may take before the browser counts as hung


def find_chromium() -> str | None:
    """Debian's chromium (scripts/system_deps.sh installs it), if it is on this machine."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def chromium_or_skip() -> str:
    """Debian's chromium, or the calling test skipped saying why it is missing."""
    import pytest

    found = find_chromium()
    if found is None:
        pytest.skip(
            "no chromium: scripts/system_deps.sh (run by `make test`) could not install it with apt-get"
        )
    return found


class Browser:
    """One headless Chromium with a fresh profile in ``profile``, and one page in it.

    The protocol's pipe is file descriptors 3 (commands in) and 4 (replies out) of the browser: a
    shell started with our pipes as its stdin and stdout moves them there before it execs Chromium.
    """

    def __init__(self, binary: str, profile: Path, width: int = 1200, height: int = 1400) -> None:
        profile.mkdir(parents=True, exist_ok=True)
        self.log = (profile / "chromium.log").open("wb")
        self.proc = subprocess.Popen(
            [
                "sh",
                "-c",
                'exec "$@" 3<&0 4>&1 0</dev/null 1>&2',
                "sh",
                binary,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the protocol ----------------------------------------------------------------------

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        """Send one command (to the browser, or to a page's session) and return its result."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\0")
        self.proc.stdin.flush()
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """A command to the page."""
        return self.send(method, params, self.session)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The next event ``method`` of the page (one already received counts)."""
        while True:
            for index, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(index)
            self.events.append(self._read())

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        end = time.monotonic() + DEADLINE
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            chunk = os.read(fd, 1 << 16) if ready else b""
            if not chunk:
                raise RuntimeError("chromium stopped answering (see chromium.log in its profile)")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\0")
        reply: dict[str, Any] = json.loads(line)
        return reply

    # ---- what a test does ------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event."""
        self.events.clear()
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a script expression in the page."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A left click with the mouse at the middle of the element ``selector`` names."""
        x, y = self.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    def press(self, key: str) -> None:
        """Press and release one key on the keyboard, as the page's focused element gets it:
        ``key`` is a DOM key name (``ArrowRight``, ``Home``, `` `` for the space bar, ``]``)."""
        codes = {" ": ("Space", 32), "ArrowRight": ("ArrowRight", 39), "ArrowLeft": ("ArrowLeft", 37)}
        codes |= {
            "Home": ("Home", 36),
            "End": ("End", 35),
            "]": ("BracketRight", 221),
            "[": ("BracketLeft", 219),
        }
        code, number = codes[key]
        text = {"text": key} if len(key) == 1 else {}
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": number, **text},
            )

    def screenshot(self, path: Path) -> Path:
        """A PNG of the viewport, written to ``path``."""
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def requests(self) -> list[str]:
        """The URLs the page asked for since it was opened."""
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def close(self) -> None:
        """Close the browser, and end it if it does not go."""
        try:
            if self.proc.poll() is None:
                self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
