"""The copy: every swept market, copied from its recorded receipt exactly as published.

The copy reads receipts, never live responses, so anyone holding the receipts re-derives the same
table. Bad input never stops the card and never corrupts a good row: a page that is not JSON or
not a Gamma shape, a field of the wrong type, a market without an event, or one market id carrying
two different contents is quarantined in ``copy_errors`` with the receipt, the market, the field
and the value, and the rest is copied.

A page is copied a column at a time (``verbatim_columns``); a page holding anything that reader
leaves to ``verbatim_row`` is copied row by row, so every refusal is the row reader's own. The
row ids are the record's (``with_ids``: SHA-256 of each row's RFC 8785 JSON), written column by
column here because a Python canonicaliser per row took twelve seconds on a 50,000-market board.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Iterable
from typing import Any

import polars as pl
import rfc8785

from colosseum_core.polymarket import VERBATIM_SCHEMA, FieldError, PageError, page_items, verbatim_row
from colosseum_core.polymarket.markets import verbatim_columns
from colosseum_core.record import ReceiptStore, with_ids
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.receipts import ReceiptError
from colosseum_core.rules import VERBATIM_COPY

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


def copy_markets(card: str, page_receipt_ids: Iterable[str], receipts: ReceiptStore) -> CopyResult:
    columns: dict[str, list[Any]] = {name: [] for name in VERBATIM_SCHEMA}
    errors: list[dict[str, Any]] = []
    for receipt_id in page_receipt_ids:
        try:
            items = page_items(receipts.get(receipt_id).json(), receipt_id)
        except (ReceiptError, PageError) as exc:
            errors.append(_error(card, receipt_id, None, "<page>", None, str(exc)))
            continue
        page = verbatim_columns([(item.market, item.event) for item in items], receipt_id=receipt_id)
        if page is None:
            page = {name: [] for name in VERBATIM_SCHEMA}
            for position, item in enumerate(items):
                try:
                    row = verbatim_row(item.market, item.event, receipt_id=receipt_id, position=position)
                except FieldError as exc:
                    errors.append(_error(card, receipt_id, exc.market_id, exc.field, exc.value, str(exc)))
                    continue
                for name, value in row.items():
                    page[name].append(value)
        for name, values in page.items():
            columns[name].extend(values)

    markets = _frame(card, columns)
    markets, duplicate_errors = _resolve_duplicates(card, markets)
    errors.extend(duplicate_errors)
    return CopyResult(
        markets=_with_ids(markets.sort("market_id")),
        errors=with_ids(pl.DataFrame(errors, schema=COPY_ERRORS_SCHEMA)),
    )


def _frame(card: str, columns: dict[str, list[Any]]) -> pl.DataFrame:
    """The copied rows as ``VERBATIM_TABLE_SCHEMA``.

    List columns go in as JSON text, decoded by polars: building them from Python lists made one
    Series per row (three seconds on a 50,000-market board). A list here holds strings only (the
    copy refuses anything else), and JSON text is a lossless spelling of those.
    """
    height = len(columns["market_id"])
    series = [pl.Series("card", [card] * height, dtype=pl.String)]
    for name, dtype in VERBATIM_SCHEMA.items():
        values = columns[name]
        if dtype == pl.List(pl.String):
            texts = [None if value is None else json.dumps(value) for value in values]
            series.append(pl.Series(name, texts, dtype=pl.String).str.json_decode(dtype))
        else:
            series.append(pl.Series(name, values, dtype=dtype))
    return pl.DataFrame(series)


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
            "id",
            market_id,
            f"market id {market_id!r} was published with {group.height} different contents "
            f"(receipts {', '.join(group['receipt_id'].unique(maintain_order=True))}); none is copied",
        )
        for (market_id,), group in conflicted.group_by("market_id", maintain_order=True)
    ]
    return distinct.filter(~pl.col("market_id").is_in(conflicted["market_id"].implode())), errors


# -- row ids, column by column -----------------------------------------------------------------
#
# RFC 8785 for the values a verbatim row holds, as ``rfc8785`` writes them for ``with_ids``:
# strings with exactly its escapes, integers in decimal, ECMAScript numbers, datetimes as their
# ISO text in UTC with a Z. Any other column type, an integer beyond 2**53 or a datetime polars
# and Python would spell apart is left to ``with_ids`` itself.

_ESCAPED = ["\\", '"', *(chr(code) for code in range(0x20))]
_SHORT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPES = [_SHORT_ESCAPES.get(char, f"\\u{ord(char):04x}") for char in _ESCAPED]
_SAFE_INTEGER = 2**53 - 1


class _NotHere(Exception):
    """A column this writer leaves to ``with_ids``."""


def _json_string(text: pl.Expr) -> pl.Expr:
    return pl.concat_str([pl.lit('"'), text.str.replace_many(_ESCAPED, _ESCAPES), pl.lit('"')])


def _ecmascript_number(value: float) -> str:
    # repr is the shortest round-trip text, and without an exponent it is ECMAScript's but for a
    # trailing ".0" (and -0); the exponent forms are left to rfc8785.
    if not math.isfinite(value):
        raise _NotHere
    if value == 0:
        return "0"
    text = repr(value)
    if "e" in text:
        return rfc8785.dumps(value).decode("ascii")
    return text[:-2] if text.endswith(".0") else text


def _float_texts(series: pl.Series) -> pl.Series:
    memo: dict[float, str] = {}
    texts = []
    for value in series.to_list():
        if value is None:
            texts.append(None)
            continue
        text = memo.get(value)
        if text is None:
            text = memo[value] = _ecmascript_number(value)
        texts.append(text)
    return pl.Series(texts, dtype=pl.String)


def _value_text(frame: pl.DataFrame, name: str) -> pl.Expr:
    """The RFC 8785 text of every value of ``name`` ("null" for a null)."""
    dtype = frame.schema[name]
    column = pl.col(name)
    if dtype == pl.String:
        text = _json_string(column)
    elif dtype == pl.Boolean:
        text = pl.when(column).then(pl.lit("true")).otherwise(pl.lit("false"))
    elif dtype.is_integer():
        extreme = frame.select(column.abs().max()).item()
        if extreme is not None and extreme > _SAFE_INTEGER:
            raise _NotHere
        text = column.cast(pl.String)
    elif dtype == pl.Float64:
        text = pl.lit(_float_texts(frame[name]))
    elif dtype == pl.Datetime("us", "UTC"):
        years = frame.select(column.dt.year().min().alias("low"), column.dt.year().max().alias("high"))
        low, high = years.row(0)
        if low is not None and not 1 <= low <= high <= 9999:
            raise _NotHere
        # datetime.isoformat: the fraction only when there is one.
        whole = column.dt.to_string("%Y-%m-%dT%H:%M:%S")
        text = pl.concat_str(
            [
                pl.lit('"'),
                pl.when(column.dt.microsecond() == 0)
                .then(whole)
                .otherwise(column.dt.to_string("%Y-%m-%dT%H:%M:%S%.6f")),
                pl.lit('Z"'),
            ]
        )
    elif dtype == pl.List(pl.String):
        items = _json_string(pl.element()).fill_null(pl.lit("null"))
        text = pl.concat_str([pl.lit("["), column.list.eval(items).list.join(","), pl.lit("]")])
    else:
        raise _NotHere
    return pl.when(column.is_null()).then(pl.lit("null")).otherwise(text)


def _with_ids(frame: pl.DataFrame) -> pl.DataFrame:
    """``with_ids(frame)``, the same ids, by one canonical text per row built column-wise."""
    body = frame.drop(ID_FIELD, strict=False)
    if body.is_empty() or not body.columns:
        return with_ids(body)
    # RFC 8785 orders members by the UTF-16 code units of their names.
    names = sorted(body.columns, key=lambda name: name.encode("utf-16be"))
    try:
        values = [_value_text(body, name) for name in names]
    except _NotHere:
        return with_ids(body)
    pieces: list[pl.Expr] = [pl.lit("{")]
    for index, (name, value) in enumerate(zip(names, values, strict=True)):
        pieces += [pl.lit(("," if index else "") + rfc8785.dumps(name).decode("utf-8") + ":"), value]
    pieces.append(pl.lit("}"))
    texts = body.select(pl.concat_str(pieces).alias("text"))["text"]
    ids = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in texts]
    return body.insert_column(0, pl.Series(ID_FIELD, ids, dtype=pl.String))
