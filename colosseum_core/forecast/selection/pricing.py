"""Polymarket's own published price at a card's seal, and the doubt it carries, in bits.

The price rule (docs/decisions.md): the bid/ask midpoint when both sides of the book exist and the
spread is at most $0.10; else the last trade price; else the listed outcome price (the Yes price,
``outcome_prices[0]``). The source is recorded beside the price. The same price feeds the ranking's
doubt and, later, the market's Brier score, so both are computed here and nowhere else.

Exactness. Prices are read at micro-dollar resolution and carried as integers, so no float noise
can decide a rule: ``0.55 - 0.45`` is ``0.10000000000000003`` in floats but exactly 100,000
micro-dollars here, so a $0.10 spread passes and a $0.101 spread does not. A midpoint of two
micro-dollar quotes can land on a half micro-dollar, so the integer price is kept in half
micro-dollars (``PRICE_SCALE`` units per dollar). Polymarket quotes in ticks of at most 4 decimals;
a published number with more than 6 decimals is rounded to the nearest micro-dollar on the way in.

The spread is the distance between the two quotes the midpoint is made of (best ask − best bid),
not Gamma's published ``spread`` field: that field is the same difference when both sides exist,
but it is a separate, independently rounded number (and ``1`` on a dead book), and a midpoint must
never be taken from quotes that a different number declared close enough.

A side of the book, or a last trade, exists only strictly inside (0, 1): the CLOB only trades and
rests orders at prices in [tick, 1 − tick], and Gamma writes ``bestBid: 0``, ``bestAsk: 1`` and
``lastTradePrice: 0`` for "none" (an undeployed placeholder publishes exactly those three). The
listed outcome price is Polymarket's published probability and counts anywhere in [0, 1].
"""

from __future__ import annotations

import math
from typing import Final

import polars as pl

MICROS_PER_DOLLAR: Final = 1_000_000
# Integer price units per dollar: half micro-dollars, so every midpoint of two micro-dollar quotes
# is a whole number of units.
PRICE_SCALE: Final = 2 * MICROS_PER_DOLLAR
MAX_MIDPOINT_SPREAD_MICROS: Final = 100_000  # $0.10, inclusive

MIDPOINT: Final = "midpoint"
LAST_TRADE: Final = "last_trade"
OUTCOME_PRICE: Final = "outcome_price"
PRICE_SOURCES: Final = (MIDPOINT, LAST_TRADE, OUTCOME_PRICE)

# The columns of the verbatim market table the price is read from.
PRICE_INPUTS: Final = ("best_bid", "best_ask", "last_trade_price", "outcome_prices")


def to_micros(dollars: pl.Expr) -> pl.Expr:
    """A dollar amount as whole micro-dollars (Int64); null when it is null or not representable."""
    # strict=False: a when/then evaluates every branch on every row, and a malformed 1e30 must
    # become a null here rather than an overflow error.
    return (dollars * MICROS_PER_DOLLAR).round(0).cast(pl.Int64, strict=False)


def _inside_open_unit(value: pl.Expr) -> pl.Expr:
    return value.is_between(0.0, 1.0, closed="none").fill_null(False)


def _tight_two_sided_book() -> pl.Expr:
    """Both sides exist, are not crossed, and are at most $0.10 apart (compared in micro-dollars)."""
    bid, ask = pl.col("best_bid"), pl.col("best_ask")
    bid_micros, ask_micros = to_micros(bid), to_micros(ask)
    return (
        _inside_open_unit(bid)
        & _inside_open_unit(ask)
        & (bid_micros <= ask_micros).fill_null(False)
        & ((ask_micros - bid_micros) <= MAX_MIDPOINT_SPREAD_MICROS).fill_null(False)
    )


def yes_outcome_price() -> pl.Expr:
    """The listed Yes price, ``outcome_prices[0]`` read as a number (null when absent or not a number)."""
    return (
        pl.col("outcome_prices").list.get(0, null_on_oob=True).cast(pl.Float64, strict=False).fill_nan(None)
    )


