"""What a tournament is asked to play: an arena whose tables seat several models at once.

A tournament plays ``games`` games of one table size with one context policy. In the ``mixed``
design each deal (a seed) is played once per model, each time another model holding the Mafia
(``seating``); in the ``teams`` design once per ordered pair of models, one the whole Mafia and
the other the whole Town (``team_seating``). Either way the games of one deal are paired: the
same deal, the models swapped. Its games live where an arena's do,
``games/<policy>/turn-<k>/seed-<seed>/`` (``turn-<k>``: the deal's k-th seating, ``teams-<k>`` in
the teams design, ``swiss-<k>`` in the swiss design; ``self-<k>``: model k alone at the table,
when self-play is asked), and arena.json records, beside the arena's fields, which model held each
seat of every game. The ``swiss`` design plays ``rounds`` rounds, each on deals of its own, each
round's pairs (``pairing``) played as teams pairs; a round is scheduled once the one before has
finished, so its record grows round by round (``scheduled_keys``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mafia.arena.spec import ArenaError, ArenaSpec, Contestant, GameSlot
from mafia.game.rules import assign_roles
from mafia.game.state import JSON
from mafia.run.settings import config_from_input
from mafia.tournament.pairing import Round, default_rounds
from mafia.tournament.seating import seating, team_pairs, team_seating

KIND = "tournament"
MIXED, TEAMS, SWISS = "mixed", "teams", "swiss"
DESIGNS = (MIXED, TEAMS, SWISS)
"""How a tournament seats its models: ``mixed``, every model at every table, one holding the
Mafia and the others sharing the Town; ``teams``, two models a game, one the whole Mafia and the
other the whole Town, each pair on each deal both ways round; ``swiss``, as teams but only the
pairs of each Swiss round, models of similar standing."""
PREFIXES = {MIXED: "turn", TEAMS: "teams", SWISS: "swiss"}
ASKED = (
    "players",
    "games",
    "design",
    "rounds",
    "seed_start",
    "roles",
    "round_cap",
    "max_retries",
    "policies",
)
"""The settings of a tournament that its report and page list, in order (each adds its own)."""
ASK_DEFAULTS = {"design": MIXED, "self_play": False, "rounds": None}
"""What arena.json leaves out when asked by default (so the tournaments asked before keep their ids)."""


def all_games(games: int, deals: int, models: int, self_play: bool) -> int:
    """A tournament's games in all: ``games`` rated, and with self-play each model once a deal."""
    return games + (deals * models if self_play else 0)


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
        return f"{PREFIXES[self.design]}-{self.turn}"

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
    rounds: int | None = None
    """The swiss design's rounds (None: ``default_rounds``)."""
    schedule: tuple[Round, ...] = ()
    """The swiss rounds paired so far, in order."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.design not in DESIGNS:
            raise ArenaError(f"--design {self.design}: use one of {', '.join(DESIGNS)}")
        if self.rounds is not None and self.design != SWISS:
            raise ArenaError(
                "--rounds: only the swiss design plays rounds; add --design swiss or leave it out"
            )
        if self.rounds is not None and self.rounds < 1:
            raise ArenaError(f"--rounds {self.rounds}: must be 1 or more")
        if len(self.contestants) < 2:
            raise ArenaError("--model: give two or more models; a tournament seats them together")
        if self.design == SWISS:
            self._check_swiss_games()
            return
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
        self._check_models()

    def _check_swiss_games(self) -> None:
        """``games`` fills the rounds: each round the same count of deals, each pair both ways."""
        step = self.round_count * self.per_deal
        if self.games % step:
            fewer, more = self.games - self.games % step, self.games - self.games % step + step
            raise ArenaError(
                f"--games {self.games}: each of {self.round_count} rounds plays its pairs "
                f"({self.per_deal // 2} a round) both ways round on each of its deals, so give a "
                f"multiple of {step} (e.g. {fewer or more} or {more})"
            )
        self._check_models()

    def _check_models(self) -> None:
        if len(self.policies) != 1:
            raise ArenaError("--policy: a tournament plays one context policy; give at most one")
        for c in self.contestants:
            if c.seat_models:
                raise ArenaError(
                    f"--model {c.label}: sets models per seat; a tournament seats the models itself"
                )

    @property
    def per_deal(self) -> int:
        """The rated games of one deal: one per model (mixed), one per ordered pair (teams), two per
        pair of a round (swiss)."""
        models = len(self.contestants)
        if self.design == SWISS:
            return models // 2 * 2
        return models if self.design == MIXED else len(team_pairs(models))

    @property
    def round_count(self) -> int:
        """The swiss design's rounds, as asked or by default."""
        return self.rounds if self.rounds is not None else default_rounds(len(self.contestants))

    def round_seeds(self, number: int) -> list[int]:
        """The deals of swiss round ``number`` (from 0): each round its own consecutive seeds."""
        per_round = len(self.seeds) // self.round_count
        return self.seeds[number * per_round : (number + 1) * per_round]

    @property
    def all_games(self) -> int:
        """Every game of the tournament, scheduled or not: rated and self-play."""
        return all_games(self.games, len(self.seeds), len(self.contestants), self.self_play)

    def scheduled_keys(self) -> tuple[str, ...]:
        """The swiss record's seating and pairings grow as rounds are paired."""
        return ("seating", "pairings") if self.design == SWISS else ()

    @property
    def seeds(self) -> list[int]:
        """The deals' seeds, each played ``per_deal`` times."""
        return list(range(self.seed_start, self.seed_start + self.games // self.per_deal))

    def check_table(self) -> None:
        """The models fit the table: one holds the Mafia, each other at least one other seat
        (ArenaError otherwise; call it once the setup is known to be valid). In the teams and
        swiss designs two models share a table, which every table fits."""
        if self.design != MIXED:
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
        """Every game, deal by deal (so an early stop leaves whole paired games); in the swiss
        design the games of the rounds paired so far."""
        if self.design == SWISS:
            yield from self._swiss_tables()
            return
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
            yield from self._self_play(seed, len(deal))

    def _self_play(self, seed: int, seats: int) -> Iterator[Table]:
        if self.self_play:
            for turn, contestant in enumerate(self.contestants):
                yield Table(seed, turn, (contestant,) * seats, self_play=True)

    def _swiss_tables(self) -> Iterator[Table]:
        """The paired rounds' games: each pair on each of its round's deals both ways round."""
        index = {c.label: k for k, c in enumerate(self.contestants)}
        for number, paired in enumerate(self.schedule):
            for seed in self.round_seeds(number):
                deal = assign_roles(config_from_input(self.setup(seed)))
                for k, (a, b) in enumerate(paired.pairs):
                    for way, (mafia, town) in enumerate(((a, b), (b, a))):
                        order = team_seating(deal, index[mafia], index[town])
                        seats = tuple(self.contestants[m] for m in order)
                        yield Table(seed, 2 * k + way, seats, design=SWISS)
                yield from self._self_play(seed, len(deal))

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
            **(
                {"rounds": self.round_count, "pairings": [r.record() for r in self.schedule]}
                if self.design == SWISS
                else {}
            ),
            "seating": {
                f"{policy}/{t.label}/seed-{t.seed}": [c.label for c in t.seats] for t in self.tables()
            },
        }
