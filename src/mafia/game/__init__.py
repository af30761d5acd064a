"""The game itself, pure: the protocol table, the rules, the events, the state and the functions
that apply answers to it. It imports nothing from the context, models, nodes, LangGraph or
LangChain: everything else is built on it."""
