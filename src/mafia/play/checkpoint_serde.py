"""Checkpoint blobs compressed with zlib: a game's checkpoints are mostly text (events, prompt
records), which compresses several times over; larger games compress better, so stored bytes grow
more slowly than the game.

A blob is stored as ``(<type>+zlib, compressed)``; blobs written before (or too small to gain) keep
their plain type and are read as they are, so existing checkpoint files stay readable.
"""

from __future__ import annotations

import zlib
from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

MIN_BYTES = 256  # smaller blobs (versions, small channel values) gain nothing worth the CPU
SUFFIX = "+zlib"


class CompressedSerializer(SerializerProtocol):
    """Wraps a serializer (LangGraph's default) and compresses what it writes."""

    def __init__(self, inner: SerializerProtocol | None = None) -> None:
        self.inner = inner if inner is not None else JsonPlusSerializer()

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        kind, data = self.inner.dumps_typed(obj)
        if len(data) < MIN_BYTES:
            return kind, data
        return kind + SUFFIX, zlib.compress(data, 1)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, blob = data
        if kind.endswith(SUFFIX):
            return self.inner.loads_typed((kind.removesuffix(SUFFIX), zlib.decompress(blob)))
        return self.inner.loads_typed(data)
