"""Plots written as SVG by hand at build time, for every arena: no script, no font, nothing fetched.

Coordinates are written with two decimals so the same data always gives the same bytes. A number a
plot shows from the record is marked as on a page (``data-table``/``data-id``/``data-field`` on its
``<text>``), and a re-check reads it back (``check.svg_problems``).
"""

from __future__ import annotations

import math
from typing import Final

from colosseum_core.site.formats import escape_html

FONT: Final = "font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\""


def escape(value: object) -> str:
    # An SVG image shows no styled escape, and XML may not hold most controls at all: the bare label.
    return escape_html(value, attribute=True)


def number(value: float) -> str:
    return f"{value:.2f}"


def svg_document(width: int, height: int, title: str, description: str, body: list[str]) -> str:
    """A whole SVG image with its accessible title and description, on a white ground."""
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


def empty_message(width: int, height: int, message: str) -> str:
    """What a plot with nothing to show says, in its middle."""
    return (
        f'<text x="{width / 2:.2f}" y="{height / 2:.2f}" text-anchor="middle" fill="#555555" '
        f'font-size="14">{escape(message)}</text>'
    )


def ticks(low: float, high: float) -> list[int]:
    """Whole-number axis ticks between ``low`` and ``high``, about five, at steps of 1, 2 or 5 × 10ⁿ."""
    span = high - low
    raw = span / 5
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    step = max(1, int(step))
    first = math.ceil(low / step) * step
    return list(range(int(first), math.floor(high) + 1, step))
