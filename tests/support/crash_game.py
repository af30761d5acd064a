"""A game in a process of its own, to be killed: ``play`` or ``resume`` a game under OUT with the
house model, slowed by DELAY seconds per call (0 for full speed). Checkpoints go to
OUT/checkpoints.sqlite, or to the PostgreSQL database of ``MAFIA_CHECKPOINT_DSN`` if it is set.

    python tests/support/crash_game.py play OUT SEED PLAYERS DELAY
    python tests/support/crash_game.py resume OUT RUN_ID SEED DELAY

Exits 3 when asked to resume a game no checkpoint holds.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from mafia.models.house import HouseModel
from mafia.play.checkpoints import DSN_ENV, open_checkpointer
from mafia.play.runner import GameNotFound, resume_game, run_game


class SlowHouseModel(HouseModel):
    """The house model, waiting ``delay`` seconds before each answer (as a remote model would)."""

    delay: float = 0.0

    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        time.sleep(self.delay)
        return super()._generate(*args, **kwargs)


def main(argv: list[str]) -> int:
    """Play or resume one game; the exit code says how it ended."""
    command, out = argv[0], Path(argv[1])
    with open_checkpointer(out, os.environ.get(DSN_ENV)) as saver:
        if command == "play":
            seed, players, delay = int(argv[2]), int(argv[3]), float(argv[4])
            model = SlowHouseModel(seed=seed, delay=delay)
            run_game({"seed": seed, "players": players}, model=model, out_dir=out, checkpointer=saver)
            return 0
        run_id, seed, delay = argv[2], int(argv[3]), float(argv[4])
        # A slowed model is given again (it is the house model of the run's seed, as recorded); a
        # full-speed game resumes with no model at all, from what its run recorded.
        slowed = SlowHouseModel(seed=seed, delay=delay) if delay else None
        try:
            resume_game(run_id, checkpointer=saver, model=slowed, out_dir=out)
        except GameNotFound:
            return 3
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
