"""Compressed checkpoint blobs: written compressed, read back equal, and plain blobs (files written
before compression) still read."""

from __future__ import annotations

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from mafia.play.checkpoint_serde import CompressedSerializer


def test_large_blobs_are_compressed_and_read_back() -> None:
    serde = CompressedSerializer()
    value = {"events": [{"type": "speech", "text": "I suspect Player 3. " * 40}] * 20}
    kind, blob = serde.dumps_typed(value)
    plain_kind, plain = JsonPlusSerializer().dumps_typed(value)
    assert kind == plain_kind + "+zlib" and len(blob) < len(plain) // 5
    assert serde.loads_typed((kind, blob)) == value


def test_small_and_older_blobs_read_as_they_are() -> None:
    serde = CompressedSerializer()
    assert serde.dumps_typed(3)[0] == JsonPlusSerializer().dumps_typed(3)[0]
    older = JsonPlusSerializer().dumps_typed({"text": "x" * 1000})
    assert serde.loads_typed(older) == {"text": "x" * 1000}
