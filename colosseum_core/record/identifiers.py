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


def with_ids(frame: pl.DataFrame) -> pl.DataFrame:
    """Return ``frame`` with an ``id`` column first, recomputed from every other column."""
    body = frame.drop(ID_FIELD, strict=False)
    ids = [row_id(row) for row in body.iter_rows(named=True)]
    return body.insert_column(0, pl.Series(ID_FIELD, ids, dtype=pl.String))
