"""Which ended server runs were ended by the server's own infrastructure, not by their game, and
so are taken up again without the user acting: a run whose connection to PostgreSQL or Redis was
lost (the server records the exception's type on the thread), or one that the runtime gave up on
after its worker was killed again and again (no exception recorded). A game's own errors (a model
provider that stays down, a bad setting) are left for the user, as a local game's are.

One policy, read by the server's keeper (which starts the new runs) and by ``status``/``collect``
(which then count such a game as being taken up, not as stopped)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Attempts after the first run of a game ended by a fault: a component down for longer than the
# keeper's ticks allow leaves the game stopped, to be queued again by hand.
MAX_TAKE_UPS = 5
QUEUED = "mafia_queued"  # the metadata key marking a game's background run (``queue_games``)
RUN_METADATA = {QUEUED: True}
POSTGRES, REDIS, WORKER = "PostgreSQL", "Redis", "a server process"
COMPONENTS = (POSTGRES, REDIS)  # what the server's health check reports on, by these names
# The exception types (by name, as the server records them) of a lost connection to each.
FAULTS: Mapping[str, str] = {
    "OperationalError": POSTGRES,
    "InterfaceError": POSTGRES,
    "AdminShutdown": POSTGRES,
    "ConnectionFailure": POSTGRES,
    "ConnectionDoesNotExist": POSTGRES,
    "PoolTimeout": POSTGRES,
    "PoolClosed": POSTGRES,
    "DBAPIError": POSTGRES,
    "ConnectionError": REDIS,
    "ConnectionResetError": REDIS,
    "ConnectionRefusedError": REDIS,
    "BrokenPipeError": REDIS,
    "BusyLoadingError": REDIS,
    "RedisError": REDIS,
}


@dataclass(frozen=True)
class Fault:
    """An ended run's fault: the component at fault, and whether the run is taken up again
    (``retry``, its number from 1) or left stopped."""

    component: str
    retry: int
    taken_up: bool

    def line(self) -> str:
        """How ``status`` says it."""
        if self.taken_up:
            return (
                f"its run was ended by {self.component}; taken up again "
                f"(retry {self.retry} of {MAX_TAKE_UPS})"
            )
        return f"its run was ended by {self.component} {MAX_TAKE_UPS + 1} times; queue it again"


def component_of(error: Mapping[str, Any] | None) -> str | None:
    """The component whose fault ended a run, from the error the server recorded on its thread
    (None: no error recorded, the runtime gave the run up after losing its worker); None when the
    game itself failed."""
    if not error:
        return WORKER
    return FAULTS.get(str(error.get("error", "")))


def fault_of(runs: Sequence[Mapping[str, Any]], error: Mapping[str, Any] | None) -> Fault | None:
    """The fault of a queued game whose latest run (``runs``, newest first, as the server lists
    them) ended in ``error``, ``error`` being what the server recorded on the thread; None when
    the game is not in that case or its own error ended it. A game streamed to a client
    (``mafia arena --server`` without ``--queue``) is that client's to go on with."""
    if not runs or runs[0].get("status") != "error":
        return None
    if not (runs[0].get("metadata") or {}).get(QUEUED):
        return None
    component = component_of(error)
    if component is None:
        return None
    retry = sum(run.get("status") == "error" for run in runs)
    return Fault(component, retry, retry <= MAX_TAKE_UPS)
