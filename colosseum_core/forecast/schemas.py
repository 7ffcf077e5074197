"""Data contracts (pandera.polars) for the card tables that auditors read."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from colosseum_core.forecast.rules import SLATE_LAWS
from colosseum_core.forecast.selection import EXCLUDED, RULE_ORDER, SELECTED


class Verdicts(pa.DataFrameModel):
    """``ranked_candidates``: one verdict per swept question."""

    id: str = pa.Field(unique=True, str_length=64)
    card: str
    market_id: str = pa.Field(unique=True)
    verdict: str = pa.Field(isin=[SELECTED, EXCLUDED])
    rule: str = pa.Field(nullable=True, isin=list(RULE_ORDER))
    value: str = pa.Field(nullable=True)
    rank: pl.Int64 = pa.Field(nullable=True, ge=1)
    place: pl.Int64 = pa.Field(nullable=True, ge=1)
    doubt_bits: float = pa.Field(nullable=True, ge=0.0, le=1.0)
    price: float = pa.Field(nullable=True, ge=0.0, le=1.0)
    price_source: str = pa.Field(nullable=True, isin=["midpoint", "last_trade", "outcome_price"])
    rules: str = pa.Field(isin=[SLATE_LAWS])

    @pa.dataframe_check
    def selected_have_a_place_and_no_rule(cls, data: pa.PolarsData) -> pl.LazyFrame:
        selected = pl.col("verdict") == SELECTED
        return data.lazyframe.select(
            ~selected
            | (pl.col("rule").is_null() & pl.col("place").is_not_null() & pl.col("price").is_not_null())
        )

    @pa.dataframe_check
    def excluded_name_their_rule_and_value(cls, data: pa.PolarsData) -> pl.LazyFrame:
        excluded = pl.col("verdict") == EXCLUDED
        return data.lazyframe.select(
            ~excluded | (pl.col("rule").is_not_null() & pl.col("value").is_not_null())
        )


class CardQuestions(pa.DataFrameModel):
    """``card_questions``: the sealed card's questions in label order."""

    id: str = pa.Field(unique=True, str_length=64)
    card: str
    kind: str = pa.Field(isin=["CALIBRATION", "FIGHT"])
    label: str = pa.Field(unique=True, str_matches=r"^M\d{2}$")
    position: pl.Int64 = pa.Field(ge=1, le=25, unique=True)
    market_id: str = pa.Field(unique=True)
    event_id: str = pa.Field(unique=True)
    question: str
    price: float = pa.Field(ge=0.0, le=1.0)
    price_source: str = pa.Field(isin=["midpoint", "last_trade", "outcome_price"])
    doubt_bits: float = pa.Field(ge=0.0, le=1.0)
    packet_id: str = pa.Field(str_length=64)


class Packet(pa.DataFrameModel):
    """``packet``: one row per sealed card."""

    id: str = pa.Field(unique=True, str_length=64)
    card: str = pa.Field(unique=True)
    kind: str = pa.Field(isin=["CALIBRATION", "FIGHT"])
    questions: pl.Int64 = pa.Field(ge=0, le=25)
    total_doubt_bits: float = pa.Field(ge=0.0, le=25.0)
    sweep_complete: bool
    rules: str = pa.Field(isin=[SLATE_LAWS])
    packet_id: str = pa.Field(str_length=64)
    packet_text: str


def schema_failures(model: type[pa.DataFrameModel], frame: pl.DataFrame) -> str | None:
    """None if ``frame`` honours ``model``, else a short description of every failure."""
    try:
        model.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as exc:
        return str(exc.failure_cases.head(20))
    return None
