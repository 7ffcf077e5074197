"""Charts drawn inline in a page as SVG at build time, for every arena (COLOSSEUM-CHARTS-1).

No script, no font, nothing fetched: a page shows its pictures with JavaScript off. Each chart is a
``<figure>`` whose ``<svg role="img">`` carries a ``<title>`` and a ``<desc>`` (the text alternative:
every value the chart draws, in words), and whose caption says what it shows. Coordinates are written
with two decimals, and colours and layout depend on the data alone, so the same data gives the same
bytes and the site re-check can compare them.

The kinds of chart, each a pure function of plain rows:

- ``interval_chart``: one row per contender, its point and 95 % interval, its placement beside it
  and medals coloured;
- ``line_chart``: values over a sequence (epochs), each line with an optional interval band, optional
  reference lines, a strip of labelled segments above (who held a title) and markers (events);
- ``matrix_chart``: a head-to-head matrix, each cell the row's score against the column and the games;
- ``calibration_chart``: stated probability against the share that came true, dots sized by n.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Final

from colosseum_core.site.svg import escape, number

CHARTS_VERSION: Final = "COLOSSEUM-CHARTS-1"
PALETTE: Final = ("#2b59c3", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#16a085", "#6b6b6b", "#b8860b")
MEDAL_COLOURS: Final = {"gold": "#c9a227", "silver": "#8a8f98", "bronze": "#b0703c"}
POINT_COLOUR: Final = "#2b59c3"
INK, MUTED, GRID, PANEL = "#222222", "#555555", "#e2e2e8", "#f7f7f9"
CHAR_WIDTH: Final = 0.58  # of the font size: a label is cut to what fits its column
LABEL_LEAST, LABEL_MOST = 110, 200  # an interval chart's label column, in pixels


_n = number  # every coordinate with two decimals, as the site's other plots


def _panel(left: float, top: float, width: float, height: float) -> str:
    size = f'width="{_n(width)}" height="{_n(height)}"'
    return f'<rect x="{_n(left)}" y="{_n(top)}" {size} fill="{PANEL}" stroke="#cccccc"/>'


def _segment(x1: float, y1: float, x2: float, y2: float, stroke: str = GRID, extra: str = "") -> str:
    return f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}"{extra}/>'


def _text(x: float, y: float, content: str, *, anchor: str = "", fill: str = MUTED, extra: str = "") -> str:
    """``content`` is already escaped."""
    anchored = f' text-anchor="{anchor}"' if anchor else ""
    return f'<text x="{_n(x)}" y="{_n(y)}"{anchored} fill="{fill}"{extra}>{content}</text>'


def fit(text: str, width: float, size: float = 12) -> str:
    """``text`` cut to what fits ``width`` pixels at ``size``, with an ellipsis where it was cut."""
    room = max(1, int(width / (size * CHAR_WIDTH)))
    return text if len(text) <= room else text[: max(1, room - 1)] + "…"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` ticks between ``low`` and ``high`` at steps of 1, 2 or 5 × 10ⁿ."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [round(k * step, 10) for k in range(first, last + 1)]


def tick_text(value: float) -> str:
    """A tick's label: as few decimals as its value needs, a true minus sign."""
    text = f"{value:.10f}".rstrip("0").rstrip(".")
    text = "0" if text in ("-0", "") else text
    return text.replace("-", "−")


def figure(ident: str, title: str, description: str, width: int, height: int, body: Sequence[str]) -> str:
    """A chart as a page holds it: a captioned figure, its SVG scaled to the page's width."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-labelledby="{escape(ident)}-t {escape(ident)}-d" '
        'font-family="system-ui, -apple-system, \'Segoe UI\', sans-serif" font-size="12">'
    )
    return "\n".join(
        [
            f'<figure class="chart" id="{escape(ident)}">',
            f"<figcaption>{escape(title)}</figcaption>",
            head,
            f'<title id="{escape(ident)}-t">{escape(title)}</title>',
            f'<desc id="{escape(ident)}-d">{escape(description)}</desc>',
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
            *body,
            "</svg>",
            "</figure>",
        ]
    )


@dataclasses.dataclass(frozen=True)
class Interval:
    """One contender's row: who, the point and its 95 % interval (None: nothing counted), its place."""

    label: str
    point: float | None
    low: float | None
    high: float | None
    place: str = ""  # "1", "2", … or "" for none
    medal: str = ""  # "gold", "silver", "bronze": the row is coloured so; a place alone is not a medal


