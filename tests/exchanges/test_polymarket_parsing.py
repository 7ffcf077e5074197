"""Gamma parsing: timestamps, page shapes and the verbatim copy of a market, on hand-written fixtures."""

from __future__ import annotations

import copy
import datetime as dt
import json
import pickle
import re
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from colosseum_core.exchanges.polymarket import (
    VERBATIM_SCHEMA,
    FieldError,
    PageError,
    format_timestamp,
    next_cursor_of,
    page_items,
    parse_timestamp,
    verbatim_frame,
    verbatim_row,
)
from tests.support import FIXTURES

POLYMARKET = FIXTURES / "polymarket"
RID = "ab" * 32
UTC = dt.UTC


def fixture(name: str) -> Any:
    return json.loads((POLYMARKET / name).read_text(encoding="utf-8"))


def rows_of(body: Any, receipt_id: str = RID) -> list[dict[str, Any]]:
    return [
        verbatim_row(item.market, item.event, receipt_id=receipt_id, position=item.position)
        for item in page_items(body, receipt_id)
    ]


# -- timestamps --------------------------------------------------------------------------------

VALID_TIMESTAMPS = [
    ("2026-03-12T09:25:00Z", dt.datetime(2026, 3, 12, 9, 25, tzinfo=UTC)),
    ("2026-03-12T09:25:00+00:00", dt.datetime(2026, 3, 12, 9, 25, tzinfo=UTC)),
    ("2026-03-11T09:29:01.328428Z", dt.datetime(2026, 3, 11, 9, 29, 1, 328428, tzinfo=UTC)),
    ("2026-04-27T21:55:14.576Z", dt.datetime(2026, 4, 27, 21, 55, 14, 576000, tzinfo=UTC)),
    ("2026-11-28T16:02:11.5Z", dt.datetime(2026, 11, 28, 16, 2, 11, 500000, tzinfo=UTC)),
    ("2026-07-25T05:49:16.46896Z", dt.datetime(2026, 7, 25, 5, 49, 16, 468960, tzinfo=UTC)),
    # Nanoseconds are truncated, not rounded: .9999999 must not roll into the next second.
    ("2026-12-31T23:59:59.9999999Z", dt.datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
    ("2026-03-19 23:20:15+00", dt.datetime(2026, 3, 19, 23, 20, 15, tzinfo=UTC)),
    ("2023-03-22 19:17:35.835+00", dt.datetime(2023, 3, 22, 19, 17, 35, 835000, tzinfo=UTC)),
    ("2026-12-01T18:04:51+00:00:00", dt.datetime(2026, 12, 1, 18, 4, 51, tzinfo=UTC)),
    ("2028-11-07", dt.datetime(2028, 11, 7, tzinfo=UTC)),
    ("2026-06-01T05:00:00-04:00", dt.datetime(2026, 6, 1, 9, 0, tzinfo=UTC)),
    ("2026-06-01T14:30:00+0530", dt.datetime(2026, 6, 1, 9, 0, tzinfo=UTC)),
    ("2026-06-01 00:30:00-01", dt.datetime(2026, 6, 1, 1, 30, tzinfo=UTC)),
    ("2026-06-01T09:00Z", dt.datetime(2026, 6, 1, 9, 0, tzinfo=UTC)),
]

INVALID_TIMESTAMPS = [
    "",
    "tomorrow",
    "2026-03-12T09:25:00",  # naive wall time: which zone?
    "2026-03-12 09:25:00",
    "2026-13-01T00:00:00Z",
    "2026-02-30",
    "2026-03-12T25:00:00Z",
    "2026-03-12T09:25:00+25:00",
    "2026-03-12T09:25:00+00:75",
    " 2026-03-12T09:25:00Z",
    "2026-03-12T09:25:00Z ",
    "2026-03-12T09:25:00.Z",
    "1773307500",
    "12/03/2026",
    "9999-12-31T23:00:00-05:00",  # past datetime's range once in UTC
    "\u0662\u0660\u0662\u0666-03-12",  # Arabic-Indic digits
]


@pytest.mark.parametrize(("text", "expected"), VALID_TIMESTAMPS)
def test_parse_timestamp_reads_every_gamma_spelling(text: str, expected: dt.datetime) -> None:
    parsed = parse_timestamp(text)
    assert parsed == expected
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize("text", INVALID_TIMESTAMPS)
def test_parse_timestamp_refuses_and_names_the_text(text: str) -> None:
    with pytest.raises(ValueError, match="is not") as caught:
        parse_timestamp(text)
    assert repr(text) in str(caught.value)


@pytest.mark.parametrize("value", [None, 1773307500, dt.datetime(2026, 1, 1, tzinfo=UTC)])
def test_parse_timestamp_refuses_non_text(value: Any) -> None:
    with pytest.raises(ValueError, match="not text"):
        parse_timestamp(value)


def test_format_timestamp_is_gamma_iso_and_round_trips() -> None:
    assert format_timestamp(dt.datetime(2026, 11, 30, 5, tzinfo=UTC)) == "2026-11-30T05:00:00Z"
    eastern = dt.timezone(dt.timedelta(hours=-5))
    assert format_timestamp(dt.datetime(2026, 11, 30, 0, 0, 0, 120, tzinfo=eastern)) == (
        "2026-11-30T05:00:00.000120Z"
    )
    for text, expected in VALID_TIMESTAMPS:
        assert parse_timestamp(format_timestamp(expected)) == expected, text
    with pytest.raises(ValueError, match="naive"):
        format_timestamp(dt.datetime(2026, 11, 30, 5))


# -- page shapes -------------------------------------------------------------------------------


def test_markets_keyset_envelope_pairs_each_market_with_events_0() -> None:
    body = fixture("markets_keyset_page.json")
    items = page_items(body, RID)
    assert [item.market["id"] for item in items] == ["7300001", "7300002", "7300003"]
    assert [item.event["id"] for item in items if item.event] == ["918204", "905517", "913330"]
    assert [item.position for item in items] == [0, 1, 2]
    assert all(item.receipt_id == RID for item in items)
    assert items[0].market is body["markets"][0]
    assert items[0].event is body["markets"][0]["events"][0]
    assert next_cursor_of(body) == "eyJpZCI6IjczMDAwMDMiLCJxIjoiYjE3YzAifQ=="


def test_events_keyset_envelope_pairs_nested_markets_with_their_event() -> None:
    body = fixture("events_keyset_page.json")
    items = page_items(body, RID)
    # The second event was fetched without markets: it contributes none.
    assert [(item.market["id"], item.event["id"]) for item in items if item.event] == [
        ("7400001", "921001"),
        ("7400002", "921001"),
    ]
    assert [item.position for item in items] == [0, 1]
    assert next_cursor_of(body) is None


def test_bare_arrays_single_objects_and_schema_key() -> None:
    keyset = fixture("markets_keyset_page.json")
    events = fixture("events_keyset_page.json")
    by_id = fixture("market_by_id_with_schema.json")

    assert [i.market["id"] for i in page_items(keyset["markets"], RID)] == ["7300001", "7300002", "7300003"]
    assert [i.market["id"] for i in page_items(events["events"], RID)] == ["7400001", "7400002"]
    single = page_items(by_id, RID)
    assert len(single) == 1
    assert single[0].market["$schema"].endswith("/schemas/Market.json")
    assert single[0].event is not None and single[0].event["gameId"] == 7731920
    one_event = page_items(events["events"][0], RID)
    assert [(i.market["id"], i.event["id"] if i.event else None) for i in one_event] == [
        ("7400001", "921001"),
        ("7400002", "921001"),
    ]
    assert page_items(events["events"][1], RID) == []
    assert page_items([], RID) == []
    assert page_items({"markets": []}, RID) == []
    assert page_items({"events": [], "next_cursor": ""}, RID) == []
    assert page_items({"events": [{"id": "1", "title": "t", "markets": None}]}, RID) == []


def test_market_without_events_key_has_no_parent() -> None:
    market = dict(fixture("markets_keyset_page.json")["markets"][0])
    del market["events"]
    (item,) = page_items(market, RID)
    assert item.event is None
    (item,) = page_items([{**market, "events": []}], RID)
    assert item.event is None


BAD_SHAPES = [
    ("a string", "the body is a JSON str"),
    (42, "the body is a JSON int"),
    (None, "the body is a JSON NoneType"),
    ({"markets": {"id": "1"}, "next_cursor": "x"}, "markets is dict, not an array"),
    ({"markets": [1, 2]}, "markets[0] is int, not an object"),
    ({"events": [{"id": "1", "title": "t", "markets": "[]"}]}, "events[0].markets is str"),
    ({"markets": [], "events": []}, "both 'markets' and 'events'"),
    ({"cursor": "abc", "markets": []}, "Kalshi's"),
    ({"data": [], "next_cursor": "MTAw", "limit": 100, "count": 0}, "the CLOB's"),
    ({"type": "validation error", "error": "order fields are not valid"}, "the body is an error"),
    ([{"id": "1", "question": "q"}, {"id": "2", "title": "t"}], "mixes markets and events"),
    ([{"id": "1", "foo": "bar"}], "is neither a market nor an event"),
    ([["nested"]], "array[0] is list"),
    ({"id": "1", "foo": "bar"}, "is not a Gamma page, market or event"),
    ({"condition_id": "0x1", "question": "q", "tokens": []}, "a CLOB market"),
    ({"foo": 1}, "is not a Gamma page"),
]


@pytest.mark.parametrize(("body", "message"), BAD_SHAPES)
def test_malformed_pages_raise_page_error_naming_the_receipt(body: Any, message: str) -> None:
    with pytest.raises(PageError, match=re.escape(message)) as caught:
        page_items(body, RID)
    assert RID in str(caught.value)
    assert caught.value.receipt_id == RID
    assert isinstance(caught.value, ValueError)


def test_bad_page_shape_fixture_is_refused() -> None:
    with pytest.raises(PageError, match="markets is dict"):
        page_items(fixture("bad_page_shape.json"), RID)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"markets": [], "next_cursor": "abc"}, "abc"),
        ({"markets": []}, None),
        ({"markets": [], "next_cursor": ""}, None),
        ({"markets": [], "next_cursor": None}, None),
        ([], None),
        ({"id": "1", "question": "q"}, None),
    ],
)
def test_next_cursor_of(body: Any, expected: str | None) -> None:
    assert next_cursor_of(body, RID) == expected


