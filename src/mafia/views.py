"""What one player may see of the log: the only door from the log to a prompt."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from mafia.events import EventBase, entitled, roles_from_log
from mafia.rules import Role

_CACHE_SIZE = 256
# (id of the log's first event, viewer) -> (events seen, last event seen, view so far, the roles
# read from those events)
_Cached = tuple[int, EventBase, list[EventBase], dict[str, Role]]
_views: OrderedDict[tuple[int, str], _Cached] = OrderedDict()
_lock = threading.Lock()


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
    Views of a growing log are extended rather than recomputed: the log is append-only, so a
    cached view stays valid while the events it covered are the very same objects.
    """
    if not events:
        return []
    key = (id(events[0]), viewer)
    start, view = 0, []
    known: Mapping[str, Role] | None = roles
    if roles is None:
        with _lock:
            cached = _views.get(key)
        if cached is not None:
            n, last, seen, seen_roles = cached
            if n <= len(events) and events[n - 1] is last:
                # The roles of the whole log: those of the events already seen, then the new ones.
                start, view = n, list(seen)
                known = {**seen_roles, **roles_from_log(events[n:])}
        if known is None:
            known = roles_from_log(events)
    assert known is not None
    view += [e for e in (redact(ev, viewer, known) for ev in events[start:]) if e is not None]
    if roles is None:
        with _lock:
            _views[key] = (len(events), events[-1], view, dict(known))
            _views.move_to_end(key)
            while len(_views) > _CACHE_SIZE:
                _views.popitem(last=False)
    return list(view)
