"""verbatim_columns, the copy's page-at-a-time reader, gives exactly verbatim_row's rows or steps aside.

The copy takes a page by columns only when ``verbatim_columns`` answers; when it answers None the
page is copied row by row, so every refusal is ``verbatim_row``'s own. So for any page it must either
give the rows ``verbatim_row`` gives, column by column, or None, and None whenever ``verbatim_row``
refuses any market of the page.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colosseum_core.exchanges.polymarket import VERBATIM_SCHEMA, FieldError, page_items, verbatim_row
from colosseum_core.exchanges.polymarket.markets import verbatim_columns
from colosseum_core.standins.simulated_exchange import AS_OF_HEADER, running_exchange

FIXTURE = Path(__file__).parent / "fixtures" / "polymarket" / "markets_keyset_page.json"
RECEIPT = "r" * 64


def _pairs(body: Any) -> list[tuple[Any, Any]]:
    return [(item.market, item.event) for item in page_items(body, RECEIPT)]


def _rows_or_refusal(pairs: list[tuple[Any, Any]]) -> list[dict[str, Any]] | None:
    try:
        return [verbatim_row(m, e, receipt_id=RECEIPT, position=i) for i, (m, e) in enumerate(pairs)]
    except FieldError:
        return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _assert_agrees(pairs: list[tuple[Any, Any]]) -> dict[str, list[Any]] | None:
    rows = _rows_or_refusal(pairs)
    columns = verbatim_columns(pairs, receipt_id=RECEIPT)
    if rows is None:
        assert columns is None, "verbatim_columns copied a page verbatim_row refuses"
        return None
    if columns is not None:
        assert list(columns) == list(VERBATIM_SCHEMA)
        for name in VERBATIM_SCHEMA:
            expected = [row[name] for row in rows]
            assert all(_same(a, b) for a, b in zip(columns[name], expected, strict=True)), name
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