def test_next_cursor_of_refuses_a_non_string_cursor() -> None:
    with pytest.raises(PageError, match=f"receipt {RID}: next_cursor is int"):
        next_cursor_of({"markets": [], "next_cursor": 7}, RID)


def test_errors_pickle_with_their_fields() -> None:
    page_error = pickle.loads(pickle.dumps(PageError(RID, "broken")))
    assert (page_error.receipt_id, page_error.problem, str(page_error)) == (
        RID,
        "broken",
        f"receipt {RID}: broken",
    )
    field_error = pickle.loads(pickle.dumps(FieldError(RID, "7", "bestBid", {"a": 1}, "wrong")))
    assert (field_error.market_id, field_error.field, field_error.value) == ("7", "bestBid", {"a": 1})


# -- the verbatim copy ---------------------------------------------------------------------------


def test_verbatim_row_has_exactly_the_schema_columns_and_builds_a_frame() -> None:
    rows = rows_of(fixture("markets_keyset_page.json")) + rows_of(fixture("events_keyset_page.json"))
    assert all(list(row) == list(VERBATIM_SCHEMA) for row in rows)
    frame = verbatim_frame(rows)
    assert frame.schema == pl.Schema(VERBATIM_SCHEMA)
    assert frame.height == 5
    assert verbatim_frame([]).schema == pl.Schema(VERBATIM_SCHEMA)


