"""verbatim_columns and keyset_columns, the copy's page-at-a-time readers, give exactly verbatim_row's
rows or step aside.

The copy takes a page by columns only when ``verbatim_columns`` answers; when it answers None the
page is copied row by row, so every refusal is ``verbatim_row``'s own. So for any page it must either
give the rows ``verbatim_row`` gives, column by column, or None, and None whenever ``verbatim_row``
refuses any market of the page. ``keyset_columns`` reads a page from its bytes: its reference is
``json.loads`` of the same bytes, then ``page_items`` and ``verbatim_row``.
"""

from __future__ import annotations

import copy
import json
import struct
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colosseum_core.exchanges.polymarket import (
    VERBATIM_SCHEMA,
    FieldError,
    PageError,
    page_items,
    verbatim_row,
)
from colosseum_core.exchanges.polymarket.markets import keyset_columns, verbatim_columns
from colosseum_standins.simulated_exchange import AS_OF_HEADER, running_exchange
from tests.support import FIXTURES

FIXTURE = FIXTURES / "polymarket" / "markets_keyset_page.json"
RECEIPT = "r" * 64


def _pairs(body: Any) -> list[tuple[Any, Any]]:
    return [(item.market, item.event) for item in page_items(body, RECEIPT)]


def _rows_or_refusal(pairs: list[tuple[Any, Any]]) -> list[dict[str, Any]] | None:
    try:
        return [verbatim_row(m, e, receipt_id=RECEIPT, position=i) for i, (m, e) in enumerate(pairs)]
    except FieldError:
        return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack("<d", a) == struct.pack("<d", b)  # -0.0 is not 0.0 in a Parquet file
    return type(a) is type(b) and a == b


def _assert_agrees(pairs: list[tuple[Any, Any]]) -> dict[str, list[Any]] | None:
    rows = _rows_or_refusal(pairs)
    columns = verbatim_columns(pairs, receipt_id=RECEIPT)
    if rows is None:
        assert columns is None, "verbatim_columns copied a page verbatim_row refuses"
        return None
    if columns is not None:
        _assert_columns_are_rows(columns, rows)
    return columns


def _assert_columns_are_rows(columns: dict[str, list[Any]], rows: list[dict[str, Any]]) -> None:
    assert list(columns) == list(VERBATIM_SCHEMA)
    for name in VERBATIM_SCHEMA:
        expected = [row[name] for row in rows]
        assert all(_same(a, b) for a, b in zip(columns[name], expected, strict=True)), name


def _assert_bytes_agree(body: bytes) -> dict[str, list[Any]] | None:
    """keyset_columns of ``body`` is what json.loads, page_items and verbatim_row make of it, or None."""
    columns = keyset_columns(body, receipt_id=RECEIPT)
    try:
        rows = _rows_or_refusal(_pairs(json.loads(body)))
    except (ValueError, RecursionError, PageError):
        rows = None
    if rows is None:
        assert columns is None, "keyset_columns copied a page the row reader refuses"
    elif columns is not None:
        _assert_columns_are_rows(columns, rows)
    return columns


def _simulated_page(faults: str | None) -> dict[str, Any]:
    with running_exchange(seed=3, markets=600, faults=faults) as url:
        return httpx.get(
            url + "/markets/keyset",
            params={"limit": "100", "closed": "false"},
            headers={AS_OF_HEADER: "2026-11-29T15:00:00Z"},
        ).json()


@pytest.fixture(scope="module")
def simulated_page() -> dict[str, Any]:
    return _simulated_page(None)


def test_a_page_with_numbers_in_strings_is_left_to_the_row_reader():
    # The recorded fixture publishes some prices as strings ("0.41"), as Gamma does at times.
    assert _assert_agrees(_pairs(json.loads(FIXTURE.read_bytes()))) is None


def test_the_simulated_boards_pages_and_the_hostile_authors_are_read_by_columns_exactly(simulated_page):
    for body in (simulated_page, _simulated_page("hostile")):
        pairs = _pairs(body)
        assert len(pairs) == 100
        assert _assert_agrees(pairs) is not None
        for text in (json.dumps(body), json.dumps(body, indent=1, ensure_ascii=False)):
            assert _assert_bytes_agree(text.encode()) is not None


# Texts some readers parse: numbers, JSON lists (Gamma's encoded lists), a timestamp.
_ODD_TEXTS = ["1.5", "0", "-0", "1e3", "abc", "[]", '["a"]', '["1","2"]', "[1]", "2026-11-29T15:00:00Z"]
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | st.sampled_from(
        ["1.5", "0", "-0", "1e3", "abc", "[]", '["a"]', '["1","2"]', "[1]", "2026-11-29T15:00:00Z"]
    ),
    lambda children: (
        st.lists(children, max_size=2) | st.dictionaries(st.text(max_size=2), children, max_size=2)
    ),
    max_leaves=4,
)


@settings(max_examples=400, deadline=None)
@given(
    owner=st.sampled_from(["market", "event"]),
    position=st.integers(0, 2),
    key_index=st.integers(0, 200),
    value=_json_values | st.just(KeyError),
)
def test_any_one_value_changed_is_read_as_row_by_row_reads_it_or_left_to_it(
    simulated_page, owner, position, key_index, value
):
    body = copy.deepcopy(simulated_page)
    market = body["markets"][position]
    target = market if owner == "market" else market["events"][0]
    key = sorted(target)[key_index % len(target)]
    if value is KeyError:
        del target[key]
    else:
        target[key] = copy.deepcopy(value)
    _assert_agrees(_pairs(body))
    _assert_bytes_agree(json.dumps(body).encode())


