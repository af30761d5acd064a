"""What a tournament is asked to play: an arena whose tables seat several models at once.

A tournament plays ``games`` games of one table size with one context policy. In the ``mixed``
design each deal (a seed) is played once per model, each time another model holding the Mafia
(``seating``); in the ``teams`` design once per ordered pair of models, one the whole Mafia and
the other the whole Town (``team_seating``). Either way the games of one deal are paired: the
same deal, the models swapped. Its games live where an arena's do,
``games/<policy>/turn-<k>/seed-<seed>/`` (``turn-<k>``: the deal's k-th seating, ``teams-<k>`` in
the teams design; ``self-<k>``:
model k alone at the table, when self-play is asked), and arena.json
records, beside the arena's fields, which model held each seat of every game.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mafia.arena.spec import ArenaError, ArenaSpec, Contestant, GameSlot
from mafia.game.rules import assign_roles
from mafia.game.state import JSON
from mafia.run.settings import config_from_input
from mafia.tournament.seating import seating, team_pairs, team_seating

KIND = "tournament"
MIXED, TEAMS = "mixed", "teams"
DESIGNS = (MIXED, TEAMS)
"""How a tournament seats its models: ``mixed``, every model at every table, one holding the
Mafia and the others sharing the Town; ``teams``, two models a game, one the whole Mafia and the
other the whole Town, each pair on each deal both ways round."""
ASK_DEFAULTS = {"design": MIXED, "self_play": False}
"""What arena.json leaves out when asked by default (so the tournaments asked before keep their ids)."""


@dataclass(frozen=True)
class Table:
    """One game of a tournament: its deal's seed, its seating's turn, and the model of each seat
    (in seat order); a self-play game (``self_play``) seats model ``turn`` in every seat."""

    seed: int
    turn: int
    seats: tuple[Contestant, ...]
    self_play: bool = False
    design: str = MIXED

    @property
    def label(self) -> str:
        """The folder of the seating under the policy's folder: ``turn-<k>`` (mixed), ``teams-<k>``
        (the deal's k-th pair of the teams design), or ``self-<k>`` for model k's self-play game."""
        if self.self_play:
            return f"self-{self.turn}"
        return f"{'teams' if self.design == TEAMS else 'turn'}-{self.turn}"

    def contestant(self) -> Contestant:
        """The game's models as an arena contestant: every seat given its model."""
        return Contestant(
            self.label,
            self.seats[0].model,
            {str(number): c.model for number, c in enumerate(self.seats, start=1)},
        )


@dataclass(frozen=True)
class TournamentSpec(ArenaSpec):
    """An arena of mixed tables: ``contestants`` are the models seated together, ``policies`` the
    one context policy every seat plays with, ``games`` the number of mixed games (not of seeds).
    With ``self_play`` each deal is also played once by each model alone in every seat: games
    shown apart and never rated, on top of ``games``."""

    self_play: bool = False
    design: str = MIXED

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.design not in DESIGNS:
            raise ArenaError(f"--design {self.design}: use one of {', '.join(DESIGNS)}")
        if len(self.contestants) < 2:
            raise ArenaError("--model: give two or more models; a tournament seats them together")
        per_deal = self.per_deal
        if self.games % per_deal:
            fewer, more = self.games - self.games % per_deal, self.games - self.games % per_deal + per_deal
            how = (
                "once per model"
                if self.design == MIXED
                else "once per ordered pair of models (each pair both ways round)"
            )
            raise ArenaError(
                f"--games {self.games}: each deal is played {how}, so give a multiple of "
                f"{per_deal} (e.g. {fewer or more} or {more})"
            )
        if len(self.policies) != 1:
            raise ArenaError("--policy: a tournament plays one context policy; give at most one")
        for c in self.contestants:
            if c.seat_models:
                raise ArenaError(
                    f"--model {c.label}: sets models per seat; a tournament seats the models itself"
                )

    @property
    def per_deal(self) -> int:
        """The rated games of one deal: one per model (mixed), one per ordered pair (teams)."""
        models = len(self.contestants)
        return models if self.design == MIXED else len(team_pairs(models))

    @property
    def seeds(self) -> list[int]:
        """The deals' seeds, each played ``per_deal`` times."""
        return list(range(self.seed_start, self.seed_start + self.games // self.per_deal))

    def check_table(self) -> None:
        """The models fit the table: one holds the Mafia, each other at least one other seat
        (ArenaError otherwise; call it once the setup is known to be valid). In the teams design
        two models share a table, which every table fits."""
        if self.design == TEAMS:
            return
        counts = config_from_input(self.setup(self.seed_start)).role_counts()
        others = self.players - counts.mafia
        if len(self.contestants) > others + 1:
            raise ArenaError(
                f"--model: {len(self.contestants)} models do not fit {self.players} seats with "
                f"{counts.mafia} Mafia; give at most {others + 1} (one takes the Mafia, the others "
                "a Town seat each)"
            )

    def tables(self) -> Iterator[Table]:
        """Every game, deal by deal (so an early stop leaves whole paired games)."""
        models = len(self.contestants)
        for seed in self.seeds:
            deal = assign_roles(config_from_input(self.setup(seed)))
            if self.design == TEAMS:
                for turn, (mafia, town) in enumerate(team_pairs(models)):
                    order = team_seating(deal, mafia, town)
                    yield Table(seed, turn, tuple(self.contestants[k] for k in order), design=TEAMS)
            else:
                for turn in range(models):
                    order = seating(deal, models, turn)
                    yield Table(seed, turn, tuple(self.contestants[k] for k in order))
            if self.self_play:
                for turn, contestant in enumerate(self.contestants):
                    yield Table(seed, turn, (contestant,) * len(deal), self_play=True)

    def games_in(self, arena_dir: Path) -> Iterator[GameSlot]:
        """Every game of the tournament as an arena game."""
        policy = self.policies[0]
        for table in self.tables():
            yield GameSlot(arena_dir, policy, table.contestant(), table.seed)

    def record(self) -> JSON:
        """The ask as arena.json holds it, with the model label of every seat of every game (by the
        game's run id, seat 1 first)."""
        policy = self.policies[0].name
        return {
            **super().record(),
            "kind": KIND,
            # Only when asked: the tournaments asked without it keep the ids they had.
            **({"self_play": True} if self.self_play else {}),
            **({"design": self.design} if self.design != MIXED else {}),
            "seating": {
                f"{policy}/{t.label}/seed-{t.seed}": [c.label for c in t.seats] for t in self.tables()
            },
        }
