"""Row identifiers recomputed a whole frame at a time, byte-identical to ``identifiers.row_id``.

``row_id`` runs the pure-Python RFC 8785 canonicaliser: ~250 µs for an ``answers`` row, which is
most of an audit of a large record. For the values a record table holds, the standard library's
C JSON encoder writes the same bytes when it is given keys already in RFC 8785 order (UTF-16 code
units; for the ASCII column names of a record this is plain sorted order) and when every number is
one whose Python form is its ECMAScript form:

* integers within ±(2⁵³ − 1) (RFC 8785 refuses larger ones; so do we, via the slow path);
* floats that are integral and below 2⁵³ are written as integers, as ECMAScript does ("5", not "5.0");
* other floats in [1e-4, 1e16) print the same shortest digits in plain decimal notation in both.

Strings escape identically (``"``, ``\\``, ``\\b \\f \\n \\r \\t``, other controls as lowercase
``\\u00xx``, nothing else) with ``ensure_ascii=False``. Every value outside these cases (exponent
floats, NaN, huge integers, naive datetimes, nested structs…) sends its row, or its frame, to
``row_id`` itself, so the answer is always the reference implementation's answer; the test suite
compares the two over every row of a real record and a set of edge values.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from typing import Any

import polars as pl

from colosseum_core.record.identifiers import ID_FIELD, _jsonable, row_id

_SAFE_INT = 2**53 - 1
_ENCODER = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=False, check_circular=False, allow_nan=False
)
_PLAIN_INTEGERS = (
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.Int64,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
    pl.UInt64,
)


class _Slow:
    """Marks a value whose canonical form only the reference canonicaliser may decide."""


SLOW: Any = _Slow()


def _float_json(value: float | None) -> Any:
    if value is None:
        return None
    if value.is_integer():
        return int(value) if abs(value) <= _SAFE_INT else SLOW
    if math.isfinite(value) and 1e-4 <= abs(value) < 1e16:
        return value
    return SLOW


def _time_json(value: Any) -> Any:
    if value is None:
        return None
    try:
        return _jsonable(value)  # the reference's own mapping of dates and times
    except ValueError:
        return SLOW


def _int_column(series: pl.Series) -> list[Any]:
    values = series.to_list()
    if series.null_count() == len(series):
        return values
    low, high = series.min(), series.max()
    if low >= -_SAFE_INT and high <= _SAFE_INT:  # type: ignore[operator]
        return values
    return [v if v is None or -_SAFE_INT <= v <= _SAFE_INT else SLOW for v in values]


def _list_column(series: pl.Series) -> list[Any] | None:
    inner = series.dtype.inner  # type: ignore[attr-defined]
    if inner in (pl.String, pl.Boolean, pl.Null):
        return series.to_list()
    if inner in _PLAIN_INTEGERS:
        flat = series.explode().drop_nulls()
        if flat.is_empty() or (flat.min() >= -_SAFE_INT and flat.max() <= _SAFE_INT):  # type: ignore[operator]
            return series.to_list()
        return [
            v if v is None or all(abs(x) <= _SAFE_INT for x in v if x is not None) else SLOW
            for v in series.to_list()
        ]
    return None


def _column_values(series: pl.Series) -> list[Any] | None:
    """The column as JSON-ready values (``SLOW`` where undecided), or None: the frame goes slow."""
    dtype = series.dtype
    if dtype in (pl.String, pl.Boolean, pl.Null):
        return series.to_list()
    if dtype in _PLAIN_INTEGERS:
        return _int_column(series)
    if dtype in (pl.Float32, pl.Float64):
        return [_float_json(v) for v in series.to_list()]
    if dtype == pl.Date or isinstance(dtype, pl.Datetime):
        return [_time_json(v) for v in series.to_list()]
    if isinstance(dtype, pl.List):
        return _list_column(series)
    return None


def _rfc8785_order(names: list[str]) -> list[str] | None:
    ordered = sorted(names, key=lambda n: n.encode("utf-16be"))
    return ordered if ordered == sorted(names) else None


def _reference(frame: pl.DataFrame, index: int) -> tuple[str | None, str | None]:
    try:
        return row_id(frame.row(index, named=True)), None
    except Exception as exc:  # whatever the value is, it has no canonical JSON: report it
        return None, f"content has no canonical JSON ({exc})"


def content_ids(
    frame: pl.DataFrame, *, drop: tuple[str, ...] = (ID_FIELD,)
) -> tuple[list[str | None], dict[int, str]]:
    """The identifier of every row's content (the row without ``drop``), in row order.

    Returns the ids (None where a row has no canonical form) and, by row index, why not.
    """
    body = frame.drop([c for c in drop if c in frame.columns])
    names = _rfc8785_order(body.columns)
    columns = None if names is None else [_column_values(body[name]) for name in names]
    errors: dict[int, str] = {}
    if names is None or columns is None or any(c is None for c in columns):
        ids: list[str | None] = []
        for index in range(body.height):
            found, error = _reference(body, index)
            ids.append(found)
            if error:
                errors[index] = error
        return ids, errors
    encode: Callable[[Any], str] = _ENCODER.encode
    sha256 = hashlib.sha256
    ids = []
    rows = zip(*columns, strict=True) if columns else iter([()] * body.height)
    for index, values in enumerate(rows):
        if SLOW in values:
            found, error = _reference(body, index)
            if error:
                errors[index] = error
            ids.append(found)
            continue
        try:
            text = encode(dict(zip(names, values, strict=True)))
            ids.append(sha256(text.encode("utf-8")).hexdigest())
        except (ValueError, UnicodeEncodeError):
            found, error = _reference(body, index)
            if error:
                errors[index] = error
            ids.append(found)
    return ids, errors


def row_id_problems(frame: pl.DataFrame, what: str) -> list[str]:
    """A line for every row of ``frame`` (named ``what``, e.g. "games epoch 0000040") whose stored
    identifier is not its content's, computed here rather than by the writer."""
    if ID_FIELD not in frame.columns:
        return [f"{what}: the table has no {ID_FIELD} column"]
    ids, errors = content_ids(frame)
    problems = []
    for row, (stored, content) in enumerate(zip(frame[ID_FIELD], ids, strict=True)):
        if row in errors:
            problems.append(f"{what} row {row}: {errors[row]}")
        elif stored != content:
            problems.append(f"{what} row {row}: id {stored} does not match its content ({content})")
    return problems


