"""The ranking: every question still standing after the screening rules, by doubt at the seal.

Order, most doubtful first:
1. doubt in bits, descending. Compared exactly: doubt is a strictly increasing function of the
   price's distance from the nearer certainty, which is an integer (``pricing.certainty_gap``), so
   "equal doubt" is an exact integer tie and never an accident of float rounding (p and 1 − p tie).
2. event interest, descending: "the one with more money behind its price ranks first".
3. market id, ascending, in numeric order when ids are digits (Gamma ids are numeric strings, and
   "99" ranks before "100"). Digit ids come before any other id; other ids, which Gamma does not
   publish, follow in code-point order. Leading zeros do not change a number; "007" and "7" then
   fall back to plain text order.
4. Should two rows still tie (one market id twice, which the copy never writes), event id and then
   question text decide, so the ranking never depends on the order rows arrived in.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.forecast.selection.pricing import certainty_gap

_DIGITS: Final = r"^[0-9]+$"


def id_order(column: str = "market_id") -> tuple[list[pl.Expr], list[bool]]:
    """Sort keys (and their ``descending`` flags) that order ids numerically when they are digits."""
    ident = pl.col(column)
    digits = ident.str.contains(_DIGITS).fill_null(False)
    significant = ident.str.strip_chars_start("0")
    keys = [
        ~digits,
        pl.when(digits).then(significant.str.len_bytes()).otherwise(0),
        pl.when(digits).then(significant).otherwise(ident),
        ident,
    ]
    return keys, [False] * len(keys)


def rank_by_doubt(standing: pl.DataFrame) -> pl.DataFrame:
    """``standing`` sorted most doubtful first, with ``rank`` 1..n (Int64).

    Reads ``price_units``, ``interest``, ``market_id``, ``event_id`` and ``question``.
    """
    ids, ids_descending = id_order("market_id")
    keys = [
        certainty_gap(pl.col("price_units")),
        pl.col("interest"),
        *ids,
        pl.col("event_id"),
        pl.col("question"),
    ]
    descending = [True, True, *ids_descending, False, False]
    ranked = standing.sort(keys, descending=descending, nulls_last=True, maintain_order=True)
    return ranked.with_columns(rank=pl.int_range(1, ranked.height + 1, dtype=pl.Int64))
