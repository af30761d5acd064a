"""mafia-graph: LLM players play Mafia on a LangGraph engine with per-player context management."""

__version__ = "0.1.0"