def test_sports_market_numbers_as_strings_and_postgres_time() -> None:
    row = rows_of(fixture("markets_keyset_page.json"))[0]
    assert row["market_id"] == "7300001"
    assert row["event_id"] == "918204"
    assert row["question"] == "Harbor City Herons vs. Lakeside Lynx"
    assert row["description"].startswith("In the upcoming game, scheduled for December 1 at 8:30 PM ET:\n")
    assert "\u201cHarbor City Herons\u201d" in row["description"]
    assert row["outcomes"] == ["Harbor City Herons", "Lakeside Lynx"]
    assert row["outcome_prices"] == ["0.425", "0.575"]
    assert row["clob_token_ids"] == [
        "48213370112093847561029384756102938475610293847561029384756102938",
        "91827364501928374650192837465019283746501928374650192837465019283",
    ]
    # Numbers Gamma sent as strings are read as numbers; the verbatim money strings stay text.
    assert (row["best_bid"], row["best_ask"], row["spread"], row["last_trade_price"]) == (
        0.41,
        0.44,
        0.03,
        0.43,
    )
    assert (row["volume"], row["volume_num"], row["liquidity"], row["liquidity_num"]) == (
        "1520.5",
        1520.5,
        "880.25",
        880.25,
    )
    assert row["order_price_min_tick_size"] == 0.01
    assert row["volume_24hr"] is None  # the key is absent on this market
    assert row["game_start_time"] == "2026-12-02 01:30:00+00"
    assert row["game_start_time_ts"] == dt.datetime(2026, 12, 2, 1, 30, tzinfo=UTC)
    assert row["market_event_start_time"] == "2026-12-02T01:30:00Z"
    assert row["start_date"] == "2026-11-28T16:02:11.5Z"
    assert row["start_date_ts"] == dt.datetime(2026, 11, 28, 16, 2, 11, 500000, tzinfo=UTC)
    assert row["end_date_ts"] == dt.datetime(2026, 12, 9, 1, 30, tzinfo=UTC)
    assert row["game_id"] == "7731920"
    assert row["event_game_id"] == "7731920"  # the event publishes it as an integer
    assert row["event_series_recurrence"] == "daily"
    assert row["sports_market_type"] == "moneyline"
    assert row["event_start_time_ts"] == dt.datetime(2026, 12, 2, 1, 30, tzinfo=UTC)
    assert (row["event_volume"], row["event_liquidity"], row["event_volume_24hr"]) == (1520.5, 880.25, None)
    assert row["uma_resolution_statuses"] == []
    assert row["uma_resolution_status"] is None
    assert (row["receipt_id"], row["position"]) == (RID, 0)


