"""The board's plots, written as SVG by hand at build time: no script, no font, nothing fetched.

Coordinates are written with two decimals so the same data always gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

from colosseum_core.forecast.board_site.formats import escape_html

# Thirteen seats, thirteen colours that stay apart for common colour-vision deficiencies as far
# as thirteen can (Okabe-Ito first, then Tableau).
PALETTE: Final = (
    "#0072b2",
    "#e69f00",
    "#009e73",
    "#cc79a7",
    "#d55e00",
    "#56b4e9",
    "#7f7f7f",
    "#000000",
    "#8c564b",
    "#bcbd22",
    "#9467bd",
    "#17becf",
    "#f0e442",
)
FONT: Final = "font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\""


def escape(value: object) -> str:
    # An SVG image shows no styled escape, and XML may not hold most controls at all: the bare label.
    return escape_html(value, attribute=True)


def _n(value: float) -> str:
    return f"{value:.2f}"


def _svg(width: int, height: int, title: str, description: str, body: list[str]) -> str:
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="t d" {FONT} font-size="11">',
            f'<title id="t">{escape(title)}</title>',
            f'<desc id="d">{escape(description)}</desc>',
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
            *body,
            "</svg>",
            "",
        ]
    )


def _empty(width: int, height: int, message: str) -> str:
    return (
        f'<text x="{width / 2:.2f}" y="{height / 2:.2f}" text-anchor="middle" fill="#555555" '
        f'font-size="14">{escape(message)}</text>'
    )


def calibration_svg(kind: str, seat: str, points: Sequence[Mapping[str, float | int | None]]) -> str:
    """Stated probability (0.55–1.0, confidence 1–10) against the realized hit rate, sized by n.

    ``points``: the calibration board's rows of one seat and kind (stated, hit_rate, n).
    """
    width, height = 360, 320
    left, right, top, bottom = 52, 16, 34, 46
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(p: float) -> float:
        return left + (p - 0.5) / 0.5 * plot_w

    def y(rate: float) -> float:
        return top + (1 - rate) * plot_h

    title = f"Calibration, {kind}, seat {seat}"
    body = [
        f'<text x="8" y="20" font-size="13" font-weight="600" fill="#222222">{escape(seat)} · {kind}</text>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#f7f7f9" stroke="#cccccc"/>',
    ]
    for tick in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        body.append(
            f'<line x1="{_n(x(tick))}" y1="{top}" x2="{_n(x(tick))}" y2="{top + plot_h}" stroke="#e2e2e8"/>'
        )
        body.append(
            f'<text x="{_n(x(tick))}" y="{top + plot_h + 14}" text-anchor="middle" fill="#444444">'
            f"{tick:.1f}</text>"
        )
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        body.append(
            f'<line x1="{left}" y1="{_n(y(tick))}" x2="{left + plot_w}" y2="{_n(y(tick))}" stroke="#e2e2e8"/>'
        )
        body.append(
            f'<text x="{left - 6}" y="{_n(y(tick) + 4)}" text-anchor="end" fill="#444444">{tick:.2f}</text>'
        )
    body += [
        f'<line x1="{_n(x(0.5))}" y1="{_n(y(0.5))}" x2="{_n(x(1.0))}" y2="{_n(y(1.0))}" '
        'stroke="#888888" stroke-dasharray="4 3"/>',
        f'<text x="{left + plot_w / 2:.2f}" y="{height - 10}" text-anchor="middle" fill="#222222">'
        "stated probability (confidence 1–10)</text>",
        f'<text transform="translate(14 {top + plot_h / 2:.2f}) rotate(-90)" text-anchor="middle" '
        'fill="#222222">realized hit rate</text>',
    ]
    shown = [
        p for p in points if p.get("n") and p.get("hit_rate") is not None and p.get("stated") is not None
    ]
    if not shown:
        body.append(_empty(width, height, f"no {kind} answers yet"))
    else:
        most = max(int(p["n"] or 0) for p in shown)
        for p in shown:
            radius = 3 + 9 * math.sqrt(int(p["n"] or 0) / most)
            body.append(
                f'<circle cx="{_n(x(float(p["stated"] or 0)))}" cy="{_n(y(float(p["hit_rate"] or 0)))}" '
                f'r="{_n(radius)}" fill="#0072b2" fill-opacity="0.55" stroke="#004c7a"/>'
            )
    description = (
        f"Each point is one confidence level of seat {seat} on {kind} cards: stated probability on x, "
        "the share of its calls that were right on y, area by the number of answers. The dashed "
        "diagonal is perfect calibration."
    )
    return _svg(width, height, title, description, body)


def standing_svg(kind: str, cards: Sequence[str], series: Mapping[str, Sequence[int]]) -> str:
    """Cumulative CROWN per seat across settled cards in card order, one polyline per seat.

    ``series[seat][i]`` is the seat's CROWN after ``cards[i]``; every line starts at 0 before the first.
    """
    width, height = 760, 380
    left, right, top, bottom = 56, 190, 34, 56
    plot_w, plot_h = width - left - right, height - top - bottom
    title = f"Cumulative CROWN by seat, {kind}"
    body = [
        f'<text x="{left}" y="20" font-size="13" font-weight="600" fill="#222222">{escape(title)}</text>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#f7f7f9" stroke="#cccccc"/>',
    ]
    if not cards or not series:
        body.append(_empty(width, height, f"no settled {kind} cards yet"))
        return _svg(width, height, title, f"No {kind} card has settled yet.", body)
    values = [0, *(v for line in series.values() for v in line)]
    low, high = min(values), max(values)
    if low == high:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.05
    low, high = low - pad, high + pad
    steps = len(cards)

    def x(i: int) -> float:
        return left + i / steps * plot_w

    def y(v: float) -> float:
        return top + (high - v) / (high - low) * plot_h

    for tick in _ticks(low, high):
        body.append(
            f'<line x1="{left}" y1="{_n(y(tick))}" x2="{left + plot_w}" y2="{_n(y(tick))}" '
            f'stroke="{"#999999" if tick == 0 else "#e2e2e8"}"/>'
        )
        body.append(
            f'<text x="{left - 6}" y="{_n(y(tick) + 4)}" text-anchor="end" fill="#444444">{tick}</text>'
        )
    every = max(1, math.ceil(steps / 6))
    for i, card in enumerate(cards, start=1):
        if i % every == 0 or i == steps or i == 1:
            body.append(
                f'<text x="{_n(x(i))}" y="{top + plot_h + 14}" text-anchor="middle" fill="#444444" '
                f'font-size="9">{escape(card)}</text>'
            )
    body += [
        f'<text x="{left + plot_w / 2:.2f}" y="{height - 12}" text-anchor="middle" fill="#222222">'
        "settled cards, in card order</text>",
        f'<text transform="translate(14 {top + plot_h / 2:.2f}) rotate(-90)" text-anchor="middle" '
        'fill="#222222">cumulative CROWN</text>',
    ]
    for index, (seat, line) in enumerate(series.items()):
        colour = PALETTE[index % len(PALETTE)]
        points = " ".join(f"{_n(x(i))},{_n(y(v))}" for i, v in enumerate([0, *line]))
        body.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        ly = top + 8 + index * 16
        lx = left + plot_w + 14
        body.append(
            f'<line x1="{lx}" y1="{ly}" x2="{lx + 18}" y2="{ly}" stroke="{colour}" stroke-width="3"/>'
        )
        body.append(f'<text x="{lx + 24}" y="{ly + 4}" fill="#222222">{escape(seat)}</text>')
    description = (
        f"Cumulative CROWN of each seat on {kind} cards, after each settled card in card order, "
        f"from {cards[0]} to {cards[-1]}."
    )
    return _svg(width, height, title, description, body)


def _ticks(low: float, high: float) -> list[int]:
    span = high - low
    raw = span / 5
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    step = max(1, int(step))
    first = math.ceil(low / step) * step
    return list(range(int(first), math.floor(high) + 1, step))
