"""The arena report: a Markdown page with PNG plots of an arena's metrics, and the judge's verdict.

``write_report`` summarizes the arena folder afresh (``mafia.arena.metrics.summarize``), draws the
plots beside the page, and prints the judge's verdict: a policy passes when its fact presence on the
seeds it shares with ``full-history`` is within 2 points of it and it bills fewer tokens.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from mafia.arena import plots
from mafia.arena.metrics import summarize
from mafia.arena.seat_play import METRICS
from mafia.arena.spec import ArenaError
from mafia.game.state import JSON

REPORT_DIR = "report"
REPORT_FILE = "report.md"


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal, or a dash when there is none."""
    return "–" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 0) -> str:
    """A number with thousands separators, or a dash when there is none."""
    return "–" if value is None else f"{value:,.{digits}f}"


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def kinds(counts: Mapping[str, int]) -> str:
    """Counts by kind as "kind n, kind n", or "none"."""
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "none"


VERDICTS = {True: "PASS", False: "FAIL", None: "not applicable"}


def verdict_lines(judge: JSON) -> list[str]:
    """The judge's verdict, one line per policy and model."""
    base = judge["baseline"]
    if not judge["verdicts"]:
        return [f"Judge: no verdict: the arena has no policy to compare with {base}."]
    lines = []
    for v in judge["verdicts"]:
        lines.append(
            f"Judge: {v['policy']} / {v['model']}: {VERDICTS[v['passed']]}: "
            f"fact presence {pct(v['fact_presence'])} against {pct(v['baseline_fact_presence'])} "
            f"for {base}, billed tokens {num(v['billed_tokens'])} against "
            f"{num(v['baseline_billed_tokens'])}, on {v['paired_seeds']} paired seeds ({v['reason']})"
        )
    return lines


def same_play_lines(judge: JSON) -> list[str]:
    """Per policy and model, on the seeds it shares with the baseline: how many games made every
    move the baseline's game made, and how many ended with the same winner."""
    base = judge["baseline"]
    rows = [
        [
            f"{v['policy']} / {v['model']}",
            str(v["paired_seeds"]),
            str(v["same_play_seeds"]),
            str(v["same_winner_seeds"]),
        ]
        for v in judge["verdicts"]
    ]
    return table(["policy / model", "paired seeds", f"same moves as {base}", f"same winner as {base}"], rows)


def _wins(side: JSON) -> str:
    return f"{pct(side['rate'])} [{pct(side['low'])}, {pct(side['high'])}]"


def _spread(s: JSON, digits: int = 0) -> str:
    return f"{num(s['median'], digits)} (p95 {num(s['p95'], digits)})"


def _outcomes(groups: plots.Groups) -> list[str]:
    headers = ["policy / model", "games", "Town wins", "Mafia wins", "draws"]
    sides = ("town", "mafia", "draw")
    return table(
        headers, [[label, str(g["games"]), *(_wins(g["wins"][s]) for s in sides)] for label, g in groups]
    )


def _length(groups: plots.Groups) -> list[str]:
    headers = ["policy / model", "rounds", "calls per game", "critical-path calls"]
    rows = [
        [label, _spread(g["rounds"], 1), _spread(g["calls_per_game"]), _spread(g["critical_path_calls"])]
        for label, g in groups
    ]
    return table(headers, rows)


def _tokens(groups: plots.Groups) -> list[str]:
    fields = ("prompt_tokens", "schema_tokens", "output_tokens", "billed_tokens")
    headers = ["policy / model", *(f"{f.split('_')[0]} / call" for f in fields), "billed / game"]
    rows = [
        [
            label,
            *(_spread(g["tokens_per_call"][f]) for f in fields),
            _spread(g["tokens_per_game"]["billed_tokens"]),
            pct(g["stable_prefix_share"]),
        ]
        for label, g in groups
    ]
    return table([*headers, "stable-prefix share"], rows)


def _facts(groups: plots.Groups) -> list[str]:
    ages = sorted({int(a) for _, g in groups for a in g["fact_presence"]["by_age"]})
    rows = []
    for label, g in groups:
        by_age = g["fact_presence"]["by_age"]
        cells = [
            f"{pct(by_age[str(a)]['share'])} of {by_age[str(a)]['due']}" if str(a) in by_age else "–"
            for a in ages
        ]
        rows.append([label, pct(g["fact_presence"]["share"]), *cells])
    return table(["policy / model", "all", *(f"age {a}" for a in ages)], rows)


