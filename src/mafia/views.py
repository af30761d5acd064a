"""What one player may see of the log: the only door from the log to a prompt."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mafia.events import EventBase, entitled, roles_from_log
from mafia.rules import Role


def redact(event: EventBase, viewer: str, roles: Mapping[str, Role]) -> EventBase | None:
    """``event`` as ``viewer`` may see it: None if wholly private to others, else private fields
    they are not entitled to are blanked."""
    visible, readable = entitled(event, viewer, roles)
    if not visible:
        return None
    hidden = {name: None for name in event.PRIVATE_FIELDS if name not in readable}
    return event.model_copy(update=hidden) if hidden else event


def player_view(
    events: Sequence[EventBase], viewer: str, roles: Mapping[str, Role] | None = None
) -> list[EventBase]:
    """Public events, the viewer's own private facts and their team's, nothing else, in log order.

    ``roles`` may be passed when the caller already has them; otherwise they are read from the log.
    """
    known = roles if roles is not None else roles_from_log(events)
    return [e for e in (redact(ev, viewer, known) for ev in events) if e is not None]
