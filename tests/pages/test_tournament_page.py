"""The tournament page: every section with its figures, recomputed here from the logs where they
are new (deception and detection, self-play), plots drawn inline, nothing fetched from outside,
and every game linked to a replay page written beside it; and in Chromium it loads nothing but
itself and its links open the replays."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cdp import Browser, chromium_or_skip
from mafia.arena.seat_play import METRICS
from mafia.cli import app
from mafia.tournament import run_tournament

MODELS = ["house", "house-sloppy", "random-legal"]
SECTIONS = (
    "leaderboard",
    "judged-play",
    "ratings-by-role",
    "deceiver-detector",
    "head-to-head",
    "cost",
    "self-play",
    "games",
    "asked",
)
# Anything a page could fetch or send the reader to outside itself: a scheme or a scheme-less URL.
EXTERNAL = re.compile(
    r"(?i)\b(?:https?|ftp|wss?|data|file):|(?:src|href|action)\s*=\s*[\"']?//|@import|url\("
)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Six mixed games and six self-play games of the three offline models at six seats, with
    the report's page."""
    out = tmp_path_factory.mktemp("tournament")
    run_tournament(
        games=6, models=MODELS, players=6, out=out, tournament_id="p", concurrency=3, self_play=True
    )
    folder = out / "tournament-p"
    page = out / "site" / "index.html"
    result = CliRunner().invoke(
        app, ["tournament", "report", str(folder), "--out", str(out / "site"), "--html", str(page)]
    )
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    return {
        "folder": folder,
        "page": page,
        "html": html,
        "standings": json.loads((out / "site" / "standings.json").read_text()),
    }


def section(html: str, key: str) -> str:
    """The HTML of the page's section ``key``."""
    found = re.search(rf'<section id="{key}">(.*?)</section>', html, re.S)
    assert found is not None, f"no section {key}"
    return found.group(1)


def _events(game: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (game / "events.jsonl").read_text().splitlines()]


def test_the_page_holds_every_section_with_its_plots_and_tables(tournament: dict[str, Any]) -> None:
    html, s = tournament["html"], tournament["standings"]
    assert [m.group(1) for m in re.finditer(r'<section id="([a-z-]+)">', html)] == list(SECTIONS)
    board = section(html, "leaderboard")
    assert board.count("<svg") == 1 and board.count("<circle") == len(MODELS)
    for model, r in s["ratings"]["overall"].items():
        assert f"{r['mu']:.1f} [{r['low']:.1f}, {r['high']:.1f}]" in board, model
    for model in MODELS:
        assert f"<td>{s['outcomes'][model]['ranks']['best']}" in board  # a rank range, not a bare rank
    judged = section(html, "judged-play")
    for metric in METRICS:  # each metric defined in one line, with a row per model
        assert escape(metric.definition) in judged, metric.key
    assert judged.count("<svg") == 2  # Brier and rank AUC drawn with their intervals
    assert judged.count("<table") == len(METRICS) + 2  # and the calibration by day, the separations
    for warning in s["warnings"]:
        assert escape(warning) in html
    assert section(html, "ratings-by-role").count("<svg") == 4  # Mafia, Detective, Doctor, Town
    chart = section(html, "deceiver-detector")
    assert chart.count("<svg") == 1 and "exiled by vote" in chart and "held the Mafia seats" in chart
    matrix = section(html, "head-to-head")
    assert matrix.count('class="cell"') == len(MODELS) * (len(MODELS) - 1)
    cost = section(html, "cost")
    for column in ("tokens per call", "billed tokens per call", "seconds per call", "re-asks per call"):
        assert column in cost
    assert "fallbacks per call" in cost and cost.count("<tr>") == len(MODELS) + 1
    alone = section(html, "self-play")
    assert "not rated" in alone and alone.count("<tr>") == len(MODELS) + 1


