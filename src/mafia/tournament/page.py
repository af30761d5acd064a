"""The tournament as one self-contained HTML page: the warnings when the results do not tell the models
apart, the leaderboard with its intervals drawn and rank ranges, how each model played (judged play,
each metric defined in one line), the ratings per role, the deceiver/detector chart, the head-to-
head matrix of paired deals, cost and efficiency per model, the self-play games apart, a swiss
tournament's rounds, and every game linked to its replay page. Plots are inline SVG
(``mafia.tournament.svg``), styles inline, and nothing is loaded, so the file opens offline. Every
figure comes from the standings (``standings.json`` holds them unrounded)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from html import escape
from importlib.resources import files

from mafia.arena.report import num, pct
from mafia.arena.seat_play import BY_DAY, METRICS
from mafia.commands.html_page import document
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
from mafia.tournament.ratings import ROLES
from mafia.tournament.spec import ASK_DEFAULTS
from mafia.tournament.spec import ASKED as COMMON_ASKED
from mafia.tournament.svg import Estimate, Point, colour_of, interval_chart, padded_range, scatter_chart

GENERATOR = '<meta name="generator" content="mafia tournament report">'  # marks a page this module wrote
ASKED = (*COMMON_ASKED, "self_play")

DECEPTION = (
    "Deception (vertical): of the games in which the model held the Mafia seats, the share the "
    "Mafia won. Detection (horizontal): of the players the Town exiled by vote in the games in "
    "which the model held Town seats, the share who were Mafia. Each with its 95% Wilson "
    "interval; the dashed lines mark 50%. Up is a better deceiver, right a better detector (with "
    "the Town seats it shared with other models)."
)


def _rating(r: JSON | None) -> str:
    return "–" if r is None else f"{r['mu']:.1f} [{r['low']:.1f}, {r['high']:.1f}]"


def _share(share: JSON) -> str:
    if not share["n"]:
        return "–"
    return f"{pct(share['rate'])} [{pct(share['low'])}, {pct(share['high'])}] of {share['n']}"


def _table(headers: list[str], rows: list[list[str]], css: str = "") -> str:
    """An HTML table of already escaped cells (a first cell styled as a model's name)."""
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


class Page:
    """The page's sections, made from the standings ``s`` with each model's colour."""

    def __init__(self, s: JSON, request: JSON, replays: Mapping[str, str]) -> None:
        self.s = s
        self.request = request
        self.replays = replays
        self.colour = colour_of(s["models"])

    def model(self, label: str) -> str:
        """A model's name with its colour's swatch."""
        return f'<span class="swatch" style="background:{self.colour[label]}"></span>{escape(label)}'

    def estimate(self, label: str, r: JSON) -> Estimate:
        return Estimate(label, r["mu"], r["low"], r["high"], self.colour[label])

    def leaderboard(self) -> str:
        s, ratings = self.s, self.s["ratings"]
        overall = ratings["overall"]
        ranked = sorted(overall, key=lambda m: -overall[m]["mu"])
        rows = [
            [
                rank_range(s, m),
                self.model(m),
                _rating(overall[m]),
                _share(s["win_rates"][m]["all"]),
                figure(s["outcomes"][m]["advantage"]),
            ]
            for m in ranked
        ]
        chart = interval_chart(
            [self.estimate(m, overall[m]) for m in ranked], "Rating, 95% interval", "openskill rating"
        )
        sides = ", ".join(f"{side} {_rating(r)}" for side, r in ratings["sides"].items())
        return (
            f"<p>Openskill (Plackett-Luce) ratings from {ratings['games']} games, the Mafia team "
            f"against the Town team, averaged over {ratings['passes']} random orders of the games; "
            "95% intervals. Seats on the winning side: the share of the model's seats whose side won, "
            f"with its 95% Wilson interval. {escape(RANK_NOTE)}</p>"
            + _table(
                [
                    "rank range",
                    "model",
                    "rating [95% interval]",
                    "seats on the winning side",
                    "wins above the roles' baseline [95%]",
                ],
                rows,
            )
            + f'<figure class="plot">{chart}</figure>'
            + "<p>The sides' own ratings (what the table gives a side whoever plays it): "
            + f"{escape(sides)}.</p>"
        )

    def by_role(self) -> str:
        by_role = self.s["ratings"]["by_role"]
        every = [v for role in ROLES for r in by_role[role].values() for v in (r["low"], r["high"])]
        span = padded_range(every) if every else None
        charts = "".join(
            '<figure class="plot">'
            + interval_chart(
                [self.estimate(m, by_role[role][m]) for m in self.s["models"] if m in by_role[role]],
                f"As {role}",
                "openskill rating",
                span=span,
                width=440,
            )
            + "</figure>"
            for role in ROLES
            if by_role[role]
        )
        rows = [[self.model(m), *(_rating(by_role[role].get(m)) for role in ROLES)] for m in self.s["models"]]
        wins = [
            [self.model(m), *(_share(self.s["win_rates"][m][role]) for role in ROLES)]
            for m in self.s["models"]
        ]
        return (
            "<p>Each model rated as each role, on the same scale (the plots share their axis).</p>"
            f'<div class="plots">{charts}</div>'
            + _table(["model", *ROLES], rows)
            + "<p>Seats of the role whose side won, with 95% Wilson intervals.</p>"
            + _table(["model", *ROLES], wins)
        )

    def deception(self) -> str:
        dd = self.s["deception_detection"]
        points = [
            Point(m, self._point(dd[m]["detection"]), self._point(dd[m]["deception"]), self.colour[m])
            for m in self.s["models"]
            if dd[m]["detection"]["n"] and dd[m]["deception"]["n"]
        ]
        chart = scatter_chart(
            points, "Deceiver and detector", "detection: exiles who were Mafia", "deception: Mafia wins"
        )
        rows = [
            [self.model(m), _share(dd[m]["deception"]), _share(dd[m]["detection"])] for m in self.s["models"]
        ]
        return f'<p class="definition">{escape(DECEPTION)}</p><figure class="plot">{chart}</figure>' + _table(
            ["model", "deception: Mafia games won", "detection: exiles who were Mafia"], rows
        )

    def judged(self) -> str:
        """Every judged metric: its definition, a table per model and role, the calibration
        metrics drawn with their intervals, by day too, and what separates each two models."""
        out = [f"<p>{escape(JUDGED_NOTE)}</p>"]
        for metric in METRICS:
            out.append(f"<h3>{escape(metric.title)}</h3>")
            out.append(f'<p class="definition">{escape(metric.definition)}</p>')
            if metric.key in BY_DAY:
                rows = self.s["judged"]["metrics"][metric.key]
                estimates = [
                    Estimate(m, f["value"], f["low"], f["high"], self.colour[m])
                    for m in self.s["models"]
                    if (f := rows[m]["all"]) is not None and f["low"] is not None
                ]
                if estimates:
                    chart = interval_chart(estimates, f"{metric.title}, 95% interval", metric.key)
                    out.append(f'<figure class="plot">{chart}</figure>')
            out.append(self._plain_table(metric_rows(self.s, metric)))
        out.append("<h3>Calibration by day</h3>")
        out.append("<p>Each day's figures over the Town-side seats' last thoughts of the day.</p>")
        out.append(self._plain_table(by_day_rows(self.s)))
        out.append("<h3>What separates the models</h3>")
        out.append(self._plain_table(separation_rows(self.s)))
        return "".join(out)

    def _plain_table(self, made: tuple[list[str], list[list[str]]]) -> str:
        """A table of plain-text cells (escaped here), its first cell a model's name where it is one."""
        headers, rows = made
        cells = [
            [self.model(row[0]) if row[0] in self.colour else escape(row[0]), *map(escape, row[1:])]
            for row in rows
        ]
        return _table([escape(h) for h in headers], cells)

    @staticmethod
    def _point(share: JSON) -> Estimate:
        return Estimate("", share["rate"], share["low"], share["high"])

    def head_to_head(self) -> str:
        pairs = {(h["a"], h["b"]): h for h in self.s["head_to_head"]}
        models = self.s["models"]
        rows = []
        for a in models:
            cells = [self.model(a)]
            for b in models:
                if a == b:
                    cells.append('<span class="muted">–</span>')
                    continue
                h = pairs.get((a, b))
                mine, theirs = ("a_better", "b_better") if h is not None else ("b_better", "a_better")
                h = h or pairs[(b, a)]
                won, lost = h[mine], h[theirs]
                split = won + lost
                share = won / split if split else None
                shade = "" if share is None else f' style="background:{_shade(share)}"'
                text = "no split deal" if share is None else f"{pct(share)}"
                cells.append(
                    f'<span class="cell"{shade}><strong>{text}</strong> '
                    f"<small>{won}–{lost} of {h['deals']} deals</small></span>"
                )
            rows.append(cells)
        return (
            "<p>Paired deals: the same cards played with the row's model holding the Mafia and again "
            "with the column's. A deal splits them when one's Mafia won and the other's did not; a "
            "cell is the row model's share of the deals that split the two (won–lost of the deals both "
            "played), shaded from orange (the column's model better) to blue (the row's).</p>"
            + _table(["row / column", *(self.model(b) for b in models)], rows, "matrix")
        )

    def costs(self) -> str:
        rows = []
        for m in self.s["models"]:
            c = self.s["costs"][m]
            per = c["per_call"]
            seconds = per["server_seconds"]
            rows.append(
                [
                    self.model(m),
                    str(c["games"]),
                    num(c["seats_per_game"], 2),
                    num(c["calls"], 1),
                    num(per["tokens"]),
                    num(per["billed_tokens"]),
                    "–" if seconds is None else f"{seconds:.2f}",
                    num(per["reasks"], 3),
                    num(per["fallbacks"], 3),
                ]
            )
        headers = ["model", "games", "seats per game", "calls per game", "tokens per call"]
        headers += ["billed tokens per call", "seconds per call", "re-asks per call", "fallbacks per call"]
        return (
            "<p>Over each model's seats in the games it sat in. A call is one attempt at an answer; "
            "tokens are prompt, schema and output tokens; billed tokens count cached input at a "
            "quarter; seconds are the time the model's server reported for the call (llama.cpp's "
            "prompt evaluation and generation; – where the provider reports none, as the offline "
            "models do); a re-ask follows a rejected answer, and a fallback is the legal default "
            "applied after the last rejected one.</p>" + _table(headers, rows)
        )

    def self_play(self) -> str:
        alone = self.s["self_play"]
        if alone is None:
            return (
                "<p>None played: self-play games (each model alone at the table on the same deals) "
                "are asked with <code>mafia tournament --self-play</code>. They are never rated.</p>"
            )
        rows = [
            [
                self.model(m),
                str(a["games"]),
                str(a["winners"]["mafia"]),
                str(a["winners"]["town"]),
                str(a["winners"]["draw"]),
                _share(a["mafia_won"]),
                num(a["rounds"], 1) if a["rounds"] is not None else "–",
                num(a["calls"], 1) if a["calls"] is not None else "–",
                num(a["tokens"]) if a["tokens"] is not None else "–",
            ]
            for m, a in alone.items()
        ]
        headers = ["model", "games", "Mafia won", "Town won", "draws", "Mafia's share"]
        headers += ["rounds per game", "calls per game", "tokens per game"]
        return (
            "<p>Each model alone in every seat, on the same deals: how its Mafia fares against its own "
            "Town. Shown apart and not rated: no other model was at the table.</p>" + _table(headers, rows)
        )

    def games(self) -> str:
        out = []
        for title, alone in (("Rated games", False), ("Self-play games", True)):
            listed = [g for g in self.s["game_list"] if g["self_play"] is alone]
            if not listed:
                continue
            rows = [
                [
                    self._link(g["game"]),
                    str(g["seed"]),
                    self.model(g["mafia"]) if g["mafia"] else "–",
                    escape(g["winner"]),
                    str(g["rounds"]),
                ]
                for g in listed
            ]
            holder = "model" if alone else "Mafia held by"
            out.append(f"<h3>{title} ({len(listed)})</h3>")
            out.append(_table(["game (replay)", "deal", holder, "winner", "rounds"], rows, "games"))
        unfinished = self.s["unfinished"]
        if unfinished:
            out.append(f"<p>Not finished, so not counted: {escape(', '.join(unfinished))}.</p>")
        return "".join(out)

    def rounds(self) -> str:
        return f"<p>{escape(SWISS_NOTE)}</p>" + self._plain_table(round_rows(self.s))

    def _link(self, game: str) -> str:
        href = self.replays.get(game)
        return f'<a href="{escape(href)}">{escape(game)}</a>' if href else escape(game)

    def asked(self) -> str:
        shown = {
            key: json.dumps(self.request.get(key, ASK_DEFAULTS.get(key)), ensure_ascii=False) for key in ASKED
        }
        items = "".join(
            f"<li>{escape(key)}: <code>{escape(value)}</code></li>" for key, value in shown.items()
        )
        models = "".join(
            f"<li>{self.model(label)}: <code>{escape(json.dumps(spec, ensure_ascii=False))}</code></li>"
            for label, spec in self.request["models"].items()
        )
        return f"<ul>{items}</ul><p>Models:</p><ul>{models}</ul>"


def _shade(share: float) -> str:
    """A cell's background: blue above one half, orange below, paler near it."""
    strength = min(abs(share - 0.5) * 2, 1.0)
    hue = 210 if share >= 0.5 else 28
    return f"hsl({hue} 80% {96 - 30 * strength:.0f}%)"


SECTIONS: tuple[tuple[str, str, Callable[[Page], str]], ...] = (
    ("leaderboard", "Leaderboard", Page.leaderboard),
    ("judged-play", "How they play", Page.judged),
    ("ratings-by-role", "Ratings by role", Page.by_role),
    ("deceiver-detector", "Deceiver and detector", Page.deception),
    ("head-to-head", "Head to head", Page.head_to_head),
    ("cost", "Cost and efficiency", Page.costs),
    ("self-play", "Self-play", Page.self_play),
    ("swiss-rounds", "Swiss rounds", Page.rounds),  # a swiss tournament's alone
    ("games", "Games", Page.games),
    ("asked", "What was asked", Page.asked),
)


def render_page(s: JSON, request: JSON, title: str, replays: Mapping[str, str]) -> str:
    """The page of the standings ``s``; ``replays`` maps a game's run id to its replay page's
    address relative to the page."""
    page = Page(s, request, replays)
    winners = ", ".join(f"{side} {n}" for side, n in s["winners"].items())
    line = f"{s['finished']} finished games of {s['games']} at {s['players']} seats. Winners: {winners}."
    shown = [section for section in SECTIONS if section[0] != "swiss-rounds" or s["pairings"] is not None]
    nav = "".join(f'<a href="#{key}">{escape(heading)}</a>' for key, heading, _ in shown)
    body = "\n".join(
        f'<section id="{key}"><h2>{escape(heading)}</h2>{make(page)}</section>'
        for key, heading, make in shown
    )
    alerts = "".join(f'<p class="warning" role="alert">{escape(w)}</p>' for w in s["warnings"])
    header = f"<h1>Tournament: {escape(title)}</h1>\n<p>{escape(line)}</p>\n{alerts}<nav>{nav}</nav>"
    return document(
        title=f"Mafia tournament: {title}",
        generator=GENERATOR,
        css=files("mafia.tournament").joinpath("page.css").read_text(encoding="utf-8"),
        header=header,
        main=body,
    )
