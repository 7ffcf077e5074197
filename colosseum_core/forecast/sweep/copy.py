"""The copy: every swept market, copied from its recorded receipt exactly as published.

The copy reads receipts, never live responses, so anyone holding the receipts re-derives the same
table. Bad input never stops the card and never corrupts a good row: a page that is not JSON or
not a Gamma shape, a field of the wrong type, a market without an event, or one market id carrying
two different contents is quarantined in ``copy_errors`` with the receipt, the market, the field
and the value, and the rest is copied.

A plain keyset page is read from its bytes straight into the copied columns (``keyset_columns``);
any other page, or one holding a value that reader leaves to the others, is decoded to objects and
copied a column at a time (``verbatim_columns``), or row by row where that reader steps aside too,
so every refusal is the row reader's own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

import orjson
import polars as pl

from colosseum_core.exchanges.polymarket import (
    VERBATIM_SCHEMA,
    FieldError,
    PageError,
    page_items,
    verbatim_row,
)
from colosseum_core.exchanges.polymarket.markets import keyset_columns, verbatim_columns
from colosseum_core.exchanges.polymarket.pages import PageMarket
from colosseum_core.forecast.rules import VERBATIM_COPY
from colosseum_core.record import ReceiptStore, with_ids
from colosseum_core.record.receipts import ReceiptError

COPY_ERRORS_SCHEMA: dict[str, pl.DataType] = {
    "card": pl.String(),
    "receipt_id": pl.String(),
    "market_id": pl.String(),
    "field": pl.String(),
    "value": pl.String(),
    "error": pl.String(),
    "rules": pl.String(),
}
VERBATIM_TABLE_SCHEMA: dict[str, pl.DataType] = {"card": pl.String(), **VERBATIM_SCHEMA}
# Columns that say where a copy came from rather than what was published.
_PROVENANCE = ("receipt_id", "position")
# How a copy_errors row says what it quarantined, for those who count them (the board): a page that
# could not be read has this field; an id published with two contents has CONFLICT_FIELD and an
# error naming CONFLICT_WORDS (a field error on "id" itself names neither).
PAGE_FIELD = "<page>"
CONFLICT_FIELD = "id"
CONFLICT_WORDS = "different contents"


@dataclasses.dataclass(frozen=True)
class CopyResult:
    markets: pl.DataFrame
    errors: pl.DataFrame


def _error(card: str, receipt_id: str, market_id: str | None, field: str, value: Any, error: str) -> dict:
    text = value if isinstance(value, str) or value is None else repr(value)
    return {
        "card": card,
        "receipt_id": receipt_id,
        "market_id": market_id,
        "field": field,
        "value": None if text is None else text[:200],
        "error": error,
        "rules": VERBATIM_COPY,
    }


# Copied rows become a frame every this many rows: a row held as Python objects takes several times
# its room in a frame, and a 50,000-market board held that way until the end peaked 90 MB higher.
_ROWS_PER_FRAME = 5000


def copy_markets(
    card: str,
    page_receipt_ids: Iterable[str],
    receipts: ReceiptStore,
    *,
    each_body: Callable[[str, bytes], None] | None = None,
) -> CopyResult:
    """The copy of the pages' markets; ``each_body`` is given every page's body read from the
    record (``receipt_id``, ``body``), as it is read."""
    frames: list[pl.DataFrame] = []
    columns: dict[str, list[Any]] = {name: [] for name in VERBATIM_SCHEMA}
    errors: list[dict[str, Any]] = []
    for receipt_id in page_receipt_ids:
        try:
            receipt = receipts.get(receipt_id)
            if each_body is not None:
                each_body(receipt_id, receipt.body)
            page = keyset_columns(receipt.body, receipt_id=receipt_id)
            if page is None:
                page = _page_of_objects(card, receipt_id, page_items(receipt.json(), receipt_id), errors)
        except (ReceiptError, PageError) as exc:
            errors.append(_error(card, receipt_id, None, PAGE_FIELD, None, str(exc)))
            continue
        for name, values in page.items():
            columns[name].extend(values)
        if len(columns["market_id"]) >= _ROWS_PER_FRAME:
            frames.append(_frame(card, columns))
            columns = {name: [] for name in VERBATIM_SCHEMA}

    markets = pl.concat([*frames, _frame(card, columns)])
    markets, duplicate_errors = _resolve_duplicates(card, markets)
    errors.extend(duplicate_errors)
    return CopyResult(
        markets=with_ids(markets.sort("market_id")),
        errors=with_ids(pl.DataFrame(errors, schema=COPY_ERRORS_SCHEMA)),
    )


def _page_of_objects(
    card: str, receipt_id: str, items: list[PageMarket], errors: list[dict[str, Any]]
) -> dict[str, list[Any]]:
    """Any page shape, decoded to objects: by columns if ``verbatim_columns`` takes it, else by rows,
    each market ``verbatim_row`` refuses quarantined."""
    page = verbatim_columns([(item.market, item.event) for item in items], receipt_id=receipt_id)
    if page is not None:
        return page
    page = {name: [] for name in VERBATIM_SCHEMA}
    for position, item in enumerate(items):
        try:
            row = verbatim_row(item.market, item.event, receipt_id=receipt_id, position=position)
        except FieldError as exc:
            errors.append(_error(card, receipt_id, exc.market_id, exc.field, exc.value, str(exc)))
            continue
        for name, value in row.items():
            page[name].append(value)
    return page


def _frame(card: str, columns: dict[str, list[Any]]) -> pl.DataFrame:
    """The copied rows as ``VERBATIM_TABLE_SCHEMA``.

    List columns go in as JSON text, decoded by polars: building them from Python lists made one
    Series per row (three seconds on a 50,000-market board). A list here holds strings only (the
    copy refuses anything else, and any string that is not valid UTF-8), and JSON text is a lossless
    spelling of those.
    """
    height = len(columns["market_id"])
    series = [pl.Series("card", [card] * height, dtype=pl.String)]
    for name, dtype in VERBATIM_SCHEMA.items():
        values = columns[name]
        if dtype == pl.List(pl.String):
            texts = [None if value is None else orjson.dumps(value).decode() for value in values]
            series.append(pl.Series(name, texts, dtype=pl.String).str.json_decode(dtype))
        elif isinstance(dtype, pl.Datetime):
            series.append(_instants(name, values, dtype))
        else:
            series.append(pl.Series(name, values, dtype=dtype))
    return pl.DataFrame(series)


def _instants(name: str, values: list[Any], dtype: pl.DataType) -> pl.Series:
    """A column of instants, each distinct one converted once: polars converts Python datetimes one
    at a time (0.14 s for 40,000), and a board repeats its end dates and start times."""
    positions: dict[Any, int] = {}
    codes = [None if value is None else positions.setdefault(value, len(positions)) for value in values]
    distinct = pl.Series(name, list(positions), dtype=dtype)
    return distinct.gather(pl.Series(codes, dtype=pl.UInt32)).alias(name)


def _resolve_duplicates(card: str, markets: pl.DataFrame) -> tuple[pl.DataFrame, list[dict[str, Any]]]:
    """Keep one copy of a market seen twice with the same content; quarantine ids seen with two."""
    content = [c for c in markets.columns if c not in _PROVENANCE]
    distinct = markets.unique(subset=content, keep="first", maintain_order=True)
    conflicted = distinct.filter(pl.col("market_id").is_duplicated())
    if conflicted.is_empty():
        return distinct, []
    errors = [
        _error(
            card,
            group["receipt_id"][0],
            market_id,
            CONFLICT_FIELD,
            market_id,
            f"market id {market_id!r} was published with {group.height} {CONFLICT_WORDS} "
            f"(receipts {', '.join(group['receipt_id'].unique(maintain_order=True))}); none is copied",
        )
        for (market_id,), group in conflicted.group_by("market_id", maintain_order=True)
    ]
    return distinct.filter(~pl.col("market_id").is_in(conflicted["market_id"].implode())), errors