def price_units() -> pl.Expr:
    """The price at seal in ``PRICE_SCALE`` units per dollar (Int64), null when no price exists."""
    last = pl.col("last_trade_price")
    listed = yes_outcome_price()
    return (
        pl.when(_tight_two_sided_book())
        .then(to_micros(pl.col("best_bid")) + to_micros(pl.col("best_ask")))
        .when(_inside_open_unit(last))
        .then(2 * to_micros(last))
        .when(listed.is_between(0.0, 1.0).fill_null(False))
        .then(2 * to_micros(listed))
        .otherwise(None)
        .cast(pl.Int64)
    )


def price_source() -> pl.Expr:
    """Which published number the price at seal came from, null when none exists."""
    return (
        pl.when(_tight_two_sided_book())
        .then(pl.lit(MIDPOINT))
        .when(_inside_open_unit(pl.col("last_trade_price")))
        .then(pl.lit(LAST_TRADE))
        .when(yes_outcome_price().is_between(0.0, 1.0).fill_null(False))
        .then(pl.lit(OUTCOME_PRICE))
        .otherwise(None)
        .cast(pl.String)
    )


def certainty_gap(units: pl.Expr) -> pl.Expr:
    """Distance of an integer price from the nearer certainty (0 or 1), in ``PRICE_SCALE`` units.

    Doubt is a strictly increasing function of this gap on [0, ½], so ranking by the gap is ranking
    by doubt, and two prices carry equal doubt exactly when their gaps are equal: p and 1 − p tie
    exactly, with no float rounding between them.
    """
    return pl.min_horizontal(units, PRICE_SCALE - units)


_DECIMALS: Final = 7  # PRICE_SCALE units are 5 × 10⁻⁷ dollars: every price has at most 7 decimals


def units_to_dollars(units: pl.Expr) -> pl.Expr:
    """An integer price in [0, ``PRICE_SCALE``] as the Float64 nearest its exact decimal value.

    Built as decimal text and parsed, not divided: polars divides a column by a constant through a
    reciprocal on some paths and not on others, so ``21000 / 2e6`` can come out as 0.0105 or as
    0.010499999999999999 depending on how the rows arrived, and a published number must not depend
    on that. Parsing decimal text is correctly rounded, always.
    """
    scaled = units * (10**_DECIMALS // PRICE_SCALE)
    whole, fraction = scaled // 10**_DECIMALS, scaled % 10**_DECIMALS
    text = pl.concat_str(whole.cast(pl.String), pl.lit("."), fraction.cast(pl.String).str.zfill(_DECIMALS))
    return text.cast(pl.Float64)


def doubt_bits_from_units(units: pl.Expr) -> pl.Expr:
    """doubt(p) = −p·log₂p − (1−p)·log₂(1−p) in bits, doubt(0) = doubt(1) = 0, for an integer price."""
    # Computed from the gap q ≤ ½ (and 1 − q, both exact decimals parsed as above), so doubt(p) and
    # doubt(1 − p) are the same float, bit for bit, whatever the row order.
    gap = certainty_gap(units)
    q, rest = units_to_dollars(gap), units_to_dollars(PRICE_SCALE - gap)
    entropy = -(q * q.log(2) + rest * rest.log(2))
    return pl.when(gap > 0).then(entropy).when(gap == 0).then(0.0).otherwise(None)


def with_seal_price(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
    """``frame`` plus ``price_units``, ``price`` (Float64 dollars), ``price_source`` and ``doubt_bits``."""
    return frame.with_columns(price_units=price_units(), price_source=price_source()).with_columns(
        price=units_to_dollars(pl.col("price_units")),
        doubt_bits=doubt_bits_from_units(pl.col("price_units")),
    )


def doubt_bits(price: float) -> float:
    """The doubt of one price in bits, read at the same resolution as the vectorized rule.

    For a single number (a report, a scorer, a test); the card itself uses ``doubt_bits_from_units``.
    """
    if not 0.0 <= price <= 1.0:
        raise ValueError(f"price {price!r} is outside [0, 1]")
    units = round(price * PRICE_SCALE)
    q = min(units, PRICE_SCALE - units) / PRICE_SCALE
    if q == 0:
        return 0.0
    return -(q * math.log(q, 2) + (1.0 - q) * math.log(1.0 - q, 2))
