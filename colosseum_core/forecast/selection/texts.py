"""How a verdict writes the number that decided it: polars expressions that build the value text.

A value is read by people auditing a card, so it must be exact where the rule was exact: an end
96 h + 1 s after the seal must not read "96.0 h" alone, and an interest of $2,499.996 that missed
the floor must not read "$2,500.00". Every helper is an expression, so a card's texts are built
in one columnar pass, never row by row in Python.
"""

from __future__ import annotations

from typing import Final

import polars as pl

_MICROS_PER_SECOND: Final = 1_000_000
_MICROS_PER_MINUTE: Final = 60 * _MICROS_PER_SECOND
_MICROS_PER_HOUR: Final = 60 * _MICROS_PER_MINUTE
_MICROS_PER_TENTH_HOUR: Final = _MICROS_PER_HOUR // 10


def number_text(value: pl.Expr) -> pl.Expr:
    """A published float as polars spells it: ``1.7``, ``-0.2``, ``NaN``, ``1e+20``."""
    return value.cast(pl.String)


def quoted_list_text(values: pl.Expr) -> pl.Expr:
    """A list of strings as ``["Up", "Down"]`` (quotes and backslashes escaped, as in JSON)."""
    escaped = values.list.eval(pl.element().str.replace_all(r'(["\\])', r"\$1"))
    joined = pl.lit('["') + escaped.list.join('", "') + pl.lit('"]')
    return pl.when(values.list.len() == 0).then(pl.lit("[]")).otherwise(joined)


def instant_text(instant: pl.Expr) -> pl.Expr:
    """A UTC instant as ISO 8601 with ``Z``; the fraction of a second only when there is one."""
    return instant.dt.convert_time_zone("UTC").dt.strftime("%Y-%m-%dT%H:%M:%S%.fZ")


def _digits(value: pl.Expr, width: int) -> pl.Expr:
    return value.cast(pl.String).str.zfill(width)


def clock_text(micros: pl.Expr) -> pl.Expr:
    """A non-negative duration in µs as ``H:MM:SS``, with ``.ffffff`` (trailing zeros dropped) if any."""
    hours = micros // _MICROS_PER_HOUR
    minutes = (micros // _MICROS_PER_MINUTE) % 60
    seconds = (micros // _MICROS_PER_SECOND) % 60
    fraction = micros % _MICROS_PER_SECOND
    whole = pl.concat_str(
        hours.cast(pl.String), pl.lit(":"), _digits(minutes, 2), pl.lit(":"), _digits(seconds, 2)
    )
    return (
        pl.when(fraction == 0)
        .then(whole)
        .otherwise(whole + pl.lit(".") + _digits(fraction, 6).str.strip_chars_end("0"))
    )


def hours_text(micros: pl.Expr) -> pl.Expr:
    """A non-negative duration in µs as hours to one decimal (``101.5 h``).

    When one decimal is not exact, it is truncated toward zero and the exact clock time follows,
    ``96.0 h (96:00:01)``, so a duration just past a boundary never reads as the boundary itself.
    """
    tenths = micros // _MICROS_PER_TENTH_HOUR
    rounded = pl.concat_str(
        (tenths // 10).cast(pl.String), pl.lit("."), (tenths % 10).cast(pl.String), pl.lit(" h")
    )
    return (
        pl.when(micros % _MICROS_PER_TENTH_HOUR == 0)
        .then(rounded)
        .otherwise(pl.concat_str(rounded, pl.lit(" ("), clock_text(micros), pl.lit(")")))
    )


def thousands_text(whole: pl.Expr) -> pl.Expr:
    """A non-negative integer with comma thousands separators: ``1840`` → ``1,840``."""
    # Group digits from the right by reversing, grouping from the left, and reversing back.
    return (
        whole.cast(pl.String)
        .str.reverse()
        .str.replace_all(r"(\d{3})", "${1},")
        .str.strip_chars_end(",")
        .str.reverse()
    )


def dollars_text(cents: pl.Expr) -> pl.Expr:
    """Whole cents as ``$1,840.00`` (``-$5.00`` below zero)."""
    magnitude = cents.abs()
    text = pl.concat_str(
        pl.lit("$"), thousands_text(magnitude // 100), pl.lit("."), _digits(magnitude % 100, 2)
    )
    return pl.when(cents < 0).then(pl.lit("-") + text).otherwise(text)


def fixed3_text(value: pl.Expr) -> pl.Expr:
    """A non-negative float to exactly three decimals: ``0.993``, ``1.000``."""
    thousandths = (value * 1000).round(0).cast(pl.Int64, strict=False)
    return pl.concat_str((thousandths // 1000).cast(pl.String), pl.lit("."), _digits(thousandths % 1000, 3))
