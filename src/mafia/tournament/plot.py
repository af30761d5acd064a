"""The tournament report's plot: every model's rating with its 95% interval, overall and per role."""

from __future__ import annotations

from pathlib import Path

from mafia.game.state import JSON
from mafia.tournament.ratings import ROLES


def ratings_plot(ratings: JSON, models: list[str], path: Path) -> Path:
    """One panel per rating (overall, then each role): each model's mean and 95% interval."""
    # Imported here: the command line loads this module, and matplotlib only when a plot is drawn.
    from matplotlib.figure import Figure

    panels = [("overall", ratings["overall"]), *((role, ratings["by_role"][role]) for role in ROLES)]
    fig = Figure(figsize=(3.0 * len(panels), 0.5 * len(models) + 2.0))
    axes = fig.subplots(1, len(panels), sharey=True, sharex=True)
    for ax, (title, rated) in zip(axes, panels, strict=True):
        for row, model in enumerate(models):
            if model not in rated:
                continue
            r = rated[model]
            ax.errorbar(r["mu"], row, xerr=[[r["mu"] - r["low"]], [r["high"] - r["mu"]]], fmt="o", capsize=4)
        ax.set_title(title)
        ax.set_xlabel("rating (95% interval)")
        ax.grid(alpha=0.3)
    axes[0].set_yticks(range(len(models)), models)
    axes[0].set_ylim(-0.5, len(models) - 0.5)
    axes[0].invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    return path
