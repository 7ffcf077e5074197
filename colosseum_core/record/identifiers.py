"""Row identifiers: the SHA-256 of a row's RFC 8785 canonical JSON, without its ``id`` field.

Anyone can recompute an identifier with any RFC 8785 implementation; that is the point.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Mapping
from typing import Any

import polars as pl
import rfc8785

ID_FIELD = "id"


def _jsonable(value: Any) -> Any:
    """Map the values a Parquet row can hold onto JSON values, the one way every reader will."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r} has no canonical form; store UTC-aware times")
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"non-finite float {value!r} has no JSON form")
    if isinstance(value, bytes):
        raise ValueError("bytes have no canonical JSON form; store a receipt id instead")
    return value


def canonical_json(row: Mapping[str, Any]) -> bytes:
    return rfc8785.dumps(_jsonable(row))


def row_id(row: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of ``row`` with any ``id`` field removed."""
    body = {k: v for k, v in row.items() if k != ID_FIELD}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def _row_by_row(body: pl.DataFrame) -> pl.DataFrame:
    ids = [row_id(row) for row in body.iter_rows(named=True)]
    return body.insert_column(0, pl.Series(ID_FIELD, ids, dtype=pl.String))


# -- the same ids, column by column ------------------------------------------------------------
#
# RFC 8785 for the column types tables mostly hold, as ``rfc8785`` writes them for ``row_id``:
# strings with exactly its escapes, integers in decimal, ECMAScript numbers, datetimes as their
# ISO text in UTC with a Z, lists of strings. Any other column type, an integer beyond 2**53 or a
# datetime polars and Python would spell apart is left to ``row_id``, row by row. A Python
# canonicaliser per row took twelve seconds for a 50,000-market board's copy, and as long again for
# its verdicts.

_ESCAPED = ["\\", '"', *(chr(code) for code in range(0x20))]
_SHORT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPES = [_SHORT_ESCAPES.get(char, f"\\u{ord(char):04x}") for char in _ESCAPED]
_SAFE_INTEGER = 2**53 - 1


class _NotHere(Exception):
    """A column this writer leaves to ``row_id``."""


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
    # polars writes a float's shortest round-trip digits, as repr and ECMAScript do; where it writes
    # them without an exponent the text is ECMAScript's but for a trailing ".0" (and -0). What it
    # writes with one (and a value that is not finite) is formatted here, each distinct value once.
    text = series.cast(pl.String)
    plain = ~text.str.contains("[eE]|inf|NaN")
    odd = series.filter(~plain).unique()
    odd_texts = pl.Series([_ecmascript_number(value) for value in odd.to_list()], dtype=pl.String)
    return (
        pl.DataFrame({"value": series, "text": text, "plain": plain})
        .select(
            pl.when(pl.col("value") == 0)
            .then(pl.lit("0"))
            .when(pl.col("plain"))
            .then(pl.col("text").str.strip_suffix(".0"))
            .otherwise(pl.col("value").replace_strict(odd, odd_texts, default=None, return_dtype=pl.String))
        )
        .to_series()
        .alias(series.name)
    )


def _value_text(frame: pl.DataFrame, name: str) -> pl.Expr:
    """The RFC 8785 text of every value of ``name`` ("null" for a null)."""
    dtype = frame.schema[name]
    column = pl.col(name)
    if dtype == pl.String:
        text = _json_string(column)
    elif dtype == pl.Boolean:
        text = pl.when(column).then(pl.lit("true")).otherwise(pl.lit("false"))
    elif dtype.is_integer():
        low, high = frame.select(column.min().alias("low"), column.max().alias("high")).row(0)
        if low is not None and (low < -_SAFE_INTEGER or high > _SAFE_INTEGER):
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


def with_ids(frame: pl.DataFrame) -> pl.DataFrame:
    """Return ``frame`` with an ``id`` column first, recomputed from every other column.

    Each id is ``row_id`` of its row; they are computed a column at a time where every column's
    type allows it (see above), else row by row.
    """
    body = frame.drop(ID_FIELD, strict=False)
    if body.is_empty() or not body.columns:
        return _row_by_row(body)
    # RFC 8785 orders members by the UTF-16 code units of their names.
    names = sorted(body.columns, key=lambda name: name.encode("utf-16be"))
    try:
        values = [_value_text(body, name) for name in names]
    except _NotHere:
        return _row_by_row(body)
    pieces: list[pl.Expr] = [pl.lit("{")]
    for index, (name, value) in enumerate(zip(names, values, strict=True)):
        pieces += [pl.lit(("," if index else "") + rfc8785.dumps(name).decode("utf-8") + ":"), value]
    pieces.append(pl.lit("}"))
    # As UTF-8 bytes straight from polars: encoding each Python string again cost more than hashing it.
    texts = body.select(pl.concat_str(pieces).cast(pl.Binary).alias("text"))["text"]
    ids = [hashlib.sha256(text).hexdigest() for text in texts]
    return body.insert_column(0, pl.Series(ID_FIELD, ids, dtype=pl.String))
