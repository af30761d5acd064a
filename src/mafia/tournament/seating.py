"""Who sits where in a tournament: several models at one table, balanced over the tournament.

Pure functions over the deal (``rules.assign_roles`` is a pure function of the seed, so a seating
is chosen knowing every seat's role). In each game one model holds every Mafia seat and the other
models share the Town's seats, in blocks of neighbouring seats as equal as the table allows, so no
model ever plays on both sides. A deal is played once per model (``turn`` 0, 1, ...): its paired
games, the same deal played again with the models swapped. Turn by turn the Mafia passes to the
next model and every Town block moves one model on, so over a deal's games every model holds every
seat, and so every role, exactly once.

The ``teams`` design seats one model as the whole Mafia and another as the whole Town, then
swaps them on the same deal (``team_seating``, ``team_pairs``): the two models meet side against
side, no third model blurring who won the game.
"""

from __future__ import annotations

from collections.abc import Sequence

from mafia.game.rules import Seat, on_mafia


def seating(seats: Sequence[Seat], models: int, turn: int) -> tuple[int, ...]:
    """The model (an index below ``models``) of each seat, in seat order, in the deal's ``turn``-th
    game: model ``turn`` holds the Mafia seats; the other seats, in seat order, are cut into
    ``models - 1`` blocks of nearly equal size (the larger first) for the models after it."""
    town = [s.seat for s in seats if not on_mafia(s.role)]
    if not 2 <= models <= len(town) + 1:
        raise ValueError(f"models must be 2 to {len(town) + 1} at this table, got {models}")
    mafia_model = turn % models
    blocks = models - 1
    model_of: dict[int, int] = {}
    for position, number in enumerate(town):
        block = position * blocks // len(town)
        model_of[number] = (mafia_model + 1 + block) % models
    return tuple(model_of.get(s.seat, mafia_model) for s in seats)


def team_seating(seats: Sequence[Seat], mafia_model: int, town_model: int) -> tuple[int, ...]:
    """The model of each seat, in seat order, when one model holds every Mafia seat and another
    every other seat (the ``teams`` design)."""
    return tuple(mafia_model if on_mafia(s.role) else town_model for s in seats)


def team_pairs(models: int) -> list[tuple[int, int]]:
    """The (Mafia, Town) model pairs a deal is played with in the ``teams`` design: every ordered
    pair of two models, so each pair plays the deal both ways round, the sides swapped."""
    return [(mafia, town) for mafia in range(models) for town in range(models) if mafia != town]