def test_one_sided_book_and_proposed_market() -> None:
    row = rows_of(fixture("markets_keyset_page.json"))[1]
    assert row["best_bid"] is None
    assert (row["best_ask"], row["spread"]) == (0.07, 1.0)
    assert row["volume_24hr"] == 0.0
    assert row["uma_resolution_status"] == "proposed"
    assert row["uma_resolution_statuses"] == ["proposed"]
    assert row["uma_end_date"] == "2026-12-01T18:04:51+00:00:00"
    assert (row["event_volume_24hr"], row["event_liquidity"], row["event_series_recurrence"]) == (
        None,
        None,
        None,
    )
    assert row["event_game_id"] is None
    assert row["position"] == 1


def test_v2_market_with_position_ids() -> None:
    row = rows_of(fixture("markets_keyset_page.json"))[2]
    assert row["version"] == "v2"
    assert row["clob_token_ids"] is None
    assert row["neg_risk"] is True and row["event_neg_risk"] is True
    assert row["neg_risk_market_id"] == "0x7b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b00"
    assert row["volume_24hr"] == 30321.0
    assert row["event_volume_24hr"] == 40321.5
    assert row["end_date"] == "2026-12-03T19:00:00+00:00"
    assert row["event_end_date_ts"] == dt.datetime(2026, 12, 3, 19, tzinfo=UTC)
    assert row["event_series_recurrence"] is None  # an empty series array


def test_placeholder_market_and_events_page() -> None:
    osprey, other = rows_of(fixture("events_keyset_page.json"))
    assert osprey["event_id"] == other["event_id"] == "921001"
    assert osprey["start_date_ts"] == dt.datetime(2026, 11, 1, 10, 0, 0, 328428, tzinfo=UTC)
    assert osprey["event_start_time"] == "2026-12-05 09:00:00+00"
    assert osprey["event_start_time_ts"] == dt.datetime(2026, 12, 5, 9, tzinfo=UTC)
    assert other["condition_id"] == ""
    assert other["active"] is False and other["neg_risk_other"] is True
    for column in ("outcome_prices", "clob_token_ids", "start_date", "start_date_ts", "best_bid", "volume"):
        assert other[column] is None, column
    assert other["accepting_orders"] is None


def test_market_by_id_with_schema_key_copies_like_a_listed_market() -> None:
    body = fixture("market_by_id_with_schema.json")
    (row,) = rows_of(body)
    (listed,) = rows_of(fixture("markets_keyset_page.json")["markets"][:1])
    assert row == listed


