"""Inline SVG plots for the tournament page, drawn as text with nothing to load: estimates with
their 95% intervals on a horizontal axis, and a scatter of points with intervals on both axes.
Numbers are written with fixed precision, so the same figures always give the same bytes; the
elements carry no namespace, which HTML gives inline SVG itself."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

# Colours of the models, in the order given (a colour-blind-safe set, Okabe and Ito's).
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#f0e442", "#000000")
FONT = 'font-family="system-ui, sans-serif" font-size="12"'


@dataclass(frozen=True)
class Estimate:
    """One row of an interval chart: a label, its estimate and its 95% interval."""

    label: str
    value: float
    low: float
    high: float
    colour: str = PALETTE[0]


@dataclass(frozen=True)
class Axis:
    """A linear axis from ``low`` to ``high`` drawn between pixels ``start`` and ``end``."""

    low: float
    high: float
    start: float
    end: float

    def at(self, value: float) -> float:
        """The pixel of ``value``."""
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)

    def ticks(self, count: int = 5) -> list[float]:
        """Round values across the axis, about ``count`` of them."""
        raw = (self.high - self.low) / count
        step = 10 ** math.floor(math.log10(raw))
        step *= next(m for m in (1, 2, 5, 10) if step * m >= raw)
        first = math.ceil(self.low / step) * step
        return [first + k * step for k in range(int((self.high - first) / step + 1e-9) + 1)]


def colour_of(labels: Sequence[str]) -> dict[str, str]:
    """Each model's colour, by its place in ``labels``."""
    return {label: PALETTE[k % len(PALETTE)] for k, label in enumerate(labels)}


def padded_range(values: Sequence[float], share: float = 0.05) -> tuple[float, float]:
    """The span of ``values`` widened by ``share`` of it on each side (one unit if it is flat)."""
    low, high = min(values), max(values)
    pad = (high - low) * share or 1.0
    return low - pad, high + pad


def _n(value: float) -> str:
    return f"{value:.1f}"


def _tick_text(value: float, percent: bool) -> str:
    return f"{value * 100:.0f}%" if percent else f"{value:g}"


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg role="img" viewBox="0 0 {_n(width)} {_n(height)}" '
        f'width="{_n(width)}" height="{_n(height)}" {FONT}><title>{escape(title)}</title>'
        + "".join(body)
        + "</svg>"
    )


def _x_axis(axis: Axis, top: float, bottom: float, label: str, percent: bool = False) -> list[str]:
    """Vertical grid lines with their values under the plot, and the axis label."""
    out = []
    for value in axis.ticks():
        x = _n(axis.at(value))
        out.append(f'<line x1="{x}" x2="{x}" y1="{_n(top)}" y2="{_n(bottom)}" stroke="#e4e7ec"/>')
        out.append(
            f'<text x="{x}" y="{_n(bottom + 14)}" text-anchor="middle" fill="#475467">'
            f"{_tick_text(value, percent)}</text>"
        )
    middle = _n((axis.start + axis.end) / 2)
    out.append(
        f'<text x="{middle}" y="{_n(bottom + 30)}" text-anchor="middle" fill="#344054">{escape(label)}</text>'
    )
    return out


def _interval(x1: float, x2: float, y: float, colour: str, cap: float = 5.0) -> list[str]:
    """A horizontal interval with end caps."""
    return [
        f'<line x1="{_n(x1)}" x2="{_n(x2)}" y1="{_n(y)}" y2="{_n(y)}" stroke="{colour}" stroke-width="2"/>',
        *(
            f'<line x1="{_n(x)}" x2="{_n(x)}" y1="{_n(y - cap)}" y2="{_n(y + cap)}" stroke="{colour}"/>'
            for x in (x1, x2)
        ),
    ]


def interval_chart(
    rows: Sequence[Estimate],
    title: str,
    axis_label: str,
    span: tuple[float, float] | None = None,
    width: float = 560,
) -> str:
    """Each row's estimate (a dot) and 95% interval (a bar), one row per label, on a shared axis
    (``span``, or the rows' own range)."""
    label_width, row, top = 130.0, 26.0, 28.0
    bottom = top + row * len(rows)
    low, high = span or padded_range([v for r in rows for v in (r.low, r.high)])
    axis = Axis(low, high, label_width, width - 16)
    body = [f'<text x="4" y="16" font-weight="600" fill="#101828">{escape(title)}</text>']
    body += _x_axis(axis, top, bottom, axis_label)
    for k, r in enumerate(rows):
        y = top + row * (k + 0.5)
        body.append(
            f'<text x="{_n(label_width - 8)}" y="{_n(y + 4)}" text-anchor="end" fill="#101828">'
            f"{escape(r.label)}</text>"
        )
        body += _interval(axis.at(r.low), axis.at(r.high), y, r.colour)
        body.append(f'<circle cx="{_n(axis.at(r.value))}" cy="{_n(y)}" r="4.5" fill="{r.colour}"/>')
    return _svg(width, bottom + 40, title, body)


