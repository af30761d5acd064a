"""The tournament report: ``report.md`` with a leaderboard, per-role ratings, win rates by role,
head-to-head results, the seating's balance and each model's cost per game, in the arena report's
style, beside a plot of the ratings and ``standings.json`` (every figure, unrounded). Everything is
recomputed from the tournament's logs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mafia.arena.report import num, pct, table
from mafia.arena.seat_play import METRICS
from mafia.arena.spec import ArenaError, write_json
from mafia.game.state import JSON
from mafia.tournament.judged_view import (
    JUDGED_NOTE,
    RANK_NOTE,
    SWISS_NOTE,
    by_day_rows,
    figure,
    metric_rows,
    rank_range,
    round_rows,
    separation_rows,
)
from mafia.tournament.page_files import write_page
from mafia.tournament.plot import ratings_plot
from mafia.tournament.ratings import ROLES
from mafia.tournament.results import load_tournament
from mafia.tournament.spec import ASK_DEFAULTS
from mafia.tournament.spec import ASKED as COMMON_ASKED
from mafia.tournament.standings import standings

REPORT_DIR = "report"
REPORT_FILE = "report.md"
STANDINGS_FILE = "standings.json"
PLOT_FILE = "ratings.png"
ASKED = (*COMMON_ASKED, "models")


def _rating(r: JSON | None) -> str:
    return "–" if r is None else f"{r['mu']:.1f} [{r['low']:.1f}, {r['high']:.1f}]"


def _wins(share: JSON) -> str:
    return f"{pct(share['rate'])} [{pct(share['low'])}, {pct(share['high'])}] of {share['n']}"


def _leaderboard(s: JSON) -> list[str]:
    overall = s["ratings"]["overall"]
    ranked = sorted(overall, key=lambda m: -overall[m]["mu"])
    rows = [
        [
            rank_range(s, m),
            m,
            _rating(overall[m]),
            _wins(s["win_rates"][m]["all"]),
            figure(s["outcomes"][m]["advantage"]),
        ]
        for m in ranked
    ]
    headers = ["rank range", "model", "rating [95% interval]", "seats on the winning side"]
    return table([*headers, "wins above the roles' baseline [95%]"], rows)


def _judged(s: JSON) -> list[str]:
    out: list[str] = []
    for metric in METRICS:
        out += [f"### {metric.title}", "", metric.definition, "", *table(*metric_rows(s, metric))]
    out += [
        "### Calibration by day",
        "",
        "Each day's figures over the Town-side seats' last thoughts of the day.",
        "",
    ]
    out += table(*by_day_rows(s))
    out += ["### What separates the models", ""]
    out += [
        "The metrics whose 95% intervals for two models do not overlap, and whether their ratings' do not.",
        "",
    ]
    return out + table(*separation_rows(s))


def _by_role(s: JSON) -> list[str]:
    by_role = s["ratings"]["by_role"]
    rows = [[m, *(_rating(by_role[role].get(m)) for role in ROLES)] for m in s["models"]]
    return table(["model", *ROLES], rows)


def _win_rates(s: JSON) -> list[str]:
    rows = [[m, *(_wins(s["win_rates"][m][role]) for role in ROLES)] for m in s["models"]]
    return table(["model", *ROLES], rows)


def _head_to_head(s: JSON) -> list[str]:
    rows = [
        [
            f"{h['a']} / {h['b']}",
            str(h["deals"]),
            str(h["a_better"]),
            str(h["b_better"]),
            str(h["same"]),
            f"{pct(h['share']['rate'])} [{pct(h['share']['low'])}, {pct(h['share']['high'])}]",
        ]
        for h in s["head_to_head"]
    ]
    headers = ["A / B", "deals", "A's Mafia won, B's not", "B's Mafia won, A's not", "same result"]
    return table([*headers, "A's share of split deals"], rows)


def _balance(s: JSON) -> list[str]:
    rows = [[m, *(str(s["seats"][m][role]) for role in ROLES)] for m in s["models"]]
    return table(["model", *(f"{role} seats" for role in ROLES)], rows)


def _costs(s: JSON) -> list[str]:
    rows = [
        [
            m,
            str(c["games"]),
            num(c["seats_per_game"], 2),
            num(c["calls"], 1),
            num(c["recalls"], 1),
            num(c["tokens"]),
            num(c["billed_tokens"]),
            num(c["reasks"], 2),
            num(c["fallbacks"], 2),
        ]
        for m, c in s["costs"].items()
    ]
    headers = [
        "model",
        "games",
        "seats",
        "calls",
        "recalls",
        "tokens",
        "billed tokens",
        "re-asks",
        "fallbacks",
    ]
    lines = table(headers, rows)
    summaries = s.get("summaries") or {}
    if summaries.get("calls"):
        lines += [
            "",
            f"The summariser's calls (no seat's): {num(summaries['calls'], 1)} a game, "
            f"{num(summaries['billed_tokens'])} billed tokens.",
        ]
    return lines


def render(s: JSON, request: JSON, plot: str, title: str) -> str:
    """The report's Markdown from the standings, the ask (arena.json) and the plot's file name."""
    ratings = s["ratings"]
    out = [f"# Tournament report: {title}", ""]
    line = f"{s['finished']} finished games of {s['games']}"
    if s["unfinished"]:
        line += f"; not counted, without a result: {', '.join(s['unfinished'])}"
    winners = ", ".join(f"{side} {n}" for side, n in s["winners"].items())
    out += [f"{line}. Winners: {winners}.", "", "What was asked (arena.json):", ""]
    out += [
        f"- {key}: `{json.dumps(request.get(key, ASK_DEFAULTS.get(key)), ensure_ascii=False)}`"
        for key in ASKED
    ]
    if s["warnings"]:
        out += ["", "## Warnings", "", *(f"- **{w}**" for w in s["warnings"])]
    sections: list[tuple[str, str, Callable[[JSON], list[str]]]] = [
        (
            "Leaderboard",
            f"Openskill (Plackett-Luce) ratings from {ratings['games']} games, the Mafia team against "
            f"the Town team, averaged over {ratings['passes']} random orders of the games; 95% "
            "intervals. Seats on the winning side: the share of the model's seats whose side won, "
            "with its 95% Wilson interval. " + RANK_NOTE,
            _leaderboard,
        ),
        ("How they play", JUDGED_NOTE, _judged),
        ("Ratings by role", "Each model rated as each role, on the same scale.", _by_role),
        ("Win rates by role", "Seats of the role whose side won, with 95% Wilson intervals.", _win_rates),
        (
            "Head to head",
            "Paired deals: the same cards played with A holding the Mafia and again with B holding "
            "it. A deal splits them when one's Mafia won and the other's did not; A's share of the "
            "split deals has its 95% Wilson interval.",
            _head_to_head,
        ),
        (
            "Seating balance",
            "Seats each model held in each role; every deal is played once per model, each model "
            "holding the Mafia once.",
            _balance,
        ),
        (
            "Cost per game",
            "Per game the model sat in, over its seats: calls (every attempt, recall searches "
            "included), recall searches, prompt, schema and output tokens, billed tokens (cached "
            "input at a quarter), re-asks of rejected answers (never a search) and fallbacks.",
            _costs,
        ),
    ]
    if s["pairings"] is not None:
        sections.append(("Swiss rounds", SWISS_NOTE, lambda s: table(*round_rows(s))))
    for heading, note, make in sections:
        out += ["", f"## {heading}", "", note, "", *make(s)]
        if heading == "Leaderboard":
            sides = ", ".join(f"{side} {_rating(r)}" for side, r in ratings["sides"].items())
            out += [f"The sides' own ratings (what the table gives a side whoever plays it): {sides}.", ""]
            out += [f"![Ratings]({plot})", ""]
    return "\n".join(out).rstrip() + "\n"


def write_report(
    folder: str | Path, out_dir: str | Path | None = None, html: str | Path | None = None
) -> Path:
    """Write the tournament's report (``report.md``, ``ratings.png`` and ``standings.json``) to
    ``out_dir`` (by default ``FOLDER/report``) and, when ``html`` names a file, the page there with
    every game's replay page in ``replays/`` beside it; return the report's path. ArenaError (one
    line) for a folder that is no tournament or has no finished game, or a page that cannot be
    written."""
    folder = Path(folder)
    tournament = load_tournament(folder)
    if not any(not t.self_play for t in tournament.tables):
        raise ArenaError(
            f"{folder}: no finished game to report on yet ({len(tournament.unfinished)} to play)"
        )
    out = Path(out_dir) if out_dir is not None else folder / REPORT_DIR
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArenaError(f"{out}: the report cannot be written there ({exc.strerror or exc})") from None
    s = standings(tournament)
    write_json(out / STANDINGS_FILE, s)
    plot = ratings_plot(s["ratings"], s["models"], out / PLOT_FILE)
    page = out / REPORT_FILE
    title = folder.resolve().name
    page.write_text(render(s, tournament.request, plot.name, title), encoding="utf-8")
    if html is not None:
        write_page(tournament, s, Path(html), title)
    return page
