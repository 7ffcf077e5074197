"""How every published value is written: one function per kind of field, shared by the builder and the check.

The site check re-reads each ``data-table``/``data-id``/``data-field`` element of the built pages,
looks the row up in the record and formats the record's value with ``format_field``; the text must
match exactly. So a value is only ever turned into text here.

A field named ``column.key`` reads ``key`` of the JSON object stored as text in ``column`` (the
``settings`` and ``format_record`` columns of ``answers``); a field of several names separated by
spaces (``call confidence``) is each value's text, joined by one space.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable, Mapping
from typing import Any, Final

NULL: Final = "—"

Formatter = Callable[[Any], str]


def text(value: Any) -> str:
    return NULL if value is None else str(value)


def integer(value: Any) -> str:
    return NULL if value is None else str(int(value))


def signed(value: Any) -> str:
    """RECORD and CROWN: the sign is the point (+3, -2, 0)."""
    if value is None:
        return NULL
    return "0" if value == 0 else f"{int(value):+d}"


def fixed(digits: int, *, plus: bool = False) -> Formatter:
    def write(value: Any) -> str:
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return NULL
        return f"{value:+.{digits}f}" if plus else f"{value:.{digits}f}"

    return write


def price(value: Any) -> str:
    """Dollars; prices are whole half-micro-dollars, so seven decimals hold any of them exactly."""
    if value is None:
        return NULL
    written = f"{value:.7f}".rstrip("0")
    return written + "0" if written.endswith(".") else written


def money(value: Any) -> str:
    return NULL if value is None else f"${value:,.0f}"


def yes_no(value: Any) -> str:
    return NULL if value is None else ("yes" if value else "no")


def flag(word: str) -> Formatter:
    """A flag printed as its word when set (EARLY, BAD FORMATTING), a dash when not."""

    def write(value: Any) -> str:
        return word if value else NULL

    return write


def choice(when_true: str, when_false: str) -> Formatter:
    def write(value: Any) -> str:
        return NULL if value is None else (when_true if value else when_false)

    return write


def outcome(value: Any) -> str:
    """Settlement outcomes are 1 when YES settled, 0 when NO did."""
    return {1: "YES", 0: "NO"}.get(value, NULL) if value is not None else NULL


def instant(value: Any) -> str:
    """UTC instants as the record's identifiers write them: ISO 8601 with Z."""
    if value is None:
        return NULL
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    return str(value)


def day(value: Any) -> str:
    return NULL if value is None else value.isoformat() if isinstance(value, dt.date) else str(value)


def sequence(value: Any) -> str:
    if value is None:
        return NULL
    return ", ".join(str(v) for v in value) if len(value) else NULL


def json_value(value: Any) -> str:
    """A value inside a JSON column: strings as they are (OMITTED), numbers as JSON writes them."""
    if value is None:
        return NULL
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {json_value(v)}" for k, v in value.items()) or NULL
    if isinstance(value, list | tuple):
        return "; ".join(json_value(v) for v in value) or NULL
    return json.dumps(value)


def general(value: Any) -> str:
    """Fields without a kind of their own, by the type of the value."""
    if value is None:
        return NULL
    if isinstance(value, str):  # the most common, first
        return value
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, int):
        return integer(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.datetime):
        return instant(value)
    if isinstance(value, dt.date):
        return day(value)
    if isinstance(value, list | tuple):
        return sequence(value)
    return str(value)


SHARP: Final = fixed(1)
EDGE: Final = fixed(4, plus=True)
BRIER: Final = fixed(4)
PROBABILITY: Final = fixed(2)
RATE: Final = fixed(3)
GAP: Final = fixed(3, plus=True)
BITS: Final = fixed(3)

FIELD_KINDS: Final[dict[str, Formatter]] = {
    "sharp": SHARP,
    "sharp_low": SHARP,
    "sharp_high": SHARP,
    "edge": EDGE,
    "edge_low": EDGE,
    "edge_high": EDGE,
    "record": signed,
    "crown": signed,
    "brier": BRIER,
    "market_brier": BRIER,
    "p": PROBABILITY,
    "stated": PROBABILITY,
    "hit_rate": RATE,
    "gap": GAP,
    "price": price,
    "market_price": price,
    "doubt_bits": BITS,
    "total_doubt_bits": BITS,
    "interest": money,
    "early": flag("EARLY"),
    "interval_extended": flag("extended"),
    "outcome": outcome,
    "settled_outcome": outcome,
    "observed_outcome": outcome,
    "sweep_complete": choice("complete", "partial"),
    "complete": choice("complete", "partial"),
    "seal": instant,
    "end_date_ts": instant,
    "window_start": instant,
    "window_end": instant,
}
# Where one name means different things in different tables.
TABLE_FIELD_KINDS: Final[dict[tuple[str, str], Formatter]] = {
    ("answers", "bad_formatting"): flag("BAD FORMATTING"),
    ("scores", "bad_formatting"): flag("BAD FORMATTING"),
    ("scores", "forfeit"): flag("FORFEIT"),
}


def formatter(table: str, field: str) -> Formatter:
    if "." in field:
        return json_value
    return TABLE_FIELD_KINDS.get((table, field)) or FIELD_KINDS.get(field) or general


def field_value(row: Mapping[str, Any], field: str) -> Any:
    """The value of ``field`` in ``row``; ``column.key`` reads a key of a JSON-text column."""
    column, _, key = field.partition(".")
    value = row[column]
    if not key:
        return value
    if value is None:
        return None
    document = json.loads(value) if isinstance(value, str) else value
    return document.get(key) if isinstance(document, Mapping) else None


def format_field(table: str, field: str, row: Mapping[str, Any]) -> str:
    """The text of ``field`` of ``row``; several fields separated by spaces are joined by one space."""
    if " " in field:
        return " ".join(formatter(table, f)(field_value(row, f)) for f in field.split(" "))
    return formatter(table, field)(field_value(row, field))


def plain(value: Any) -> Any:
    """A record value as JSON: the same mapping the row identifiers use (RFC 8785 input)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dt.datetime):
        return instant(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
