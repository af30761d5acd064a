"""A local stand-in for the LangSmith API that receives the real ``langsmith`` client's uploads.

It answers ``GET /info`` (advertising multipart ingestion, and zstd compression unless told not to)
and accepts ``POST /runs/multipart`` (plain or zstd-compressed ``multipart/form-data``: one part per
run operation and field, ``post.<id>``, ``post.<id>.inputs``, ``patch.<id>.outputs``...) and
``POST /runs/batch`` (JSON ``{"post": [...], "patch": [...]}``). Every upload body is kept as the
client sent it (decompressed) for checks on what was sent; ``runs()`` folds the posts and patches
into one dict per run, as LangSmith shows them. Stdlib and ``zstandard`` only, on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import Message
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import zstandard


class LangSmithEndpoint:
    """The fake API, started on a free local port; use as a context manager."""

    def __init__(self, *, compression: bool = True) -> None:
        self.compression = compression
        self.bodies: list[bytes] = []
        """Every upload body, decompressed, in arrival order."""
        self.headers: list[dict[str, str]] = []
        """The headers of every request (uploads and ``/info``)."""
        self.operations: list[tuple[str, dict[str, Any]]] = []
        """("post" | "patch", run fields) in arrival order."""
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> LangSmithEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def upload_bytes(self) -> int:
        """Bytes of run data received (decompressed)."""
        with self._lock:
            return sum(len(b) for b in self.bodies)

    def runs(self) -> dict[str, dict[str, Any]]:
        """Every run received, by id: its post with later patches applied over it."""
        merged: dict[str, dict[str, Any]] = {}
        with self._lock:
            operations = list(self.operations)
        for _, fields in operations:
            run = merged.setdefault(str(fields["id"]), {})
            run.update({k: v for k, v in fields.items() if v is not None})
        return merged

    # ---- request handling ----------------------------------------------------------------

    def _info(self) -> dict[str, Any]:
        return {
            "version": "0.0.0-fake",
            # The fields the real service sends (the client reads each of them).
            "batch_ingest_config": {
                "use_multipart_endpoint": True,
                "size_limit": 100,
                "size_limit_bytes": 20_971_520,
                "scale_up_nthreads_limit": 16,
                "scale_up_qsize_trigger": 1000,
                "scale_down_nempty_trigger": 4,
            },
            "instance_flags": {"zstd_compression_enabled": self.compression},
        }

    def _receive(self, path: str, headers: dict[str, str], body: bytes) -> None:
        if headers.get("content-encoding") == "zstd":
            body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
        with self._lock:
            self.bodies.append(body)
        if path == "/runs/batch":
            batch = json.loads(body)
            ops = [(op, run) for op in ("post", "patch") for run in batch.get(op) or []]
        else:
            ops = _multipart_operations(headers["content-type"], body)
        with self._lock:
            self.operations.extend(ops)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _headers(self) -> dict[str, str]:
                headers = {k.lower(): v for k, v in self.headers.items()}
                with endpoint._lock:
                    endpoint.headers.append(headers)
                return headers

            def _reply(self, status: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _body(self, headers: dict[str, str]) -> bytes:
                if headers.get("transfer-encoding", "").lower() == "chunked":
                    chunks: list[bytes] = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                        if size == 0:
                            self.rfile.readline()
                            return b"".join(chunks)
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                return self.rfile.read(int(headers.get("content-length", "0")))

            def do_GET(self) -> None:
                self._headers()
                path = self.path.split("?")[0]
                if path == "/info":
                    self._reply(200, endpoint._info())
                elif path == "/_received":  # for a client in another process (the benchmark)
                    self._reply(200, {"bytes": endpoint.upload_bytes(), "runs": len(endpoint.runs())})
                else:
                    self._reply(404, {"detail": "not found"})

            def do_POST(self) -> None:
                headers = self._headers()
                body = self._body(headers)
                path = self.path.split("?")[0]
                if path not in ("/runs/multipart", "/runs/batch"):
                    self._reply(404, {"detail": "not found"})
                    return
                endpoint._receive(path, headers, body)
                self._reply(202, {})

        return Handler


@contextmanager
def langsmith_endpoint(*, compression: bool = True) -> Iterator[LangSmithEndpoint]:
    """A running fake endpoint (see the class)."""
    with LangSmithEndpoint(compression=compression) as endpoint:
        yield endpoint


def _multipart_operations(content_type: str, body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The run operations of a multipart body: each ``op.<id>`` part with its field parts folded in."""
    message = BytesParser().parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    ops: dict[tuple[str, str], dict[str, Any]] = {}
    order: list[tuple[str, str]] = []
    parts = message.get_payload()
    assert isinstance(parts, list), "a multipart body"
    for part in parts:
        assert isinstance(part, Message)
        name = part.get_param("name", header="content-disposition")
        op, run_id, *field = str(name).split(".")
        key = (op, run_id)
        if key not in ops:
            ops[key] = {"id": run_id}
            order.append(key)
        data = part.get_payload(decode=True)
        assert isinstance(data, bytes)
        value = json.loads(data)
        if field:
            ops[key][field[0]] = value
        else:
            ops[key].update(value)
    return [(op, ops[(op, run_id)]) for op, run_id in order if op in ("post", "patch")]


def main() -> None:
    """Serve until killed, printing the URL first (the benchmark runs it in its own process, so
    that receiving the uploads is not counted in the CPU time of the process that traces)."""
    import sys

    with LangSmithEndpoint(compression="--no-compression" not in sys.argv) as endpoint:
        print(endpoint.url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