def _reliability(groups: plots.Groups) -> list[str]:
    rows = []
    for label, g in groups:
        slips = g["grounding_slips"]
        rows.append(
            [
                label,
                kinds(g["retries"]),
                kinds(g["fallbacks"]),
                f"{kinds(slips['choice_slips'])} ({pct(slips['choice_slip_rate'])} of {slips['choices']})",
                f"{kinds(slips['suspicion_slips'])} "
                f"({pct(slips['suspicion_slip_rate'])} of {slips['suspicions']})",
                str(slips["unparsed"]),
            ]
        )
    headers = [
        "policy / model",
        "re-asks",
        "fallbacks",
        "choice slips",
        "suspicion slips",
        "unparsed answers",
    ]
    return table(headers, rows)


def _table_play(groups: plots.Groups) -> list[str]:
    rows = []
    for label, g in groups:
        r, c = g["revotes"], g["consensus"]
        rows.append(
            [
                label,
                f"{r['revotes']} of {r['votes']} ({pct(r['frequency'])})",
                kinds(r["outcomes"]),
                str(c["nights"]),
                pct(c["round1_agreement"]),
                pct(c["round2_agreement"]),
                pct(c["lowest_seat_share"]),
                pct(c["skip_share"]),
            ]
        )
    headers = ["policy / model", "revotes", "revote outcomes", "kill decisions", "Round 1 agreement"]
    return table([*headers, "Round 2 agreement", "lowest-seat decisions", "skips"], rows)


def _judged(groups: plots.Groups) -> list[str]:
    """Every judged metric over all the seats of each policy and model, with its interval."""
    rows = []
    for metric in METRICS:
        cells = [metric.title]
        for _, g in groups:
            f = g["judged"][metric.key]["all"]
            cells.append("–" if f is None else f"{interval_text(f)} n={f['n']:g}")
        rows.append(cells)
    lines = table(["metric", *(label for label, _ in groups)], rows)
    return [*lines, *(f"- {m.title}: {m.definition}" for m in METRICS), ""]


def interval_text(f: Mapping[str, float | None], digits: int = 2) -> str:
    """A figure with its 95% interval: ``value [low, high]``, or a dash."""
    if f.get("value") is None:
        return "–"
    value = f"{f['value']:.{digits}f}"
    low, high = f.get("low"), f.get("high")
    return value if low is None or high is None else f"{value} [{low:.{digits}f}, {high:.{digits}f}]"


def _deduction(groups: plots.Groups) -> list[str]:
    rows = []
    for label, g in groups:
        d = g["deduction"]
        per_round = ", ".join(
            f"{r}: {num(row['brier'], 3)}" for r, row in d["by_round"].items() if row["brier"] is not None
        )
        rows.append(
            [
                label,
                num(d["brier"], 3),
                pct(d["coverage"]),
                num(d["rank"], 2),
                num(d["chance"], 2),
                per_round or "–",
            ]
        )
    headers = ["policy / model", "Brier", "players rated", "Mafia rank", "chance rank", "Brier by round"]
    return table(headers, rows)


def _within(counts: Mapping[str, int]) -> str:
    within, total = counts.get("within", 0), counts.get("calls", 0)
    return f"{pct(within / total)} of {total}" if total else "no budget"


def _context_tools(groups: plots.Groups) -> list[str]:
    rows = []
    for label, g in groups:
        t = g.get("context_tools", {})
        games = max(int(g["games"]), 1)
        turns = int(t.get("turns", 0))
        used = int(t.get("turns_with_recall", 0))
        rows.append(
            [
                label,
                num(t.get("recall_calls", 0) / games, 1),
                f"{used} ({pct(used / turns if turns else None)})",
                str(t.get("recall_refused", 0)),
                str(t.get("summaries", 0)),
                kinds(t.get("summary_fallbacks", {})),
                num(t.get("summary_billed_tokens", 0) / games),
                _within(t.get("budget_calls", {})),
            ]
        )
    headers = [
        "policy / model",
        "recalls a game",
        "turns with a recall",
        "recalls refused",
        "summaries written",
        "summary fallbacks",
        "summariser billed tokens a game",
        "calls within the token budget",
    ]
    return table(headers, rows)


