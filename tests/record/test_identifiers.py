"""with_ids, column by column, gives every row exactly its row_id, for every value a column can hold."""

from __future__ import annotations

import datetime as dt
import math
import random
import struct

import polars as pl
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from colosseum_core.record import row_id, with_ids
from colosseum_core.record.identifiers import _float_texts

_UTC = dt.UTC
_texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
_COLUMNS = {
    "s": (pl.String, _texts),
    "i": (pl.Int64, st.integers(-(2**53) + 1, 2**53 - 1)),
    "f": (pl.Float64, st.floats(allow_nan=False, allow_infinity=False)),
    "b": (pl.Boolean, st.booleans()),
    "t": (
        pl.Datetime("us", "UTC"),
        st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31)).map(
            lambda value: value.replace(tzinfo=_UTC)
        ),
    ),
    "l": (pl.List(pl.String), st.lists(st.none() | _texts, max_size=3)),
}


def _expected(frame: pl.DataFrame) -> list[str]:
    return [row_id(row) for row in frame.drop("id", strict=False).iter_rows(named=True)]


@st.composite
def _frames(draw: st.DrawFn) -> pl.DataFrame:
    names = draw(st.lists(st.sampled_from(sorted(_COLUMNS)), min_size=1, max_size=6, unique=True))
    height = draw(st.integers(1, 6))
    data = {
        name: draw(st.lists(st.none() | _COLUMNS[name][1], min_size=height, max_size=height))
        for name in names
    }
    return pl.DataFrame(data, schema={name: _COLUMNS[name][0] for name in names})


@settings(max_examples=300, deadline=None)
@given(_frames())
def test_every_id_is_the_rows_own_row_id(frame: pl.DataFrame) -> None:
    assert with_ids(frame)["id"].to_list() == _expected(frame)


@pytest.mark.parametrize(
    "frame",
    [
        pl.DataFrame(
            {"f": [0.0, -0.0, 1e-7, 1e21, 1e20, 5e-324, 0.1, 1.5, 100.0, -2.0, 1.7976931348623157e308]}
        ),
        pl.DataFrame({"i": [2**53 - 1, -(2**53) + 1, 0]}),
        pl.DataFrame({"i": [2**53, 1]}),  # beyond JSON's integers: row_id refuses, row by row
        pl.DataFrame({"i": [-(2**63), 1]}),  # the least i64, whose abs() wraps
        pl.DataFrame({"u": pl.Series([2**64 - 1], dtype=pl.UInt64)}),
        pl.DataFrame({"s": ["\x00\x1f\x7f", '"\\', "\u2028\u202e", "é", "\b\f\n\r\t"]}),
        pl.DataFrame({"z": [1], "a": ["x"], "é": [True], "B": [None]}, schema_overrides={"B": pl.String}),
        pl.DataFrame({"d": [dt.date(2026, 12, 1)]}),  # a type left to row_id
        pl.DataFrame(
            {"t": [dt.datetime(2026, 12, 1, 5, 0, 0, 1, tzinfo=_UTC), dt.datetime(5, 1, 1, tzinfo=_UTC)]}
        ),
        pl.DataFrame({"l": [[], ["a", None], None]}, schema={"l": pl.List(pl.String)}),
    ],
)
def test_edge_values_match_row_id_or_refuse_as_it_does(frame: pl.DataFrame) -> None:
    try:
        expected = _expected(frame)
    except Exception as exc:
        with pytest.raises(type(exc)):
            with_ids(frame)
        return
    assert with_ids(frame)["id"].to_list() == expected


def test_a_naive_datetime_is_refused_as_row_id_refuses_it() -> None:
    with pytest.raises(ValueError, match="naive datetime"):
        with_ids(pl.DataFrame({"t": [dt.datetime(2026, 12, 1)]}))


def _ecmascript_texts(values: list[float | None]) -> list[str | None]:
    return [None if value is None else rfc8785.dumps(value).decode("ascii") for value in values]


def _around_the_format_thresholds() -> list[float]:
    # Where polars and ECMAScript switch between plain and exponent forms, and one step either side.
    values = []
    for power in (-8, -7, -6, -5, -4, 15, 16, 17, 20, 21, 22):
        for base in (1.0, 1.5, 9.999999999999999, 0.9999999999999999):
            value = base * 10.0**power
            values += [value, math.nextafter(value, 0), math.nextafter(value, math.inf), -value]
    return values


def test_float_texts_are_ecmascripts_over_every_kind_of_double() -> None:
    """Floats are written by polars and corrected, not formatted one by one: every text, for random
    bit patterns, decimals of every size and the thresholds of both formats, is RFC 8785's."""
    generator = random.Random(20261203)
    values: list[float | None] = [None, 0.0, -0.0, 5e-324, -5e-324, 1.7976931348623157e308]
    values += _around_the_format_thresholds()
    while len(values) < 60_000:
        value = struct.unpack("<d", generator.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(value):
            values.append(value)
    for power in range(-12, 25):
        values += [round(generator.random() * 10.0**power, generator.randint(0, 9)) for _ in range(300)]
    series = pl.Series("f", values, dtype=pl.Float64)
    assert _float_texts(series).to_list() == _ecmascript_texts(values)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.none() | st.floats(allow_nan=False, allow_infinity=False), max_size=20))
def test_float_texts_match_rfc8785(values: list[float | None]) -> None:
    assert _float_texts(pl.Series("f", values, dtype=pl.Float64)).to_list() == _ecmascript_texts(values)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_float_without_a_json_form_is_refused_as_row_id_refuses_it(value: float) -> None:
    with pytest.raises(ValueError, match="non-finite"):
        with_ids(pl.DataFrame({"f": [1.0, value]}))
