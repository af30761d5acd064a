"""The arena report's plots, drawn from ``summarize``'s groups into PNG files.

Figures are made with matplotlib's object API on the Agg canvas (no pyplot, no display, no global
state), so reports can be written from any thread or a machine without a screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from mafia.game.state import JSON

Groups = list[tuple[str, JSON]]  # (label "policy / model", the group's figures)


def labelled(groups: Mapping[str, Mapping[str, JSON]]) -> Groups:
    """Every policy and model's figures with a label, in a stable order."""
    return [(f"{p} / {m}", figs) for p in sorted(groups) for m, figs in sorted(groups[p].items())]


def _legend(ax: Axes) -> None:
    """A legend, where anything is labelled."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")


def _save(fig: Figure, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    return path


def _by_round(ax: Axes, groups: Groups, pick: Callable[[JSON], Mapping[str, Any]], value: str) -> None:
    """One line per group: ``value`` of each round's entry of ``pick(group)``."""
    for label, figs in groups:
        rows = [(int(r), row[value]) for r, row in pick(figs).items() if row.get(value) is not None]
        if rows:
            ax.plot([r for r, _ in rows], [v for _, v in rows], marker="o", label=label)
    _rounds_axis(ax)


def _rounds_axis(ax: Axes, label: str = "round") -> None:
    ax.set_xlabel(label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)


def tokens_plot(groups: Groups, path: Path) -> Path:
    """Prompt and billed tokens per call against round: the median (solid) and p95 (dashed)."""
    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, 2)
    for ax, name in zip(axes, ("prompt_tokens", "billed_tokens"), strict=True):
        for label, figs in groups:
            rounds = sorted(figs["tokens_per_call_by_round"].items(), key=lambda kv: int(kv[0]))
            xs = [int(r) for r, _ in rounds]
            line = ax.plot(xs, [row[name]["median"] for _, row in rounds], marker="o", label=label)
            ax.plot(xs, [row[name]["p95"] for _, row in rounds], ls="--", color=line[0].get_color())
        ax.set_title(f"{name.replace('_', ' ')} per call (median, p95 dashed)")
        _rounds_axis(ax)
    _legend(axes[0])
    return _save(fig, path)


def wins_plot(groups: Groups, path: Path) -> Path:
    """Win rate of each side per group, with 95% Wilson intervals."""
    fig = Figure(figsize=(max(6.0, 1.6 * len(groups) + 2), 4))
    ax = fig.subplots()
    sides = ("town", "mafia", "draw")
    width = 0.8 / len(sides)
    for k, side in enumerate(sides):
        xs = [i + (k - 1) * width for i in range(len(groups))]
        rates = [figs["wins"][side]["rate"] or 0.0 for _, figs in groups]
        # Clamped: the interval's ends may sit a rounding error inside a rate of 0 or 1.
        low = [max(0.0, r - figs["wins"][side]["low"]) for r, (_, figs) in zip(rates, groups, strict=True)]
        high = [max(0.0, figs["wins"][side]["high"] - r) for r, (_, figs) in zip(rates, groups, strict=True)]
        ax.bar(xs, rates, width, yerr=[low, high], capsize=3, label=side)
    ax.set_xticks(range(len(groups)), [label for label, _ in groups], fontsize="small")
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson interval)")
    _legend(ax)
    return _save(fig, path)


def facts_plot(groups: Groups, path: Path) -> Path:
    """Share of due facts a prompt states, by the fact's age in rounds."""
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    _by_round(ax, groups, lambda figs: figs["fact_presence"]["by_age"], "share")
    ax.set_xlabel("fact age (rounds)")
    ax.set_ylabel("facts present")
    ax.set_ylim(-0.02, 1.02)
    _legend(ax)
    return _save(fig, path)


def deduction_plot(groups: Groups, path: Path) -> Path:
    """Brier score of Town's suspicions, and the rank of the most suspected Mafia, by round."""
    fig = Figure(figsize=(10, 4))
    left, right = fig.subplots(1, 2)
    _by_round(left, groups, lambda figs: figs["deduction"]["by_round"], "brier")
    left.set_title("Brier score (lower is better)")
    _by_round(right, groups, lambda figs: figs["deduction"]["by_round"], "rank")
    for _, figs in groups:
        rows = sorted(figs["deduction"]["by_round"].items(), key=lambda kv: int(kv[0]))
        chance = [(int(r), row["chance"]) for r, row in rows if row["chance"] is not None]
        right.plot([r for r, _ in chance], [c for _, c in chance], ls=":", color="grey")
    right.set_title("rank of the most suspected Mafia (dotted: chance)")
    _legend(left)
    return _save(fig, path)


def calls_plot(groups: Groups, per_game: list[JSON], path: Path) -> Path:
    """Calls per game of each group, as box plots (all calls, and on the critical path)."""
    fig = Figure(figsize=(max(6.0, 1.6 * len(groups) + 2), 4))
    ax = fig.subplots()
    for offset, key, name in ((-0.2, "calls", "all calls"), (0.2, "critical_calls", "critical path")):
        data = [
            [g[key] for g in per_game if f"{g['policy']} / {g['model']}" == label] or [0]
            for label, _ in groups
        ]
        box = ax.boxplot(data, positions=[i + offset for i in range(len(groups))], widths=0.35)
        box["boxes"][0].set_label(name)
        color = "tab:blue" if key == "calls" else "tab:orange"
        for part in ("boxes", "medians", "whiskers", "caps"):
            for artist in box[part]:
                artist.set_color(color)
    ax.set_xticks(range(len(groups)), [label for label, _ in groups], fontsize="small")
    ax.set_ylabel("calls per game")
    _legend(ax)
    return _save(fig, path)