def render(summary: JSON, images: Mapping[str, str], title: str) -> str:
    """The report's Markdown from a summary and the plots' file names."""
    groups = plots.labelled(summary["groups"])
    out = [f"# Arena report: {title}", ""]
    out += [f"{summary['finished']} finished games"]
    if summary["unfinished"]:
        out[-1] += f"; not counted, without a result: {', '.join(summary['unfinished'])}"
    out[-1] += "."
    if summary["arena"]:
        asked = [
            f"- {key}: `{json.dumps(value, ensure_ascii=False)}`" for key, value in summary["arena"].items()
        ]
        out += ["", "What was asked (arena.json):", "", *asked]
    out += [
        "",
        "## Judge",
        "",
        *(f"- {line.removeprefix('Judge: ')}" for line in verdict_lines(summary["judge"])),
    ]
    if summary["judge"]["verdicts"]:
        out += [
            "",
            "## Paired games",
            "",
            "Seeds on which a policy's game made every move its baseline's game made (every event "
            "but the players' thoughts and the context's own records), and those with the same "
            "winner. A model whose dice follow every byte of its prompt (`house`) plays differently "
            "under any change of wording; `house-paired` rolls the same dice at the same moment, so "
            "its games part only where a policy changed what the model read.",
            "",
            *same_play_lines(summary["judge"]),
        ]
    sections: list[tuple[str, str, Callable[[plots.Groups], list[str]], str | None]] = [
        (
            "Outcomes",
            "Win rates by side with 95% Wilson intervals; medians with the 95th percentile.",
            _outcomes,
            "wins",
        ),
        (
            "Game length and calls",
            "Every attempt is a call; the critical path counts, per step, the turn with most calls.",
            _length,
            "calls",
        ),
        (
            "Tokens",
            "Per call and per game: median (95th percentile). Billed tokens count cached input at a quarter.",
            _tokens,
            "tokens",
        ),
        (
            "Fact presence by age",
            "Facts a prompt's player is entitled to that it states, by age in rounds.",
            _facts,
            "facts",
        ),
        (
            "Re-asks, fallbacks and grounding slips",
            "Slips: raw answers naming absent, dead or non-nominated players.",
            _reliability,
            None,
        ),
        (
            "Recall and summaries",
            "Recall calls and the summariser's calls are billed with the players' calls above. "
            "A summary fallback leaves the deterministic compression in place.",
            _context_tools,
            None,
        ),
        ("Revotes and Mafia consensus", "", _table_play, None),
        (
            "Deduction quality",
            "Town-side suspicions against the hidden roles: Brier score (0 is perfect) and where "
            "the most suspected Mafia ranks.",
            _deduction,
            "deduction",
        ),
        (
            "How they play",
            "Judged play over every seat of the policy and model (per role in summary.json), read "
            "from the games' logs, with 95% bootstrap intervals over games; each metric defined "
            "below the table.",
            _judged,
            None,
        ),
    ]
    for heading, note, make, image in sections:
        out += ["", f"## {heading}", ""]
        if note:
            out += [note, ""]
        out += make(groups)
        if image is not None:
            out += [f"![{heading}]({images[image]})"]
    return "\n".join(out).rstrip() + "\n"


def write_report(
    arena_dir: str | Path, out_dir: str | Path | None = None, *, echo: Callable[[str], None] = print
) -> Path:
    """Write the arena's report (``report.md`` with its PNG plots) to ``out_dir`` (by default
    ``ARENA_DIR/report``), print the judge's verdict with ``echo``, and return the page's path.
    ArenaError (a one-line message) for a folder that is no arena or has no finished game."""
    arena_dir = Path(arena_dir)
    summary = summarize(arena_dir)
    if not summary["finished"]:
        waiting = len(summary["unfinished"])
        raise ArenaError(f"{arena_dir}: no finished game to report on yet ({waiting} without a result)")
    out = Path(out_dir) if out_dir is not None else arena_dir / REPORT_DIR
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArenaError(f"{out}: the report cannot be written there ({exc.strerror or exc})") from None
    groups = plots.labelled(summary["groups"])
    images = {
        "tokens": plots.tokens_plot(groups, out / "tokens_per_call.png").name,
        "wins": plots.wins_plot(groups, out / "win_rates.png").name,
        "facts": plots.facts_plot(groups, out / "fact_presence.png").name,
        "deduction": plots.deduction_plot(groups, out / "deduction.png").name,
        "calls": plots.calls_plot(groups, summary["games"], out / "calls_per_game.png").name,
    }
    page = out / REPORT_FILE
    page.write_text(render(summary, images, arena_dir.resolve().name), encoding="utf-8")
    for line in verdict_lines(summary["judge"]):
        echo(line)
    return page