def _domain(values: Sequence[float], reference: Sequence[float] = ()) -> tuple[float, float]:
    finite = [v for v in (*values, *reference) if v is not None and math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    pad = (high - low) * 0.06 or max(abs(low) * 0.1, 1.0)
    return low - pad, high + pad


def interval_chart(
    ident: str,
    title: str,
    rows: Sequence[Interval],
    *,
    axis: str,
    digits: int = 1,
    reference: float | None = None,
    reference_label: str = "",
    domain: tuple[float, float] | None = None,
) -> str:
    """One row per contender, best first as given: a dot at the point, a bar over the interval, the
    place in the first column (medals coloured). ``reference``: a vertical line (0 for a difference)."""
    # A label "player, what it stands for" is written on two lines, the player first: the picture
    # stays narrow enough to read on a phone.
    lines = [_label_lines(r.label) for r in rows]
    two_lines = any(second for _, second in lines)
    row_h, bottom = (32 if two_lines else 24), 40
    top = 26 if reference_label else 12  # room above the plot for the reference line's name
    # The label column as wide as the longest line needs, within bounds.
    place_w, right, plot_w = 34, 18, 260
    longest = max((max(len(a) * 12, len(b) * 10) for a, b in lines), default=96)
    label_w = int(min(LABEL_MOST, max(LABEL_LEAST, longest * CHAR_WIDTH + 12)))
    left = place_w + label_w
    width = left + plot_w + right
    height = top + row_h * max(1, len(rows)) + bottom
    low, high = domain or _domain(
        [v for r in rows for v in (r.point, r.low, r.high) if v is not None],
        [reference] if reference is not None else [],
    )

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot_w

    plot_h = row_h * max(1, len(rows))
    body = [
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="{PANEL}" stroke="#cccccc"/>'
    ]
    for tick in nice_ticks(low, high):
        body.append(
            f'<line x1="{_n(x(tick))}" y1="{top}" x2="{_n(x(tick))}" y2="{top + plot_h}" stroke="{GRID}"/>'
        )
        body.append(
            f'<text x="{_n(x(tick))}" y="{top + plot_h + 15}" text-anchor="middle" fill="{MUTED}">'
            f"{escape(tick_text(tick))}</text>"
        )
    if reference is not None and low <= reference <= high:
        body.append(
            f'<line x1="{_n(x(reference))}" y1="{top}" x2="{_n(x(reference))}" y2="{top + plot_h}" '
            f'stroke="#888888" stroke-dasharray="4 3"/>'
        )
        if reference_label:
            body.append(_text(x(reference), top - 6, escape(reference_label), anchor="middle"))
    body.append(_text(left + plot_w / 2, height - 8, escape(axis), anchor="middle", fill=INK))
    said = []
    for i, row in enumerate(rows):
        y = top + row_h * i + row_h / 2
        medal = MEDAL_COLOURS.get(row.medal, "")
        body.append(
            f'<text x="{place_w - 8}" y="{_n(y + 4)}" text-anchor="end" fill="{INK}" font-weight="600">'
            f"{escape(row.place or '–')}</text>"
        )
        first, second = lines[i]
        body.append(
            f'<text x="{place_w}" y="{_n(y + (-1 if second else 4))}" fill="{INK}"><title>{escape(row.label)}'
            f"</title>{escape(fit(first, label_w - 8))}</text>"
        )
        if second:
            body.append(_text(place_w, y + 11, escape(fit(second, label_w - 8, 10)), extra=' font-size="10"'))
        if row.point is None or row.low is None or row.high is None:
            body.append(f'<text x="{left + 6}" y="{_n(y + 4)}" fill="{MUTED}">nothing counted</text>')
            said.append(f"{row.label}: nothing counted, no placement")
            continue
        colour = medal or POINT_COLOUR
        body.append(
            f'<line x1="{_n(x(row.low))}" y1="{_n(y)}" x2="{_n(x(row.high))}" y2="{_n(y)}" '
            f'stroke="{colour}" stroke-width="3" stroke-linecap="round"/>'
        )
        body.append(
            f'<circle cx="{_n(x(row.point))}" cy="{_n(y)}" r="5" fill="{colour}" stroke="{INK}" '
            'stroke-width="1"/>'
        )
        place = f", placement {row.place}" if row.place else ", no placement"
        place += f", {row.medal}" if row.medal else ""
        said.append(
            f"{row.label}: {row.point:.{digits}f} [{row.low:.{digits}f}, {row.high:.{digits}f}]{place}"
        )
    if reference is not None and reference_label:
        said.append(f"the dashed line: {reference_label}, at {tick_text(reference)}")
    description = f"{title}. {axis}, point and 95 % interval: " + "; ".join(said) + "."
    return figure(ident, title, description, width, height, body)


def _label_lines(label: str) -> tuple[str, str]:
    """A label on one line, or, when it reads "player, what it stands for", on two."""
    first, comma, second = label.partition(", ")
    return (first, second) if comma and first and second else (label, "")


@dataclasses.dataclass(frozen=True)
class Line:
    """A line over the chart's x positions; ``low``/``high`` draw its band where both are given."""

    name: str
    values: Sequence[float | None]
    low: Sequence[float | None] | None = None
    high: Sequence[float | None] | None = None
    dashed: bool = False


@dataclasses.dataclass(frozen=True)
class Segment:
    """A labelled stretch of the strip above the plot, from x position ``start`` to ``end`` inclusive."""

    label: str
    start: int
    end: int


def _runs(values: Sequence[float | None]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i, v in enumerate(values):
        if v is None or not math.isfinite(v):
            continue
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def line_chart(
    ident: str,
    title: str,
    x_labels: Sequence[str],
    lines: Sequence[Line],
    *,
    axis: str,
    x_axis: str = "epoch",
    references: Sequence[tuple[float, str]] = (),
    strip: Sequence[Segment] = (),
    strip_label: str = "",
    markers: Sequence[tuple[int, str]] = (),
    notes: Sequence[str] = (),
) -> str:
    """Values over ``x_labels`` (one position per label), each line in its palette colour, its band
    shaded; ``references`` horizontal dashed lines; ``strip`` the segments above the plot;
    ``markers`` vertical lines at positions; ``notes`` sentences appended to the text alternative."""
    width, left, right = 480, 52, 16
    strip_h = 26 if strip else 0
    top = 14 + strip_h
    # The legend in two columns when every name fits half the width, else one name per row.
    columns = (
        2 if all(len(line.name) * 12 * CHAR_WIDTH <= (width - 52 - 16) / 2 - 30 for line in lines) else 1
    )
    legend_h = 18 * math.ceil(len(lines) / columns) if lines else 0
    plot_h = 190
    height = top + plot_h + 44 + legend_h
    plot_w = width - left - right
    count = max(1, len(x_labels))
    values = [
        v
        for line in lines
        for seq in (line.values, line.low or (), line.high or ())
        for v in seq
        if v is not None and math.isfinite(v)
    ]
    low, high = _domain(values, [r for r, _ in references])

    def x(i: int) -> float:
        return left + (plot_w / 2 if count == 1 else i / (count - 1) * plot_w)

    def y(value: float) -> float:
        return top + (1 - (value - low) / (high - low)) * plot_h

    body = [
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="{PANEL}" stroke="#cccccc"/>'
    ]
    for tick in nice_ticks(low, high):
        body.append(
            f'<line x1="{left}" y1="{_n(y(tick))}" x2="{left + plot_w}" y2="{_n(y(tick))}" stroke="{GRID}"/>'
        )
        body.append(
            f'<text x="{left - 6}" y="{_n(y(tick) + 4)}" text-anchor="end" fill="{MUTED}">'
            f"{escape(tick_text(tick))}</text>"
        )
    # As many labels as fit side by side at their length, the first and last always among them.
    longest = max((len(label) for label in x_labels), default=1)
    shown = _label_positions(count, max(2, int(plot_w // (longest * 11 * CHAR_WIDTH + 12))))
    for i in shown:
        # The first and last labels hang inward, so a long label stays inside the picture.
        anchor = "start" if i == 0 and count > 1 else "end" if i == count - 1 and count > 1 else "middle"
        label = escape(fit(x_labels[i], plot_w / max(1, len(shown)), 11))
        body.append(_text(x(i), top + plot_h + 15, label, anchor=anchor))
    body.append(
        f'<text x="{_n(left + plot_w / 2)}" y="{top + plot_h + 32}" text-anchor="middle" fill="{INK}">'
        f"{escape(x_axis)}</text>"
    )
    body.append(
        f'<text transform="translate(12 {_n(top + plot_h / 2)}) rotate(-90)" text-anchor="middle" '
        f'fill="{INK}">{escape(axis)}</text>'
    )
    for value, label in references:
        if low <= value <= high:
            body.append(
                f'<line x1="{left}" y1="{_n(y(value))}" x2="{left + plot_w}" y2="{_n(y(value))}" '
                'stroke="#888888" stroke-dasharray="5 3"/>'
            )
            body.append(
                f'<text x="{left + plot_w - 4}" y="{_n(y(value) - 4)}" text-anchor="end" fill="{MUTED}">'
                f"{escape(label)}</text>"
            )
    said: list[str] = []
    for position, label in markers:
        body.append(
            f'<line x1="{_n(x(position))}" y1="{top}" x2="{_n(x(position))}" y2="{top + plot_h}" '
            'stroke="#d35400" stroke-width="1.5"/>'
        )
        # A marker in the right part of the plot names itself to its left, so the name is never cut.
        leftward = x(position) > left + plot_w * 0.6
        at = x(position) - 3 if leftward else x(position) + 3
        body.append(_text(at, top + 12, escape(label), anchor="end" if leftward else "", fill="#d35400"))
        said.append(f"{label} at {x_labels[position]}")
    for k, segment in enumerate(strip):
        x0 = x(segment.start) - (plot_w / (2 * (count - 1)) if count > 1 and segment.start else 0)
        x1 = x(segment.end) + (plot_w / (2 * (count - 1)) if count > 1 and segment.end < count - 1 else 0)
        if count == 1:
            x0, x1 = left, left + plot_w
        colour = PALETTE[k % len(PALETTE)] if segment.label else "#dddddd"
        body.append(
            f'<rect x="{_n(x0)}" y="10" width="{_n(max(1.0, x1 - x0))}" height="{strip_h - 8}" '
            f'fill="{colour}" fill-opacity="0.25" stroke="{colour}">'
            f"<title>{escape(segment.label or 'nobody')}, "
            f"{escape(x_labels[segment.start])} to {escape(x_labels[segment.end])}</title></rect>"
        )
        body.append(
            f'<text x="{_n(x0 + 3)}" y="{10 + strip_h - 13}" fill="{INK}">'
            f"{escape(fit(segment.label or 'nobody', max(8.0, x1 - x0 - 6), 11))}</text>"
        )
    if strip:
        said.append(
            f"{strip_label or 'Above'}: "
            + "; ".join(f"{s.label or 'nobody'} from {x_labels[s.start]} to {x_labels[s.end]}" for s in strip)
        )
    for k, line in enumerate(lines):
        colour = PALETTE[k % len(PALETTE)]
        if line.low is not None and line.high is not None:
            banded = [
                0.0 if lo is not None and hi is not None else None
                for lo, hi in zip(line.low, line.high, strict=True)
            ]
            for run in _runs(banded):
                upper = [f"{_n(x(i))},{_n(y(float(line.high[i])))}" for i in run]  # type: ignore[arg-type]
                lower = [f"{_n(x(i))},{_n(y(float(line.low[i])))}" for i in reversed(run)]  # type: ignore[arg-type]
                if len(run) == 1:
                    i = run[0]
                    body.append(
                        f'<line x1="{_n(x(i))}" y1="{_n(y(float(line.low[i])))}" x2="{_n(x(i))}" '  # type: ignore[arg-type]
                        f'y2="{_n(y(float(line.high[i])))}" stroke="{colour}" stroke-opacity="0.35" '  # type: ignore[arg-type]
                        'stroke-width="8"/>'
                    )
                else:
                    body.append(
                        f'<polygon points="{" ".join(upper + lower)}" fill="{colour}" fill-opacity="0.15"/>'
                    )
        dash = ' stroke-dasharray="6 3"' if line.dashed else ""
        for run in _runs(line.values):
            points = " ".join(f"{_n(x(i))},{_n(y(float(line.values[i])))}" for i in run)  # type: ignore[arg-type]
            if len(run) > 1:
                body.append(
                    f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>'
                )
            for i in run:
                body.append(
                    f'<circle cx="{_n(x(i))}" cy="{_n(y(float(line.values[i])))}" r="3" fill="{colour}"/>'  # type: ignore[arg-type]
                )
        said.append(f"{line.name}: " + _series_words(x_labels, line))
    legend_top = top + plot_h + 44
    for k, line in enumerate(lines):
        colour = PALETTE[k % len(PALETTE)]
        lx = left + (k % columns) * (plot_w / columns)
        ly = legend_top + 18 * (k // columns)
        dash = ' stroke-dasharray="6 3"' if line.dashed else ""
        body.append(
            f'<line x1="{_n(lx)}" y1="{ly - 4}" x2="{_n(lx + 18)}" y2="{ly - 4}" stroke="{colour}" '
            f'stroke-width="2"{dash}/>'
        )
        body.append(_text(lx + 24, ly, escape(fit(line.name, plot_w / columns - 30)), fill=INK))
    for value, label in references:
        said.append(f"{label} at {tick_text(value)}")
    description = f"{title}. {axis} by {x_axis}. " + ". ".join([*said, *notes]) + "."
    return figure(ident, title, description, width, height, body)


def _label_positions(count: int, most: int = 8) -> list[int]:
    """The x positions that get a label: all of them, or an even spread with the first and last."""
    if count <= most:
        return list(range(count))
    step = math.ceil((count - 1) / (most - 1))
    shown = list(range(0, count, step))
    return shown if shown[-1] == count - 1 else [*shown[:-1], count - 1]


def _series_words(x_labels: Sequence[str], line: Line) -> str:
    parts = []
    for i, value in enumerate(line.values):
        if value is None:
            continue
        text = f"{x_labels[i]} {value:.1f}"
        if (
            line.low is not None
            and line.high is not None
            and line.low[i] is not None
            and line.high[i] is not None
        ):
            text += f" [{float(line.low[i]):.1f}, {float(line.high[i]):.1f}]"  # type: ignore[arg-type]
        parts.append(text)
    return ", ".join(parts) or "no value"


@dataclasses.dataclass(frozen=True)
class Cell:
    """The row's result against the column: its score (share of the points, 0–1) over ``games``."""

    score: float
    games: int


def _share_colour(share: float) -> str:
    """Red (0) through white (½) to blue (1)."""
    share = min(1.0, max(0.0, share))
    low, mid, high = (192, 57, 43), (255, 255, 255), (43, 89, 195)
    a, b, t = (low, mid, share * 2) if share < 0.5 else (mid, high, share * 2 - 1)
    return "#" + "".join(f"{round(a[c] + (b[c] - a[c]) * t):02x}" for c in range(3))


def matrix_chart(
    ident: str,
    title: str,
    labels: Sequence[str],
    cells: Mapping[tuple[int, int], Cell],
    *,
    what: str = "score of the row against the column",
) -> str:
    """A head-to-head matrix: row i against column j, its score (share of the points) and games;
    columns are numbered as the rows, so the labels fit a narrow page."""
    count = len(labels)
    label_w, head_h = 190, 26
    cell = max(30, min(56, (560 - label_w - 10) // max(1, count)))
    width = max(380, label_w + cell * max(1, count) + 10)
    height = head_h + cell * max(1, count) + 30
    body = []
    for j in range(count):
        body.append(
            f'<text x="{_n(label_w + cell * j + cell / 2)}" y="{head_h - 8}" text-anchor="middle" '
            f'fill="{MUTED}" font-weight="600">{j + 1}</text>'
        )
    said = []
    for i, label in enumerate(labels):
        y0 = head_h + cell * i
        body.append(
            f'<text x="4" y="{_n(y0 + cell / 2 + 4)}" fill="{INK}"><title>{escape(label)}</title>'
            f"{i + 1} {escape(fit(label, label_w - 26))}</text>"
        )
        for j in range(count):
            x0 = label_w + cell * j
            found = cells.get((i, j))
            if i == j or found is None or found.games == 0:
                body.append(
                    f'<rect x="{x0}" y="{y0}" width="{cell}" height="{cell}" fill="#f0f0f0" '
                    'stroke="#ffffff"/>'
                )
                continue
            body.append(
                f'<rect x="{x0}" y="{y0}" width="{cell}" height="{cell}" fill="{_share_colour(found.score)}" '
                f'stroke="#ffffff"><title>{escape(label)} against {escape(labels[j])}: '
                f"{found.score:.2f} of the points in {found.games} games</title></rect>"
            )
            # A deep cell (far from one half) is written in white, so its figures stay readable.
            ink, muted = ("#ffffff", "#ffffff") if abs(found.score - 0.5) > 0.3 else (INK, MUTED)
            body.append(
                _text(x0 + cell / 2, y0 + cell / 2 + 1, f"{found.score:.2f}", anchor="middle", fill=ink)
            )
            body.append(
                _text(
                    x0 + cell / 2,
                    y0 + cell / 2 + 13,
                    f"n {found.games}",
                    anchor="middle",
                    fill=muted,
                    extra=' font-size="10"',
                )
            )
            said.append(f"{label} against {labels[j]}: {found.score:.2f} in {found.games} games")
    body.append(
        f'<text x="4" y="{height - 8}" fill="{MUTED}">Blue: the row scored over half; red: under half.</text>'
    )
    description = (
        f"{title}. Each cell is the {what}, with its games: " + ("; ".join(said) or "no games") + "."
    )
    return figure(ident, title, description, width, height, body)


@dataclasses.dataclass(frozen=True)
class CalibrationPoint:
    """A bin of stated probabilities: the mean stated, the share that came true, how many."""

    stated: float
    share: float
    n: int


def calibration_chart(
    ident: str,
    title: str,
    points: Sequence[CalibrationPoint],
    *,
    x_axis: str,
    y_axis: str,
) -> str:
    """Stated probability (0–1) against the share that came true, a dot per bin sized by its n, the
    diagonal of perfect calibration dashed."""
    width, height = 320, 300
    left, right, top, bottom = 48, 14, 14, 44
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(p: float) -> float:
        return left + p * plot_w

    def y(p: float) -> float:
        return top + (1 - p) * plot_h

    body = [
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="{PANEL}" stroke="#cccccc"/>'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        body.append(
            f'<line x1="{_n(x(tick))}" y1="{top}" x2="{_n(x(tick))}" y2="{top + plot_h}" stroke="{GRID}"/>'
        )
        body.append(
            f'<line x1="{left}" y1="{_n(y(tick))}" x2="{left + plot_w}" y2="{_n(y(tick))}" stroke="{GRID}"/>'
        )
        body.append(
            f'<text x="{_n(x(tick))}" y="{top + plot_h + 14}" text-anchor="middle" fill="{MUTED}">'
            f"{tick_text(tick)}</text>"
        )
        body.append(_text(left - 5, y(tick) + 4, tick_text(tick), anchor="end"))
    body += [
        f'<line x1="{_n(x(0))}" y1="{_n(y(0))}" x2="{_n(x(1))}" y2="{_n(y(1))}" stroke="#888888" '
        'stroke-dasharray="4 3"/>',
        _text(left + plot_w / 2, height - 10, escape(x_axis), anchor="middle", fill=INK),
        f'<text transform="translate(12 {_n(top + plot_h / 2)}) rotate(-90)" text-anchor="middle" '
        f'fill="{INK}">{escape(y_axis)}</text>',
    ]
    most = max((p.n for p in points), default=1)
    said = []
    for p in points:
        radius = 3 + 7 * math.sqrt(p.n / most)
        body.append(
            f'<circle cx="{_n(x(p.stated))}" cy="{_n(y(p.share))}" r="{_n(radius)}" fill="{POINT_COLOUR}" '
            f'fill-opacity="0.6" stroke="{INK}" stroke-width="0.8"><title>stated {p.stated:.2f}: '
            f"{p.share:.2f} of {p.n}</title></circle>"
        )
        said.append(f"stated {p.stated:.2f}: {p.share:.2f} of {p.n}")
    if not points:
        body.append(
            f'<text x="{_n(left + plot_w / 2)}" y="{_n(top + plot_h / 2)}" text-anchor="middle" '
            f'fill="{MUTED}">nothing stated yet</text>'
        )
    description = f"{title}. {x_axis} against {y_axis}, per bin: " + ("; ".join(said) or "none") + "."
    return figure(ident, title, description, width, height, body)