def test_deception_detection_and_self_play_recomputed_from_the_logs(tournament: dict[str, Any]) -> None:
    folder, s = tournament["folder"], tournament["standings"]
    seating = json.loads((folder / "arena.json").read_text())["seating"]
    mafia_games: dict[str, list[bool]] = {m: [] for m in MODELS}
    exiles: dict[str, list[bool]] = {m: [] for m in MODELS}
    alone: dict[str, list[str]] = {m: [] for m in MODELS}
    for game, labels in seating.items():
        events = _events(folder / "games" / game)
        over = events[-1]
        roles = {r["player"]: r["role"] for r in over["roles"]}
        seat_roles = [roles[f"Player {n}"] for n in range(1, len(labels) + 1)]
        if len(set(labels)) == 1:
            alone[labels[0]].append(over["winner"])
            continue
        exiled = [roles[e["player"]] == "Mafia" for e in events if e["type"] == "elimination"]
        for model in MODELS:
            if any(
                label == model and role == "Mafia" for label, role in zip(labels, seat_roles, strict=True)
            ):
                mafia_games[model].append(over["winner"] == "mafia")
            if any(
                label == model and role != "Mafia" for label, role in zip(labels, seat_roles, strict=True)
            ):
                exiles[model].extend(exiled)
    for model in MODELS:
        dd = s["deception_detection"][model]
        assert (dd["deception"]["wins"], dd["deception"]["n"]) == (
            sum(mafia_games[model]),
            len(mafia_games[model]),
        )
        assert (dd["detection"]["wins"], dd["detection"]["n"]) == (sum(exiles[model]), len(exiles[model]))
        mine = s["self_play"][model]
        assert mine["games"] == len(alone[model]) == 2
        assert mine["winners"]["mafia"] == alone[model].count("mafia")
    # Self-play is never rated: the ratings are those of the mixed games alone.
    assert s["ratings"]["games"] == s["finished"] == 6


def test_the_page_fetches_nothing_and_links_a_replay_of_every_game(tournament: dict[str, Any]) -> None:
    html, page, folder = tournament["html"], tournament["page"], tournament["folder"]
    assert EXTERNAL.search(html) is None, EXTERNAL.search(html)
    assert "<script" not in html and "<link" not in html and "<img" not in html
    links = re.findall(r'href="([^"]+)"', html)
    assert all(link.startswith(("#", "replays/")) for link in links), links
    replays = [link for link in links if link.startswith("replays/")]
    games = list(json.loads((folder / "arena.json").read_text())["seating"])
    assert len(replays) == len(set(replays)) == len(games) == 12
    for link in replays:
        replay = (page.parent / link).read_text(encoding="utf-8")
        assert replay.startswith("<!doctype html>") and "Winner:" in replay
        assert EXTERNAL.search(replay) is None


def test_an_external_url_in_the_page_is_caught() -> None:
    """The check above can fail: a namespace URL, a fetched script or a scheme-less link is found."""
    for planted in (
        '<svg xmlns="http://www.w3.org/2000/svg">',
        '<img src="//cdn.example/x.png">',
        "url(x.woff)",
    ):
        assert EXTERNAL.search(planted) is not None, planted


@pytest.mark.slow
def test_the_page_opens_in_chromium_without_a_request_and_links_its_replays(
    tournament: dict[str, Any], tmp_path: Path
) -> None:
    chromium = chromium_or_skip()
    page = tournament["page"]
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        assert browser.evaluate("document.title") == "Mafia tournament: tournament-p"
        assert browser.evaluate("document.querySelectorAll('section svg').length") == 8
        # The deceiver/detector chart (after its title): no name over another, no dot under another.
        boxes = browser.evaluate(
            "[...document.querySelectorAll('#deceiver-detector svg text[font-weight]')].slice(1)"
            ".map(t => { const b = t.getBBox(); return [b.x, b.y, b.width, b.height]; })"
        )
        assert len(boxes) == len(MODELS)
        for i, (x1, y1, w1, h1) in enumerate(boxes):
            for x2, y2, w2, h2 in boxes[i + 1 :]:
                assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1, boxes
        dots = browser.evaluate(
            "[...document.querySelectorAll('#deceiver-detector svg circle')].map(c => c.cx.baseVal.value)"
        )
        assert len(set(dots)) == len(MODELS)
        assert browser.requests() == [page.as_uri()]
        first = browser.evaluate("document.querySelector('#games a').href")
        browser.open(first)
        assert browser.evaluate("document.title").startswith("Mafia replay: ")
        assert browser.requests() == [first]