def test_wrong_type_fixture_names_receipt_market_field_and_value() -> None:
    items = page_items(fixture("bad_field_wrong_type.json"), RID)
    verbatim_row(items[0].market, items[0].event, receipt_id=RID, position=0)
    with pytest.raises(FieldError) as caught:
        verbatim_row(items[1].market, items[1].event, receipt_id=RID, position=1)
    error = caught.value
    assert (error.receipt_id, error.market_id, error.field, error.value) == (
        RID,
        "7300009",
        "bestBid",
        {"a": 1},
    )
    message = str(error)
    assert RID in message and "'7300009'" in message and "'bestBid'" in message and "{'a': 1}" in message
    assert "expected a number" in message


def test_market_without_event_fixture_is_a_field_error() -> None:
    (item,) = page_items(fixture("bad_market_without_event.json"), RID)
    with pytest.raises(FieldError, match=r"'events' is an empty array") as caught:
        verbatim_row(item.market, item.event, receipt_id=RID, position=0)
    assert (caught.value.field, caught.value.market_id) == ("events", "7300010")


def _base_market() -> dict[str, Any]:
    return copy.deepcopy(fixture("markets_keyset_page.json")["markets"][0])


def _set(path: str, value: Any) -> dict[str, Any]:
    market = _base_market()
    target = market["events"][0] if path.startswith("event.") else market
    target[path.removeprefix("event.")] = value
    return market


def _drop(path: str) -> dict[str, Any]:
    market = _base_market()
    target = market["events"][0] if path.startswith("event.") else market
    del target[path.removeprefix("event.")]
    return market


FIELD_ERRORS = [
    (_set("bestBid", {"a": 1}), "bestBid", "expected a number"),
    (_set("bestAsk", "0.4x"), "bestAsk", "not a decimal"),
    (_set("spread", True), "spread", "boolean"),
    (_set("lastTradePrice", "NaN"), "lastTradePrice", "not a decimal"),
    (_set("volumeNum", 10**400), "volumeNum", "too large"),
    (_set("volumeNum", float("inf")), "volumeNum", "not a finite"),
    (_set("volume24hr", "1e999"), "volume24hr", "not a finite"),
    (_set("outcomes", "not json"), "outcomes", "not JSON"),
    (_set("outcomes", '{"Yes": 1}'), "outcomes", "decodes to a JSON object"),
    (_set("outcomes", "[1, 2]"), "outcomes", r"item \[0\] is a JSON number"),
    (_set("outcomes", 7), "outcomes", "is a JSON number"),
    (_set("outcomePrices", '["0.5", "half"]'), "outcomePrices", "not a decimal string"),
    (_set("clobTokenIds", '["1", null]'), "clobTokenIds", r"item \[1\] is a JSON null"),
    (_set("umaResolutionStatuses", "proposed"), "umaResolutionStatuses", "not JSON"),
    (_set("active", "yes"), "active", "expected a boolean"),
    (_set("closed", 0), "closed", "expected a boolean"),
    (_set("question", ["q"]), "question", "expected a string"),
    (_set("slug", 12), "slug", "expected a string"),
    (_set("description", "bad \ud800 text"), "description", "not valid Unicode"),
    (_set("volume", "lots"), "volume", "not a decimal"),
    (_set("volume", "\u0661.\u0665"), "volume", "not a decimal"),
    (_set("bestAsk", " 0.4"), "bestAsk", "not a decimal"),
    (_set("bestAsk", "1_000"), "bestAsk", "not a decimal"),
    (_set("liquidity", None), None, None),  # null is absent, not an error
    (_set("endDate", "2026-12-09T01:30:00"), "endDate", "not a timestamp"),
    (_set("gameStartTime", "soon"), "gameStartTime", "not a timestamp"),
    (_set("closedTime", "2026-02-30 00:00:00+00"), "closedTime", "not a valid timestamp"),
    (_set("gameId", 1.5), "gameId", "identifier"),
    (_set("id", 7300001), None, None),  # an integer id is written as its digits
    (_set("id", True), "id", "identifier"),
    (_drop("id"), "id", "required key is missing"),
    (_set("id", None), "id", "required key is null"),
    (_drop("question"), "question", "required key is missing"),
    (_drop("outcomes"), "outcomes", "required key is missing"),
    (_drop("endDate"), "endDate", "required key is missing"),
    (_drop("event.id"), "event.id", "required key is missing"),
    (_set("event.volume", "many"), "event.volume", "not a decimal"),
    (_set("event.negRisk", "false"), "event.negRisk", "expected a boolean"),
    (_set("event.gameId", False), "event.gameId", "identifier"),
    (_set("event.startTime", "2026-12-02"), None, None),
    (_set("event.series", {"recurrence": "daily"}), "event.series", "array of series"),
    (_set("event.series", [{"recurrence": 5}]), "event.series", "expected a string"),
]


