"""The tournament page's scatter stays readable when points coincide: every dot and every name is
drawn apart from the others, and a point alone stays where its figures put it."""

from __future__ import annotations

import itertools
import re

from mafia.tournament.svg import Estimate, Point, scatter_chart


def _point(label: str, x: float, y: float) -> Point:
    return Point(label, Estimate("", x, x - 0.1, x + 0.1), Estimate("", y, y - 0.1, y + 0.1))


def _drawn(svg: str) -> tuple[list[float], list[tuple[float, float]]]:
    """The dots' centres (x) and the names' anchors (x, y) of a scatter."""
    dots = [float(x) for x in re.findall(r'<circle cx="([-\d.]+)"', svg)]
    names = [
        (float(x), float(y))
        for x, y in re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)" fill="#[0-9a-f]+" font-weight', svg)
    ]
    return dots, names


def test_coinciding_points_are_drawn_apart_with_their_names_stacked() -> None:
    svg = scatter_chart(
        [_point(m, 1.0, 1.0) for m in ("house", "house-sloppy", "random-legal")], "t", "x", "y"
    )
    dots, names = _drawn(svg)
    assert len(dots) == 3 and len(names) == 3
    assert min(abs(a - b) for i, a in enumerate(dots) for b in dots[i + 1 :]) >= 5  # dots side by side
    ys = sorted(y for _, y in names)
    assert all(b - a >= 12 for a, b in itertools.pairwise(ys))  # a line apart: no name on another


def test_names_of_nearby_points_never_cross() -> None:
    """Dots apart but close enough for their names to cross: the names move a line apart."""
    svg = scatter_chart([_point("house-sloppy", 0.10, 0.0), _point("random-legal", 0.12, 0.0)], "t", "x", "y")
    _, names = _drawn(svg)
    assert abs(names[0][1] - names[1][1]) >= 14


def test_points_apart_are_left_where_they_are() -> None:
    svg = scatter_chart([_point("a", 0.0, 0.0), _point("b", 1.0, 1.0)], "t", "x", "y")
    dots, names = _drawn(svg)
    alone = scatter_chart([_point("a", 0.0, 0.0)], "t", "x", "y")
    assert _drawn(alone)[0][0] == dots[0] and _drawn(alone)[1][0] == names[0]
