"""What the selection reads: the verbatim market table's columns, typed, and the seal instant."""

from __future__ import annotations

import datetime as dt
from typing import Final

import polars as pl

from colosseum_core.exchanges.polymarket.markets import VERBATIM_SCHEMA

# The verbatim columns the rules read. Any other column of the input is carried through untouched.
SELECTION_COLUMNS: Final[tuple[str, ...]] = (
    "market_id",
    "event_id",
    "question",
    "outcomes",
    "outcome_prices",
    "best_bid",
    "best_ask",
    "last_trade_price",
    "event_volume_24hr",
    "event_liquidity",
    "end_date_ts",
    "start_date_ts",
    "game_start_time_ts",
    "market_event_start_time_ts",
    "event_start_time_ts",
    "event_end_date_ts",
    "active",
    "closed",
    "accepting_orders",
    "game_id",
    "event_game_id",
    "sports_market_type",
    "event_title",
)
SELECTION_SCHEMA: Final[dict[str, pl.DataType]] = {name: VERBATIM_SCHEMA[name] for name in SELECTION_COLUMNS}
_UTC_INSTANT: Final = pl.Datetime("us", "UTC")


def utc_seal(seal: dt.datetime) -> dt.datetime:
    """The seal as an aware UTC instant; a naive seal is refused, never guessed."""
    if not isinstance(seal, dt.datetime) or seal.tzinfo is None or seal.utcoffset() is None:
        raise ValueError(f"seal must be a timezone-aware datetime, got {seal!r}")
    return seal.astimezone(dt.UTC)


def seal_literal(seal: dt.datetime) -> pl.Expr:
    return pl.lit(utc_seal(seal), dtype=_UTC_INSTANT)


def _typed(name: str, present: pl.DataType, dtype: pl.DataType) -> pl.Expr:
    column = pl.col(name)
    if dtype == _UTC_INSTANT and isinstance(present, pl.Datetime):
        # A naive instant in a hand-built frame is read as UTC, which is what the copy writes.
        zoned = column.dt.replace_time_zone("UTC") if present.time_zone is None else column
        return zoned.dt.convert_time_zone("UTC").dt.cast_time_unit("us")
    return column.cast(dtype)


def conform(markets: pl.DataFrame) -> pl.DataFrame:
    """``markets`` with every column the rules read, typed as the verbatim schema types it.

    A column the input lacks is added as nulls (an absent key is a null in the verbatim table too).
    A column of the wrong type is cast; a frame that can not be cast is a caller's error and raises,
    because it is not a bad market but a bad table.
    """
    schema = markets.schema
    missing = {name: dtype for name, dtype in SELECTION_SCHEMA.items() if name not in schema}
    # Only the columns not already of their verbatim type are touched (the copy's table has them all).
    retype = [name for name in SELECTION_COLUMNS if name in schema and schema[name] != SELECTION_SCHEMA[name]]
    try:
        typed = markets.with_columns(
            [_typed(name, schema[name], SELECTION_SCHEMA[name]).alias(name) for name in retype]
        )
    except (pl.exceptions.PolarsError, TypeError) as exc:
        raise ValueError(f"the market table does not have the verbatim column types: {exc}") from exc
    return typed.with_columns([pl.lit(None, dtype=dtype).alias(name) for name, dtype in missing.items()])
