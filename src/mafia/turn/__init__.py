"""One player's turn beside the graph: reading and rejecting answers, the tokens a call is billed,
the turn's own state, and the people who answer at a seat instead of a model."""