@pytest.mark.parametrize(("market", "field", "reason"), FIELD_ERRORS)
def test_field_errors_name_receipt_market_field_and_value(
    market: dict, field: str | None, reason: str
) -> None:
    event = market["events"][0]
    if field is None:
        row = verbatim_row(market, event, receipt_id=RID, position=4)
        assert verbatim_frame([row]).height == 1
        return
    with pytest.raises(FieldError, match=reason) as caught:
        verbatim_row(market, event, receipt_id=RID, position=4)
    error = caught.value
    assert error.field == field
    assert error.receipt_id == RID
    message = str(error)
    assert f"receipt {RID}" in message
    assert repr(field) in message
    if field != "id":
        assert error.market_id == "7300001" and "'7300001'" in message
    key = field.removeprefix("event.")
    source = event if field.startswith("event.") else market
    assert error.value is source.get(key)


def test_field_error_truncates_long_values() -> None:
    market = _set("question", ["x" * 500])
    with pytest.raises(FieldError) as caught:
        verbatim_row(market, market["events"][0], receipt_id=RID, position=0)
    message = str(caught.value)
    assert "xxxxx" in message and "x" * 100 not in message
    assert caught.value.value == ["x" * 500]  # the attribute keeps the whole value


def test_no_parent_event_and_non_object_inputs() -> None:
    market = _base_market()
    with pytest.raises(FieldError, match="no parent event") as caught:
        verbatim_row(market, None, receipt_id=RID, position=0)
    assert caught.value.field == "events"
    with pytest.raises(FieldError, match="not an array of event objects"):
        verbatim_row({**market, "events": ["918204"]}, None, receipt_id=RID, position=0)
    with pytest.raises(FieldError, match="the parent event is a JSON array"):
        verbatim_row(market, [], receipt_id=RID, position=0)  # type: ignore[arg-type]
    with pytest.raises(FieldError, match="not an object"):
        verbatim_row("market", None, receipt_id=RID, position=0)  # type: ignore[arg-type]


def test_real_arrays_are_taken_as_the_same_lists() -> None:
    market = _set("outcomes", ["Harbor City Herons", "Lakeside Lynx"])
    row = verbatim_row(market, market["events"][0], receipt_id=RID, position=0)
    assert row["outcomes"] == ["Harbor City Herons", "Lakeside Lynx"]


def test_a_number_published_for_volume_is_kept_as_its_json_text() -> None:
    market = _set("volume", 1520.5)
    assert verbatim_row(market, market["events"][0], receipt_id=RID, position=0)["volume"] == "1520.5"


# -- property: anything but a FieldError is a bug ----------------------------------------------

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    # Lone surrogates: json.loads produces them from "\ud800" and Parquet can not store them.
    | st.text(alphabet=st.characters(categories=["Cs", "Ll"]), max_size=5)
    | st.sampled_from(
        ["", "[]", '["Yes", "No"]', '["0.5"]', "[1]", "{}", "null", "2026-12-02 01:30:00+00", "0.5", "1e400"]
    )
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
BASE_MARKETS = [
    *fixture("markets_keyset_page.json")["markets"],
    *(
        {**m, "events": [{k: v for k, v in e.items() if k != "markets"}]}
        for e in fixture("events_keyset_page.json")["events"]
        for m in e.get("markets", [])
    ),
]
MARKET_KEYS = sorted({key for market in BASE_MARKETS for key in market} | {"gameStartTime", "umaEndDate"})
EVENT_KEYS = sorted(
    {key for market in BASE_MARKETS for key in market["events"][0]} | {"gameId", "series", "startTime"}
)


