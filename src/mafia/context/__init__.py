"""Per-player context: transcript window and compression, memory, token counts, the prompt builder.

``build_context`` is the one entry point the graph calls; the rest is exposed for tests, tools and
other policies. The names load on first use, so the command line reads the context policies
without loading the prompt builder.
"""

from typing import TYPE_CHECKING

from mafia.lazy import lazy_exports

if TYPE_CHECKING:
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

__getattr__ = lazy_exports(
    __name__,
    {
        "ContextPolicy": "mafia.context.policy",
        "Extraction": "mafia.context.extraction",
        "RenderedPrompt": "mafia.context.builder",
        "Section": "mafia.context.builder",
        "TranscriptManager": "mafia.context.transcript",
        "WindowedTranscript": "mafia.context.transcript",
        "build_context": "mafia.context.builder",
        "build_memory": "mafia.context.memory",
        "clear_caches": "mafia.context.builder",
        "compress_round": "mafia.context.compression",
        "count_tokens": "mafia.context.tokens",
        "extract": "mafia.context.extraction",
        "quote_text": "mafia.context.safety",
    },
)