@dataclass(frozen=True)
class Point:
    """One point of a scatter: a label, its x and y estimates with their 95% intervals."""

    label: str
    x: Estimate
    y: Estimate
    colour: str = PALETTE[0]


NEAR = 12.0  # pixels: dots closer than this on both axes would hide each other
LINE = 14.0  # pixels: a label's line height
CHAR = 7.5  # pixels: an upper bound on a character's width at the chart's font size


def _spread_coinciding(
    spots: Sequence[tuple[float, float]], labels: Sequence[str]
) -> list[tuple[float, float, float]]:
    """Each point's drawn centre and its label's baseline. Dots that (nearly) coincide are set side
    by side, ``NEAR`` / 2 pixels apart across their common place; a label that would cross one
    already placed moves up a line at a time until it is clear, so every dot and name stays
    readable; a point alone stays where it is."""
    groups: list[list[int]] = []
    for k, (x, y) in enumerate(spots):
        home = next(
            (g for g in groups if abs(spots[g[0]][0] - x) < NEAR and abs(spots[g[0]][1] - y) < NEAR), None
        )
        if home is None:
            groups.append([k])
        else:
            home.append(k)
    centres: list[tuple[float, float]] = list(spots)
    for group in groups:
        for place, k in enumerate(group):
            x, y = spots[k]
            centres[k] = (x + (place - (len(group) - 1) / 2) * NEAR / 2, y)
    placed: list[tuple[float, float, float]] = []  # left, baseline, right of each label drawn
    out = []
    for (x, y), label in zip(centres, labels, strict=True):
        left, right, baseline = x + 8, x + 8 + CHAR * len(label), y - 8
        while any(
            left < r and l < right and abs(baseline - b) < LINE
            for l, b, r in placed  # noqa: E741
        ):
            baseline -= LINE
        placed.append((left, baseline, right))
        out.append((x, y, baseline))
    return out


def scatter_chart(points: Sequence[Point], title: str, x_label: str, y_label: str, size: float = 420) -> str:
    """Points with a cross of intervals each, on axes from 0% to 100%, with a line at 50% on each."""
    left, top, right, bottom = 56.0, 28.0, size - 16, size - 44
    x_axis = Axis(0.0, 1.0, left, right)
    y_axis = Axis(0.0, 1.0, bottom, top)
    body = [f'<text x="4" y="16" font-weight="600" fill="#101828">{escape(title)}</text>']
    body += _x_axis(x_axis, top, bottom, x_label, percent=True)
    for value in y_axis.ticks():
        y = _n(y_axis.at(value))
        body.append(f'<line x1="{_n(left)}" x2="{_n(right)}" y1="{y}" y2="{y}" stroke="#e4e7ec"/>')
        body.append(
            f'<text x="{_n(left - 6)}" y="{y}" text-anchor="end" dy="4" fill="#475467">'
            f"{_tick_text(value, True)}</text>"
        )
    middle = _n((top + bottom) / 2)
    body.append(
        f'<text x="12" y="{middle}" text-anchor="middle" fill="#344054" '
        f'transform="rotate(-90 12 {middle})">{escape(y_label)}</text>'
    )
    half_x, half_y = _n(x_axis.at(0.5)), _n(y_axis.at(0.5))
    dash = 'stroke="#98a2b3" stroke-dasharray="4 4"'
    body.append(f'<line x1="{half_x}" x2="{half_x}" y1="{_n(top)}" y2="{_n(bottom)}" {dash}/>')
    body.append(f'<line x1="{_n(left)}" x2="{_n(right)}" y1="{half_y}" y2="{half_y}" {dash}/>')
    spots = _spread_coinciding(
        [(x_axis.at(p.x.value), y_axis.at(p.y.value)) for p in points], [p.label for p in points]
    )
    for p, (cx, cy, label_y) in zip(points, spots, strict=True):
        body += _interval(x_axis.at(p.x.low), x_axis.at(p.x.high), cy, p.colour, cap=4)
        body += [
            f'<line x1="{_n(cx)}" x2="{_n(cx)}" y1="{_n(y_axis.at(p.y.low))}" y2="{_n(y_axis.at(p.y.high))}" '
            f'stroke="{p.colour}" stroke-width="2"/>',
            f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="5" fill="{p.colour}"/>',
            f'<text x="{_n(cx + 8)}" y="{_n(label_y)}" fill="{p.colour}" font-weight="600">'
            f"{escape(p.label)}</text>",
        ]
    return _svg(size, size, title, body)