@st.composite
def mutated_markets(draw: st.DrawFn) -> tuple[Any, Any]:
    market = copy.deepcopy(draw(st.sampled_from(BASE_MARKETS)))
    event = market["events"][0]
    for _ in range(draw(st.integers(1, 4))):
        target = draw(st.sampled_from(["market", "event", "drop-market", "drop-event"]))
        if target == "market":
            market[draw(st.sampled_from(MARKET_KEYS))] = draw(JSON_VALUES)
        elif target == "event":
            event[draw(st.sampled_from(EVENT_KEYS))] = draw(JSON_VALUES)
        elif target == "drop-market":
            market.pop(draw(st.sampled_from(MARKET_KEYS)), None)
        else:
            event.pop(draw(st.sampled_from(EVENT_KEYS)), None)
    # Rarely, the whole object is replaced (a middle value: hypothesis favours the bounds).
    if draw(st.integers(0, 20)) == 7:
        event = draw(JSON_VALUES)
    if draw(st.integers(0, 40)) == 17:
        market = draw(JSON_VALUES)
    return market, event


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_markets())
def test_verbatim_row_raises_nothing_but_field_error(pair: tuple[Any, Any]) -> None:
    market, event = pair
    try:
        row = verbatim_row(market, event, receipt_id=RID, position=0)
    except FieldError as error:
        assert error.receipt_id == RID
        assert RID in str(error)
        return
    assert list(row) == list(VERBATIM_SCHEMA)
    # Every row that is returned must also be storable as the table's schema.
    assert verbatim_frame([row]).height == 1


# -- what a sweep reads of a keyset page, from its bytes ----------------------------------------


def _summary_by_page_items(body: bytes) -> Any:
    """The sweep's reading through json.loads and page_items, or the refusal it meets."""
    from colosseum_core.exchanges.polymarket.client import _market_id

    try:
        decoded = json.loads(body)
        if not isinstance(decoded, dict) or "markets" not in decoded:
            return "not an envelope"
        items = page_items(decoded, RID)
        cursor = next_cursor_of(decoded, RID)
    except (ValueError, RecursionError, PageError) as exc:
        return type(exc).__name__
    return ([_market_id(i.market) for i in items], [i.event is not None for i in items], cursor)


_MARKET_TEXT = '{"id": %s, "question": "q", "events": %s}'


@pytest.mark.parametrize(
    "body",
    [
        b'{"markets": [], "next_cursor": null}',
        b'{"markets": [], "next_cursor": ""}',
        b'{"markets": [], "next_cursor": "abc"}',
        b'{"markets": [], "next_cursor": 5}',
        b'{"markets": [], "next_cursor": "abc", "data": []}',
        b'{"markets": [], "events": []}',
        b'{"markets": [5]}',
        b'{"markets": {}}',
        b'{"markets": [{"id": "1"}], "markets": []}',
        *(
            ('{"markets": [%s], "next_cursor": "c"}' % (_MARKET_TEXT % (market_id, events))).encode()
            for market_id in ('"1"', "2", "12345678901234567890123", "true", "1.5", "null", '"\\ud800"')
            for events in ("[]", "null", '[{"id": "9"}]', '[{"id": "9"}, 5]', "[5]", '{"id": "9"}', '"x"')
        ),
        b'{"markets": [{"id": "1", "x": NaN}]}',
        b'{"markets": [{"id": "1", "x": 1e400}]}',
        b'{"markets": [{"id": "1", "x": "\\udc00"}]}',
        b"\xef\xbb\xbf" + b'{"markets": []}',
        b'{"markets": []} x',
        b"[]",
    ],
)
def test_what_a_sweep_reads_of_a_keyset_page_is_what_page_items_reads(body):
    from colosseum_core.exchanges.polymarket.client import _decode_keyset, _summary

    expected = _summary_by_page_items(body)
    try:
        summary = _summary(_decode_keyset(body), RID)
        got: Any = (summary.market_ids, summary.with_parent, summary.next_cursor)
    except (ValueError, RecursionError, PageError) as exc:
        got = "not an envelope" if "not a /markets/keyset envelope" in str(exc) else type(exc).__name__
    assert got == expected


def test_a_plain_keyset_page_is_read_without_decoding_its_markets():
    from colosseum_core.exchanges.polymarket.pages import keyset_summary

    body = (
        b'{"markets": [{"id": 2, "events": [{"id": "9"}], "question": "q"}, {"id": "3"}], "next_cursor": ""}'
    )
    summary = keyset_summary(body)
    assert summary is not None
    assert (summary.market_ids, summary.with_parent, summary.next_cursor) == (["2", "3"], [True, False], None)
    assert keyset_summary(b'{"markets": [{"id": true}]}') is None