def _edited(page: dict[str, Any], old: bytes, new: bytes) -> bytes:
    text = json.dumps(page).encode()
    assert old in text
    return text.replace(old, new, 1)


# Byte-level edits of the first market or its event that no Python value spells: each is read as
# json.loads reads it, or left to the other readers. (key, value as published, value now)
_BYTE_EDITS = [
    ("a repeated key, the last one read", b'"question": ', b'"question": "first", "question": '),
    ("a repeated key of the wrong type first", b'"question": ', b'"question": 5, "question": '),
    ("a lone surrogate in a copied string", b'"question": "', b'"question": "\\ud800'),
    ("a lone surrogate in a key nobody reads", b'"question": ', b'"unread": "\\udc00", "question": '),
    ("a surrogate pair", b'"question": "', b'"question": "\\ud83d\\ude00'),
    ("escapes", b'"question": "', b'"question": "\\u00e9\\/\\t\\"'),
    ("a number beyond a double", b'"bestBid": ', b'"bestBid": 1e400, "x": '),
    (
        "an integer beyond 64 bits as a price",
        b'"bestBid": ',
        b'"bestBid": 123456789012345678901234567, "x": ',
    ),
    ("an integer beyond 64 bits as an id", b'"gameId": ', b'"gameId": 123456789012345678901234567, "x": '),
    ("minus zero, an integer", b'"bestBid": ', b'"bestBid": -0, "x": '),
    ("minus zero", b'"bestBid": ', b'"bestBid": -0.0, "x": '),
    ("an exponent", b'"bestBid": ', b'"bestBid": 5E-1, "x": '),
    ("a price as a string", b'"bestBid": ', b'"bestBid": "0.5", "x": '),
    ("an encoded list holding a number", b'"outcomes": "[', b'"outcomes": "[1, '),
    ("an encoded list holding a lone surrogate", b'"outcomes": "[', b'"outcomes": "[\\"\\\\ud800\\", '),
    ("an encoded list as an array", b'"outcomes": "[\\"Yes\\", \\"No\\"]"', b'"outcomes": ["Yes", "No"]'),
    ("a price list item that is not a decimal", b'"outcomePrices": "[', b'"outcomePrices": "[\\"x\\", '),
    ("events empty", b'"events": [', b'"events": [], "was": ['),
    ("events null", b'"events": [', b'"events": null, "was": ['),
    ("a second event that is not an object", b'"events": [', b'"events": [5, '),
    ("a series of strings", b'"series": ', b'"series": ["x"], "was": '),
    ("an id that is a float", b'"gameId": ', b'"gameId": 1.0, "x": '),
]


@pytest.mark.parametrize(("what", "old", "new"), _BYTE_EDITS, ids=[edit[0] for edit in _BYTE_EDITS])
def test_byte_level_edits_are_read_as_json_loads_reads_them_or_left_to_the_other_readers(
    simulated_page, what, old, new
):
    _assert_bytes_agree(_edited(simulated_page, old, new))


@pytest.mark.parametrize(
    "body",
    [
        b'{"markets": []}',
        b'{"markets": [], "next_cursor": null}',
        b'{"markets": [], "next_cursor": "x", "extra": 1}',
        b'{"markets": [], "next_cursor": 5}',
        b'{"markets": [5]}',
        b'{"markets": {}}',
        b'\xef\xbb\xbf{"markets": []}',
        '{"markets": []}'.encode("utf-16"),
        b'{"markets": [], "markets": [null]}',
        b'{"markets": []} x',
        b"[]",
        b"",
    ],
)
def test_envelopes_are_read_as_the_row_reader_reads_them_or_left_to_it(body):
    _assert_bytes_agree(body)


def test_the_keyset_reader_takes_the_plain_pages_it_is_for(simulated_page):
    assert _assert_bytes_agree(b'{"markets": [], "next_cursor": null}') == {
        name: [] for name in VERBATIM_SCHEMA
    }
    assert _assert_bytes_agree(_edited(simulated_page, b'"question": ', b'"question": "first", "question": '))
    assert _assert_bytes_agree(_edited(simulated_page, b'"bestBid": ', b'"bestBid": 5E-1, "x": '))
    assert (
        _assert_bytes_agree(_edited(simulated_page, b'"question": ', b'"question": 5, "question": ')) is None
    )


_decimal_tokens = st.builds(
    lambda sign, digits, point, exponent: (
        sign + digits[:point] + ("." + digits[point:] if digits[point:] else "") + exponent
    ),
    st.sampled_from(["", "-"]),
    st.from_regex(r"[1-9][0-9]{0,39}", fullmatch=True),
    st.integers(1, 40),
    st.sampled_from(["", "e5", "E-7", "e+22", "e-300", "e308", "e-330"])
    | st.from_regex(r"e-?[0-9]{1,3}", fullmatch=True),
)


@settings(max_examples=300, deadline=None)
@given(token=_decimal_tokens | st.floats(allow_nan=False, allow_infinity=False).map(repr))
def test_every_number_is_rounded_as_json_loads_rounds_it(simulated_page, token):
    page = {"markets": simulated_page["markets"][:1]}
    _assert_bytes_agree(_edited(page, b'"bestBid": ', b'"bestBid": ' + token.encode() + b', "x": '))
