"""The forecasting board's plots: calibration per seat and the standing chart, drawn with the shared
engine's SVG primitives (``colosseum_core.site.svg``), and the standings' intervals, drawn inline in
the board's page by the shared charts (``colosseum_core.site.charts``)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from colosseum_core.forecast.site.fields import format_field
from colosseum_core.site.charts import Interval, interval_chart
from colosseum_core.site.formats import signed
from colosseum_core.site.svg import empty_message, escape, number, svg_document, ticks

_n = number  # every coordinate with two decimals


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
        body.append(empty_message(width, height, f"no {kind} answers yet"))
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
    return svg_document(width, height, title, description, body)


@dataclasses.dataclass(frozen=True)
class Standing:
    """One seat's line on the standing chart.

    ``values[i]``: its cumulative CROWN after ``cards[i]``; ``gladiators``: the readable names of the
    gladiators that answered for it; ``row``: its leaderboard row, whose CROWN the panel shows as a
    marked value the site check reads back (None: shown unmarked).
    """

    seat: str
    name: str
    gladiators: str
    values: Sequence[int]
    row: Mapping[str, Any] | None = None


# Small multiples: a panel per seat, four to a row, each naming its seat, so thirteen lines stay
# apart however many of them coincide.
STANDING_WIDTH: Final = 760
PANELS_PER_ROW: Final = 4
_PAD, _GAP, _HEADER, _PANEL_H, _FOOTER = 12, 12, 62, 150, 8
_BOX_TOP, _BOX_H, _BOX_LEFT = 36, 90, 28
HIGHLIGHT: Final = "#0b5cad"
OTHERS: Final = "#c9ccd3"


def standing_size(count: int) -> tuple[int, int]:
    """The chart's width and height for ``count`` seats (the pages size its image by it)."""
    rows = max(1, math.ceil(count / PANELS_PER_ROW))
    return STANDING_WIDTH, _HEADER + rows * _PANEL_H + _FOOTER


# No font is measured: a character of the system sans faces the SVG asks for is taken as this many
# ems wide (bold a little wider), enough for the names the registry holds.
EM_PER_CHAR: Final = 0.56
BOLD_EM_PER_CHAR: Final = 0.62


def _fit(text: str, width: float, size: float, em: float = EM_PER_CHAR) -> str:
    most = max(4, int(width / (size * em)))
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def _title_size(text: str, width: float) -> float:
    """The largest of the panel title's sizes at which ``text`` fits ``width`` (the smallest if none)."""
    return next(
        (size for size in (11.0, 10.5, 10.0, 9.5) if len(text) * size * BOLD_EM_PER_CHAR <= width), 9.5
    )


def _final_text(line: Standing) -> tuple[str, str]:
    """The final CROWN as text, and the attributes that mark it (empty if it cannot be marked)."""
    final = line.values[-1] if line.values else 0
    row = line.row
    if row is not None and row.get("crown") == final and row.get("id"):
        marks = f' data-table="leaderboard" data-id="{escape(row["id"])}" data-field="crown"'
        return format_field("leaderboard", "crown", row), marks
    return signed(final), ""