def rederived_differences(
    stored: pl.DataFrame, again: pl.DataFrame, what: str, key: str | tuple[str, ...]
) -> list[str]:
    """Where a recorded table differs from the one its audit re-derived: the first differing row of
    each column, named by its ``key`` column or columns and the field (at most ten), or the row counts."""
    keys = (key,) if isinstance(key, str) else key
    if stored.height != again.height:
        return [f"{what}: {stored.height} rows recorded, the replay gives {again.height}"]
    problems = []
    for column in stored.columns:
        if column == ID_FIELD or column not in again.columns:
            continue
        # As Python values: a list column's rows compare as lists, not as Series.
        for row, (mine, theirs) in enumerate(
            zip(stored[column].to_list(), again[column].to_list(), strict=True)
        ):
            if mine != theirs:
                problems.append(
                    f"{what} {' '.join(f'{k} {stored[k][row]}' for k in keys)} field {column}: recorded "
                    f"{shortened(mine)}, "
                    f"the replay gives {shortened(theirs)}"
                )
                break
        if len(problems) >= 10:
            break
    return problems


def frame_difference(name: str, stored: pl.DataFrame, wanted: pl.DataFrame, what: str) -> str | None:
    """How a published table differs from what ``what`` gives: its shape, its first differing field
    (row identifiers aside), or its identifiers alone; None when they are equal."""
    if stored.equals(wanted):
        return None
    if stored.columns != wanted.columns or stored.height != wanted.height:
        return f"{name}: not {what} (its columns or rows differ)"
    for column in stored.columns:
        if column == ID_FIELD:
            continue
        for row, (mine, theirs) in enumerate(zip(stored[column], wanted[column], strict=True)):
            if mine != theirs:
                return f"{name} row {row + 1} field {column}: {mine!r}, {what} give {theirs!r}"
    return f"{name}: its row identifiers are not {what}'s"


def shortened(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"
