"""The replay page in a real browser (Debian's headless Chromium, which ``make test`` installs
through scripts/system_deps.sh): it renders the game, its switch shows and hides the private
entries when clicked with the mouse, its playback reveals the game event by event from the
keyboard, it loads nothing but itself, and a screenshot is saved."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cdp import Browser, chromium_or_skip
from mafia.cli import app
from mafia.game.events import GameOver, GameStarted, Speech, VoteRound, from_jsonl
from mafia.models.house import HouseModel
from mafia.play.runner import run_game

PNG = b"\x89PNG\r\n\x1a\n"
VISIBLE_PRIVATE = "[...document.querySelectorAll('.private')].filter(e => e.checkVisibility()).length"

NIGHT_ZERO_TEXT = "document.getElementById('night-0').innerText"  # innerText leaves out what is hidden


@pytest.mark.slow
def test_the_page_renders_and_its_switch_hides_private_actions(tmp_path: Path) -> None:
    chromium = chromium_or_skip()
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


STEP = "document.body.dataset.step"
VISIBLE_STEPS = "[...document.querySelectorAll('.step')].filter(e => e.checkVisibility())"


def _wait_for(browser: Browser, expression: str, seconds: float = 60.0) -> Any:
    """The first truthy value of ``expression``, polled until it comes (a bounded wait, no timing)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = browser.evaluate(expression)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{expression} stayed false for {seconds} s")


@pytest.mark.slow
def test_the_playback_reveals_the_game_event_by_event_from_the_keyboard(tmp_path: Path) -> None:
    chromium = chromium_or_skip()
    run_game({"seed": 8, "players": 7}, model=HouseModel(seed=8), out_dir=tmp_path / "runs")
    folder = tmp_path / "runs" / "game-7p-seed8"
    events = from_jsonl((folder / "events.jsonl").read_text(encoding="utf-8"))
    public = [e for e in events if e.AUDIENCE is None and not isinstance(e, GameStarted)]
    page = tmp_path / "replay.html"
    assert CliRunner().invoke(app, ["replay", str(folder), "--html", str(page)]).exit_code == 0

    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        assert browser.evaluate(STEP) == ""  # the whole game, as the page opens
        speeches = sum(isinstance(e, Speech) for e in events)
        whole = browser.evaluate(f"{VISIBLE_STEPS}.length")
        assert whole == len(public)

        browser.press("ArrowRight")
        assert browser.evaluate(STEP) == "1" and browser.evaluate(f"{VISIBLE_STEPS}.length") == 1
        browser.press("ArrowRight")
        assert browser.evaluate(STEP) == "2" and browser.evaluate(f"{VISIBLE_STEPS}.length") == 2
        assert browser.evaluate("document.querySelector('.step.current').dataset.step") == browser.evaluate(
            f"{VISIBLE_STEPS}[1].dataset.step"
        )
        browser.press("ArrowLeft")
        assert browser.evaluate(STEP) == "1" and browser.evaluate(f"{VISIBLE_STEPS}.length") == 1
        assert (
            browser.evaluate("document.getElementById('pb-where').textContent") == f"Event 1 of {len(public)}"
        )
        # Only what was revealed is drawn: no later speech, no later section.
        assert (
            browser.evaluate(
                "[...document.querySelectorAll('p.speech')].filter(e => e.checkVisibility()).length"
            )
            == 0
        )
        assert browser.evaluate("document.getElementById('game-over').checkVisibility()") is False

        browser.press(" ")  # plays on by itself
        assert browser.evaluate("document.getElementById('pb-play').getAttribute('aria-pressed')") == "true"
        _wait_for(browser, f"Number({STEP}) >= 3")
        browser.press(" ")
        assert browser.evaluate("document.getElementById('pb-play').getAttribute('aria-pressed')") == "false"
        paused = browser.evaluate(STEP)
        browser.press("]")
        assert browser.evaluate("document.getElementById('pb-speed').value") == "2"
        assert browser.evaluate(STEP) == paused  # a speed change does not step

        browser.press("End")
        assert browser.evaluate(STEP) == ""
        shown = "[...document.querySelectorAll('p.speech')].filter(e => e.checkVisibility()).length"
        assert browser.evaluate(shown) == speeches

        # With the private entries shown, the playback steps through every event, night actions
        # and thoughts included; the first are the roles dealt.
        browser.click("label.switch")
        browser.press("Home")
        assert browser.evaluate("document.getElementById('pb-where').textContent") == (
            f"Event 1 of {sum(1 for e in events if not isinstance(e, GameStarted))}"
        )
        assert "is dealt" in browser.evaluate("document.querySelector('.step.current').innerText")
        assert browser.requests() == [page.as_uri()]
