"""Per-player context: transcript window and compression, memory, token counts, the prompt builder.

``build_context`` is the one entry point the graph calls; the rest is exposed for tests, tools and
other policies.
"""

from mafia.context.builder import RenderedPrompt, Section, build_context, clear_caches
from mafia.context.compression import compress_round
from mafia.context.extraction import Extraction, extract
from mafia.context.memory import build_memory
from mafia.context.policy import ContextPolicy
from mafia.context.safety import quote_text
from mafia.context.tokens import count_tokens
from mafia.context.transcript import TranscriptManager, WindowedTranscript

__all__ = [
    "ContextPolicy",
    "Extraction",
    "RenderedPrompt",
    "Section",
    "TranscriptManager",
    "WindowedTranscript",
    "build_context",
    "build_memory",
    "clear_caches",
    "compress_round",
    "count_tokens",
    "extract",
    "quote_text",
]