def standing_svg(kind: str, cards: Sequence[str], lines: Sequence[Standing]) -> str:
    """Cumulative CROWN per seat across settled cards in card order, as one small panel per seat.

    Panels run in order of the final CROWN (highest first, ties in the order given); every panel has
    the same scale and shows the other seats in grey behind its own line, and says how many other
    seats drew exactly the same line. Every line starts at 0 before the first card.
    """
    width, height = standing_size(len(lines))
    title = f"FC SCORE (CROWN) by seat, cumulative, {kind}"
    body = [
        f'<text x="{_PAD}" y="20" font-size="13" font-weight="600" fill="#222222">{escape(title)}</text>',
    ]
    if not cards or not lines:
        body.append(empty_message(width, height, f"no settled {kind} cards yet"))
        return svg_document(width, height, title, f"No {kind} card has settled yet.", body)
    order = sorted(range(len(lines)), key=lambda i: (-(lines[i].values[-1] if lines[i].values else 0), i))
    shown = [lines[i] for i in order]
    values = [0, *(v for line in shown for v in line.values)]
    low, high = min(values), max(values)
    if low == high:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.08
    low, high = low - pad, high + pad
    steps = len(cards)
    span_text = f"{cards[0]} to {cards[-1]}" if steps > 1 else cards[0]
    body += [
        f'<text x="{_PAD}" y="38" fill="#444444">One panel per seat, highest FC SCORE first: the seat\'s '
        "cumulative FC SCORE after each settled card (blue), the other seats in grey.</text>",
        f'<text x="{_PAD}" y="53" fill="#444444">{steps} settled {"card" if steps == 1 else "cards"}, '
        f"{escape(span_text)}, left to right; the same vertical scale in every panel.</text>",
    ]
    panel_w = (width - 2 * _PAD - (PANELS_PER_ROW - 1) * _GAP) / PANELS_PER_ROW
    box_w = panel_w - _BOX_LEFT - 4
    scale_ticks = ticks(low, high)
    if len(scale_ticks) > 4:
        # Every k-th tick, counted from 0 so the zero line keeps its label.
        every, zero = math.ceil(len(scale_ticks) / 4), scale_ticks.index(0) if 0 in scale_ticks else 0
        scale_ticks = [t for i, t in enumerate(scale_ticks) if (i - zero) % every == 0]
    paths = {line.seat: tuple(line.values) for line in shown}
    for index, line in enumerate(shown):
        px = _PAD + (index % PANELS_PER_ROW) * (panel_w + _GAP)
        py = _HEADER + (index // PANELS_PER_ROW) * _PANEL_H
        bx, by = px + _BOX_LEFT, py + _BOX_TOP

        def x(i: int, bx: float = bx) -> float:
            return bx + i / steps * box_w

        def y(v: float, by: float = by) -> float:
            return by + (high - v) / (high - low) * _BOX_H

        final, marks = _final_text(line)
        room = panel_w - len(final) * 11.5 * BOLD_EM_PER_CHAR - 6
        size = _title_size(line.name, room)
        body.append(f"<g><title>{escape(line.name)} ({escape(line.seat)})</title>")
        body.append(
            f'<text x="{_n(px)}" y="{_n(py + 14)}" font-size="{size:g}" font-weight="600" fill="#222222">'
            f"{escape(_fit(line.name, room, size, BOLD_EM_PER_CHAR))}</text>"
        )
        body.append(
            f'<text x="{_n(px + panel_w)}" y="{_n(py + 14)}" font-size="11.5" font-weight="700" '
            f'text-anchor="end" fill="{HIGHLIGHT}"{marks}>{escape(final)}</text>'
        )
        body.append(
            f'<text x="{_n(px)}" y="{_n(py + 28)}" font-size="9.5" fill="#555555">'
            f"{escape(_fit(line.gladiators or line.seat, panel_w, 9.5))}</text>"
        )
        body.append(
            f'<rect x="{_n(bx)}" y="{_n(by)}" width="{_n(box_w)}" height="{_BOX_H}" fill="#f7f7f9" '
            'stroke="#dddddd"/>'
        )
        for tick in scale_ticks:
            body.append(
                f'<line x1="{_n(bx)}" y1="{_n(y(tick))}" x2="{_n(bx + box_w)}" y2="{_n(y(tick))}" '
                f'stroke="{"#999999" if tick == 0 else "#e4e4ea"}"/>'
            )
            body.append(
                f'<text x="{_n(bx - 4)}" y="{_n(y(tick) + 3)}" text-anchor="end" font-size="8.5" '
                f'fill="#555555">{tick}</text>'
            )
        for other in shown:
            if other.seat != line.seat:
                points = " ".join(f"{_n(x(i))},{_n(y(v))}" for i, v in enumerate([0, *other.values]))
                body.append(f'<polyline points="{points}" fill="none" stroke="{OTHERS}" stroke-width="1"/>')
        own = [0, *line.values]
        points = " ".join(f"{_n(x(i))},{_n(y(v))}" for i, v in enumerate(own))
        body.append(f'<polyline points="{points}" fill="none" stroke="{HIGHLIGHT}" stroke-width="2.2"/>')
        body.append(f'<circle cx="{_n(x(steps))}" cy="{_n(y(own[-1]))}" r="2.6" fill="{HIGHLIGHT}"/>')
        same = sum(1 for other in shown if other.seat != line.seat and paths[other.seat] == paths[line.seat])
        if same:
            body.append(
                f'<text x="{_n(bx)}" y="{_n(by + _BOX_H + 13)}" font-size="9" font-style="italic" '
                f'fill="#9a5b00">same line as {same} other {"seat" if same == 1 else "seats"}</text>'
            )
        body.append("</g>")
    description = (
        f"Cumulative FC SCORE (recorded as CROWN) of each seat on {kind} cards, after each settled card "
        f"in card order, from {cards[0]} to {cards[-1]}: one panel per seat, in order of the final score, "
        "each naming its seat, its gladiators and its final score."
    )
    return svg_document(width, height, title, description, body)


# --- the standings' intervals, drawn inline beside the table -------------------------------------


@dataclasses.dataclass(frozen=True)
class Measure:
    """A board column drawn with its 95% range: the leaderboard's ``field`` and its ``_low``/``_high``."""

    field: str
    public: str  # the method's public name, the column's head
    axis: str
    digits: int  # as the board writes the field (``fields.SHARP``, ``fields.EDGE``)
    reference: float | None = None


CONFIDENCE: Final = Measure("sharp", "CONFIDENCE", "CONFIDENCE (recorded as SHARP), 0–100", 1)
# EDGE is the market's Brier minus the seat's: 0 is the market itself.
VS_MARKET: Final = Measure("edge", "VS MARKET", "VS MARKET (recorded as EDGE); 0 is the market", 4, 0.0)
MEASURES: Final = (CONFIDENCE, VS_MARKET)


def _finite(value: Any) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def intervals(rows: Sequence[Mapping[str, Any]], labels: Sequence[str], measure: Measure) -> list[Interval]:
    """A chart row per leaderboard row, in the order given, labelled as the table names it.

    The forecast board places no one (it is read in standing order), so no row carries a placement.
    """
    low, high = f"{measure.field}_low", f"{measure.field}_high"
    return [
        Interval(label, _finite(row[measure.field]), _finite(row[low]), _finite(row[high]))
        for row, label in zip(rows, labels, strict=True)
    ]


def interval_charts(
    rows: Sequence[Mapping[str, Any]], labels: Sequence[str], *, kind: str, by: str, ident: str
) -> list[str]:
    """CONFIDENCE and VS MARKET of a standings table's ``rows`` (in its order, ``labels`` its names
    for them), each an inline figure with its point and 95% range; ``by`` names the entrants
    ("seat", "gladiator"), ``ident`` is unique within the page."""
    return [
        interval_chart(
            f"{ident}-{measure.field}",
            f"{measure.public} by {by}, {kind}: point and 95% range",
            intervals(rows, labels, measure),
            axis=measure.axis,
            digits=measure.digits,
            reference=measure.reference,
            reference_label="the market" if measure.reference is not None else "",
        )
        for measure in MEASURES
    ]
