"""The replay page in a real browser (Debian's headless Chromium, which ``make test`` installs
through scripts/system_deps.sh): it renders the game, its switch shows and hides the private
entries when clicked with the mouse, it loads nothing but itself, and a screenshot is saved."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cdp import Browser, find_chromium
from mafia.cli import app
from mafia.game.events import GameOver, Speech, VoteRound, from_jsonl
from mafia.models.house import HouseModel
from mafia.runner import run_game

PNG = b"\x89PNG\r\n\x1a\n"
VISIBLE_PRIVATE = "[...document.querySelectorAll('.private')].filter(e => e.checkVisibility()).length"

NIGHT_ZERO_TEXT = "document.getElementById('night-0').innerText"  # innerText leaves out what is hidden


def test_the_page_renders_and_its_switch_hides_private_actions(tmp_path: Path) -> None:
    chromium = find_chromium()
    if chromium is None:
        pytest.skip(
            "no chromium: scripts/system_deps.sh (run by `make test`) could not install it with apt-get"
        )
    run_game({"seed": 8, "players": 7}, model=HouseModel(seed=8), out_dir=tmp_path / "runs")
    folder = tmp_path / "runs" / "game-7p-seed8"
    events = from_jsonl((folder / "events.jsonl").read_text(encoding="utf-8"))
    page = tmp_path / "replay.html"
    result = CliRunner().invoke(app, ["replay", str(folder), "--html", str(page)])
    assert result.exit_code == 0, result.output

    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        assert browser.evaluate("document.title") == "Mafia replay: game-7p-seed8"
        shown = browser.evaluate(
            "[...document.querySelectorAll('p.speech')].filter(e => e.checkVisibility()).length"
        )
        assert shown == sum(isinstance(e, Speech) for e in events)
        tables = browser.evaluate("document.querySelectorAll('table.votes').length")
        assert tables == sum(isinstance(e, VoteRound) and e.outcome != "no_vote" for e in events)
        over = next(e for e in events if isinstance(e, GameOver))
        assert f"Winner: {over.winner}" in browser.evaluate("document.getElementById('game-over').innerText")
        private = browser.evaluate("document.querySelectorAll('.private').length")
        assert private > 0 and browser.evaluate(VISIBLE_PRIVATE) == 0
        assert "is dealt" not in browser.evaluate(NIGHT_ZERO_TEXT)
        hidden = browser.screenshot(tmp_path / "replay-public.png")

        browser.click("label.switch")
        assert browser.evaluate("document.getElementById('show-private').checked") is True
        assert browser.evaluate(VISIBLE_PRIVATE) == private
        assert "is dealt Mafia" in browser.evaluate(NIGHT_ZERO_TEXT)
        shot = browser.screenshot(tmp_path / "replay.png")

        browser.click("label.switch")
        assert browser.evaluate(VISIBLE_PRIVATE) == 0
        assert browser.requests() == [page.as_uri()]  # nothing loaded but the page itself

    for path in (hidden, shot):
        data = path.read_bytes()
        assert data.startswith(PNG) and len(data) > 10_000
    assert shot.read_bytes() != hidden.read_bytes()  # the private entries changed what is drawn
