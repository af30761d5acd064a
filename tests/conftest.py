"""Test-wide settings: no tracing to LangSmith (no test points at a real endpoint)."""

from __future__ import annotations

import os

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"
