"""The verbatim copy of one Gamma market: one flat row, every value exactly as Polymarket published it.

Nothing is computed or paraphrased. The only transformations are the ones the publication itself
calls for: list fields that Gamma ships as JSON text inside a string are decoded to lists, an
identifier Gamma ships as an integer (the event ``gameId``) is written as its decimal digits, and
the timestamps the selection rules read are additionally parsed to UTC instants (``*_ts``) beside
their verbatim text. Every value is type-checked on the way in; a value of the wrong type is a
``FieldError`` naming the receipt, the market, the Gamma key and the value, never a guess.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec
import polars as pl

from colosseum_core import json_values
from colosseum_core.exchanges.polymarket.timestamps import parse_timestamp

_STRING = pl.String()
_FLOAT = pl.Float64()
_BOOL = pl.Boolean()
_LIST = pl.List(pl.String())
_INSTANT = pl.Datetime("us", "UTC")

VERBATIM_SCHEMA: dict[str, pl.DataType] = {
    "market_id": _STRING,
    "event_id": _STRING,
    "condition_id": _STRING,
    "question_id": _STRING,
    "slug": _STRING,
    "question": _STRING,
    "description": _STRING,
    "resolution_source": _STRING,
    "outcomes": _LIST,
    "outcome_prices": _LIST,
    "clob_token_ids": _LIST,
    "best_bid": _FLOAT,
    "best_ask": _FLOAT,
    "spread": _FLOAT,
    "last_trade_price": _FLOAT,
    "volume": _STRING,
    "volume_num": _FLOAT,
    "volume_24hr": _FLOAT,
    "liquidity": _STRING,
    "liquidity_num": _FLOAT,
    "liquidity_clob": _FLOAT,
    "start_date": _STRING,
    "end_date": _STRING,
    "game_start_time": _STRING,
    "market_event_start_time": _STRING,
    "closed_time": _STRING,
    "uma_end_date": _STRING,
    "active": _BOOL,
    "closed": _BOOL,
    "archived": _BOOL,
    "accepting_orders": _BOOL,
    "enable_order_book": _BOOL,
    "neg_risk": _BOOL,
    "neg_risk_other": _BOOL,
    "neg_risk_market_id": _STRING,
    "group_item_title": _STRING,
    "sports_market_type": _STRING,
    "game_id": _STRING,
    "uma_resolution_status": _STRING,
    "uma_resolution_statuses": _LIST,
    "version": _STRING,
    "order_price_min_tick_size": _FLOAT,
    "event_title": _STRING,
    "event_slug": _STRING,
    "event_start_time": _STRING,
    "event_end_date": _STRING,
    "event_volume": _FLOAT,
    "event_volume_24hr": _FLOAT,
    "event_liquidity": _FLOAT,
    "event_neg_risk": _BOOL,
    "event_game_id": _STRING,
    "event_series_recurrence": _STRING,
    "end_date_ts": _INSTANT,
    "start_date_ts": _INSTANT,
    "game_start_time_ts": _INSTANT,
    "market_event_start_time_ts": _INSTANT,
    "event_start_time_ts": _INSTANT,
    "event_end_date_ts": _INSTANT,
    "receipt_id": _STRING,
    "position": pl.Int64(),
}

# Error reports name an event's keys with this prefix, to tell the event's ``volume`` from the
# market's.
EVENT_FIELD_PREFIX = "event."
_VALUE_REPR_LIMIT = 80
# A decimal as JSON or Gamma's number-strings spell it. Python's float() alone would also take
# "1_000", " 1 ", "nan", "infinity" and non-ASCII digits, none of which Gamma publishes.
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _VALUE_REPR_LIMIT else text[: _VALUE_REPR_LIMIT - 1] + "…"


class FieldError(ValueError):
    """One published field of one market that can not be copied as its column's type."""

    def __init__(self, receipt_id: str, market_id: str | None, field: str, value: Any, reason: str) -> None:
        self.receipt_id = receipt_id
        self.market_id = market_id
        self.field = field
        self.value = value
        self.reason = reason
        market = repr(market_id) if market_id is not None else "<no id>"
        super().__init__(
            f"receipt {receipt_id}, market {market}, field {field!r} = {_short(value)}: {reason}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.receipt_id, self.market_id, self.field, self.value, self.reason))


class _Invalid(Exception):
    """Raised by a reader; the row builder turns it into a FieldError with the full context."""


_ABSENT = object()


def _utf8(text: str) -> str:
    # Parquet strings are UTF-8: a lone surrogate (which json.loads accepts from "\ud800") can not
    # be stored, so it is refused here rather than failing the whole table write later.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _Invalid(f"is not valid Unicode text ({exc.reason})") from exc
    return text


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"is a JSON {_json_type(value)}, expected a string")
    return _utf8(value)


def _identifier(value: Any) -> str:
    # Identifiers are numeric strings on Gamma, except the event gameId, which is an integer. An
    # integer is written as its decimal digits: lossless, and what the string form would be.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        return _utf8(value)
    raise _Invalid(f"is a JSON {_json_type(value)}, expected a string or integer identifier")


def _float(value: Any) -> float:
    if isinstance(value, bool):
        raise _Invalid("is a JSON boolean, expected a number")
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError as exc:
            raise _Invalid("is too large for a 64-bit float") from exc
    elif isinstance(value, str):
        if _DECIMAL.fullmatch(value) is None:
            raise _Invalid("is a string that is not a decimal number")
        number = float(value)
    else:
        raise _Invalid(f"is a JSON {_json_type(value)}, expected a number")
    if not math.isfinite(number):
        raise _Invalid("is not a finite number")
    return number


def _number_text(value: Any) -> str:
    # Market ``volume``/``liquidity`` are published as decimal strings and copied as that text.
    # Should Gamma send a bare number instead, its JSON text is the faithful spelling.
    if isinstance(value, str):
        if _DECIMAL.fullmatch(value) is None:
            raise _Invalid("is a string that is not a decimal number")
        return value
    _float(value)
    return json.dumps(value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"is a JSON {_json_type(value)}, expected a boolean")
    return value


def _timestamp_text(value: Any) -> str:
    text = _string(value)
    try:
        parse_timestamp(text)
    except ValueError as exc:
        raise _Invalid(str(exc)) from exc
    return text


def _string_list(value: Any, *, decimals: bool = False) -> list[str]:
    # Gamma publishes these lists as JSON text in a string ("[\"Yes\", \"No\"]"). A real array is
    # taken as is: it is the same list, and the independent copy check decodes both alike.
    decoded = value
    if isinstance(value, str):
        try:
            decoded = json_values.loads_strings(value)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise _Invalid(f"is a string that is not JSON ({exc})") from exc
    if not isinstance(decoded, list):
        what = "decodes to" if isinstance(value, str) else "is"
        raise _Invalid(f"{what} a JSON {_json_type(decoded)}, expected an array of strings")
    for index, item in enumerate(decoded):
        if not isinstance(item, str):
            raise _Invalid(f"item [{index}] is a JSON {_json_type(item)}, expected a string")
        _utf8(item)
        if decimals and _DECIMAL.fullmatch(item) is None:
            raise _Invalid(f"item [{index}] {item!r:.40} is not a decimal string")
    return list(decoded)


def _decimal_list(value: Any) -> list[str]:
    return _string_list(value, decimals=True)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


@dataclasses.dataclass(frozen=True)
class _Column:
    name: str
    key: str
    read: Callable[[Any], Any]
    required: bool = False


# Columns in VERBATIM_SCHEMA order, each read from one Gamma key of the market (or its event).
_MARKET_COLUMNS = (
    _Column("market_id", "id", _identifier, required=True),
    _Column("condition_id", "conditionId", _string),
    _Column("question_id", "questionID", _string),
    _Column("slug", "slug", _string),
    _Column("question", "question", _string, required=True),
    _Column("description", "description", _string),
    _Column("resolution_source", "resolutionSource", _string),
    _Column("outcomes", "outcomes", _string_list, required=True),
    _Column("outcome_prices", "outcomePrices", _decimal_list),
    _Column("clob_token_ids", "clobTokenIds", _string_list),
    _Column("best_bid", "bestBid", _float),
    _Column("best_ask", "bestAsk", _float),
    _Column("spread", "spread", _float),
    _Column("last_trade_price", "lastTradePrice", _float),
    _Column("volume", "volume", _number_text),
    _Column("volume_num", "volumeNum", _float),
    _Column("volume_24hr", "volume24hr", _float),
    _Column("liquidity", "liquidity", _number_text),
    _Column("liquidity_num", "liquidityNum", _float),
    _Column("liquidity_clob", "liquidityClob", _float),
    _Column("start_date", "startDate", _timestamp_text),
    _Column("end_date", "endDate", _timestamp_text, required=True),
    _Column("game_start_time", "gameStartTime", _timestamp_text),
    _Column("market_event_start_time", "eventStartTime", _timestamp_text),
    _Column("closed_time", "closedTime", _timestamp_text),
    _Column("uma_end_date", "umaEndDate", _timestamp_text),
    _Column("active", "active", _bool),
    _Column("closed", "closed", _bool),
    _Column("archived", "archived", _bool),
    _Column("accepting_orders", "acceptingOrders", _bool),
    _Column("enable_order_book", "enableOrderBook", _bool),
    _Column("neg_risk", "negRisk", _bool),
    _Column("neg_risk_other", "negRiskOther", _bool),
    _Column("neg_risk_market_id", "negRiskMarketID", _string),
    _Column("group_item_title", "groupItemTitle", _string),
    _Column("sports_market_type", "sportsMarketType", _string),
    _Column("game_id", "gameId", _identifier),
    _Column("uma_resolution_status", "umaResolutionStatus", _string),
    _Column("uma_resolution_statuses", "umaResolutionStatuses", _string_list),
    _Column("version", "version", _string),
    _Column("order_price_min_tick_size", "orderPriceMinTickSize", _float),
)
_EVENT_COLUMNS = (
    _Column("event_id", "id", _identifier, required=True),
    _Column("event_title", "title", _string),
    _Column("event_slug", "slug", _string),
    _Column("event_start_time", "startTime", _timestamp_text),
    _Column("event_end_date", "endDate", _timestamp_text),
    _Column("event_volume", "volume", _float),
    _Column("event_volume_24hr", "volume24hr", _float),
    _Column("event_liquidity", "liquidity", _float),
    _Column("event_neg_risk", "negRisk", _bool),
    _Column("event_game_id", "gameId", _identifier),
)
# Parsed instants beside their verbatim text: (instant column, text column).
_INSTANT_COLUMNS = (
    ("end_date_ts", "end_date"),
    ("start_date_ts", "start_date"),
    ("game_start_time_ts", "game_start_time"),
    ("market_event_start_time_ts", "market_event_start_time"),
    ("event_start_time_ts", "event_start_time"),
    ("event_end_date_ts", "event_end_date"),
)


def _recurrence(event: Mapping[str, Any]) -> str | None:
    series = event.get("series")
    if series is None or series == []:
        return None
    if not isinstance(series, list) or not isinstance(series[0], Mapping):
        raise _Invalid("expected an array of series objects")
    recurrence = series[0].get("recurrence")
    return None if recurrence is None else _string(recurrence)


def _no_parent(market: Mapping[str, Any]) -> str:
    events = market.get("events", _ABSENT)
    if events is _ABSENT or events is None:
        return "the market has no parent event (no 'events' key, and not nested in an event)"
    if events == []:
        return "the market has no parent event ('events' is an empty array)"
    return "the market has no parent event ('events' is not an array of event objects)"


def verbatim_row(
    market: Mapping[str, Any], event: Mapping[str, Any] | None, *, receipt_id: str, position: int
) -> dict[str, Any]:
    """One row of ``VERBATIM_SCHEMA`` holding ``market`` (and its parent ``event``) as published."""
    if not isinstance(market, Mapping):
        raise FieldError(
            receipt_id, None, "<market>", market, f"is a JSON {_json_type(market)}, not an object"
        )
    market_id: str | None = None
    raw_id = market.get("id")
    if isinstance(raw_id, str | int) and not isinstance(raw_id, bool):
        market_id = str(raw_id)

    row: dict[str, Any] = {}

    def read(columns: tuple[_Column, ...], source: Mapping[str, Any], prefix: str) -> None:
        for column in columns:
            value = source.get(column.key)
            if value is None:
                if column.required:
                    state = "is null" if column.key in source else "is missing"
                    raise FieldError(
                        receipt_id, market_id, prefix + column.key, value, f"required key {state}"
                    )
                row[column.name] = None
                continue
            try:
                row[column.name] = column.read(value)
            except _Invalid as exc:
                raise FieldError(receipt_id, market_id, prefix + column.key, value, str(exc)) from None

    read(_MARKET_COLUMNS, market, "")
    if event is None:
        raise FieldError(receipt_id, market_id, "events", market.get("events"), _no_parent(market))
    if not isinstance(event, Mapping):
        raise FieldError(
            receipt_id, market_id, "events", event, f"the parent event is a JSON {_json_type(event)}"
        )
    read(_EVENT_COLUMNS, event, EVENT_FIELD_PREFIX)
    try:
        row["event_series_recurrence"] = _recurrence(event)
    except _Invalid as exc:
        raise FieldError(
            receipt_id, market_id, EVENT_FIELD_PREFIX + "series", event.get("series"), str(exc)
        ) from None

    for instant, text in _INSTANT_COLUMNS:
        row[instant] = None if row[text] is None else parse_timestamp(row[text])
    row["receipt_id"] = receipt_id
    row["position"] = position
    return {name: row[name] for name in VERBATIM_SCHEMA}


def verbatim_frame(rows: Iterable[Mapping[str, Any]]) -> pl.DataFrame:
    """Rows from ``verbatim_row`` as a frame with exactly ``VERBATIM_SCHEMA``."""
    return pl.DataFrame(list(rows), schema=VERBATIM_SCHEMA)


# -- a page at a time --------------------------------------------------------------------------
#
# ``verbatim_columns`` is ``verbatim_row`` for a whole page, column by column: the same readers'
# judgements made over a column's values at once (type sets, one UTF-8 encode per column, each
# timestamp and list text read once per page). It only ever takes the easy road: any value that
# ``verbatim_row`` would refuse, or that needs more than a type test to be sure of (a subclass, a
# number in a string, a real array for a list), makes it answer None, and the caller then copies
# that page row by row, so every refusal is still ``verbatim_row``'s own, with its exact message.


class _Slow(Exception):
    """This column needs ``verbatim_row``'s row-by-row reading."""


def _all_utf8(texts: Iterable[str]) -> None:
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        raise _Slow from None


def _strings(values: list[Any], _memo: _PageMemo) -> list[Any]:
    if not set(map(type, values)) <= {str, type(None)}:
        raise _Slow
    _all_utf8(v for v in values if v is not None)
    return values


def _identifiers(values: list[Any], _memo: _PageMemo) -> list[Any]:
    types = set(map(type, values))
    if not types <= {str, int, type(None)}:
        raise _Slow
    _all_utf8(v for v in values if type(v) is str)
    return [str(v) if type(v) is int else v for v in values] if int in types else values


def _floats(values: list[Any], _memo: _PageMemo) -> list[Any]:
    types = set(map(type, values))
    if not types <= {float, int, type(None)}:
        raise _Slow
    try:
        numbers = [None if v is None else float(v) for v in values] if int in types else values
    except OverflowError:
        raise _Slow from None
    if not all(math.isfinite(v) for v in numbers if v is not None):
        raise _Slow
    return numbers


def _number_texts(values: list[Any], _memo: _PageMemo) -> list[Any]:
    if not set(map(type, values)) <= {str, type(None)}:
        raise _Slow
    if not all(_DECIMAL.fullmatch(v) for v in values if v is not None):
        raise _Slow
    return values


def _bools(values: list[Any], _memo: _PageMemo) -> list[Any]:
    if not set(map(type, values)) <= {bool, type(None)}:
        raise _Slow
    return values


def _timestamp_texts(values: list[Any], memo: _PageMemo) -> list[Any]:
    texts = _strings(values, memo)
    for text in texts:
        if text is not None and text not in memo.instants:
            try:
                memo.instants[text] = parse_timestamp(text)
            except ValueError:
                raise _Slow from None
    return texts


def _decoded_list(text: str, decimals: bool) -> list[str]:
    try:
        return _string_list(text, decimals=decimals)
    except _Invalid:
        raise _Slow from None


def _list_reader(
    decimals: bool, decode: Callable[[str, bool], list[str]] = _decoded_list
) -> Callable[[list[Any], _PageMemo], list[Any]]:
    """A reader of an encoded list column: each distinct text decoded once by ``decode``."""

    def read(values: list[Any], memo: _PageMemo) -> list[Any]:
        if not set(map(type, values)) <= {str, type(None)}:
            raise _Slow
        cache = memo.lists[decimals]
        for text in set(values) - cache.keys():
            if text is not None:
                cache[text] = decode(text, decimals)
        # Rows publishing the same text share one list: nothing downstream mutates a row's value.
        return [None if text is None else cache[text] for text in values]

    return read


@dataclasses.dataclass
class _PageMemo:
    """What a page repeats (end dates, ``["Yes", "No"]``), read once per page."""

    instants: dict[str, dt.datetime] = dataclasses.field(default_factory=dict)
    lists: dict[bool, dict[str, list[str]]] = dataclasses.field(default_factory=lambda: {False: {}, True: {}})


_COLUMN_READERS: dict[Callable[[Any], Any], Callable[[list[Any], _PageMemo], list[Any]]] = {
    _string: _strings,
    _identifier: _identifiers,
    _float: _floats,
    _number_text: _number_texts,
    _bool: _bools,
    _timestamp_text: _timestamp_texts,
    _string_list: _list_reader(False),
    _decimal_list: _list_reader(True),
}


def _read_columns(
    columns: tuple[_Column, ...], objects: list[dict[str, Any]], memo: _PageMemo, out: dict[str, list[Any]]
) -> None:
    for column in columns:
        values = list(map(dict.get, objects, itertools.repeat(column.key, len(objects))))
        if column.required and any(v is None for v in values):
            raise _Slow
        out[column.name] = _COLUMN_READERS[column.read](values, memo)


def _recurrences(events: list[dict[str, Any]]) -> list[str | None]:
    out: list[str | None] = []
    for event in events:
        series = event.get("series")
        if series is None or series == []:
            out.append(None)
            continue
        if type(series) is not list or type(series[0]) is not dict:
            raise _Slow
        out.append(series[0].get("recurrence"))
    return _strings(out, _PageMemo())


def verbatim_columns(pairs: Sequence[tuple[Any, Any]], *, receipt_id: str) -> dict[str, list[Any]] | None:
    """``verbatim_row`` of every (market, parent event) pair, at positions 0, 1, …, as columns.

    Exactly the rows ``verbatim_row`` gives, keyed by ``VERBATIM_SCHEMA``'s columns; None when a
    value is one it would refuse or one this reader leaves to it (see above): copy that page row
    by row.
    """
    markets = [market for market, _event in pairs]
    events = [event for _market, event in pairs]
    if any(type(m) is not dict for m in markets) or any(type(e) is not dict for e in events):
        return None
    return _page_columns(_read_columns, markets, events, _recurrences, receipt_id)


def _page_columns(
    read: Callable[[tuple[_Column, ...], list[Any], _PageMemo, dict[str, list[Any]]], None],
    markets: list[Any],
    events: list[Any],
    recurrences: Callable[[list[Any]], list[str | None]],
    receipt_id: str,
) -> dict[str, list[Any]] | None:
    """A page's columns in ``VERBATIM_SCHEMA`` order, each read by ``read``; None if one steps aside."""
    memo = _PageMemo()
    columns: dict[str, list[Any]] = {}
    try:
        read(_MARKET_COLUMNS, markets, memo, columns)
        read(_EVENT_COLUMNS, events, memo, columns)
        columns["event_series_recurrence"] = recurrences(events)
    except _Slow:
        return None
    for instant, text in _INSTANT_COLUMNS:
        columns[instant] = [None if t is None else memo.instants[t] for t in columns[text]]
    columns["receipt_id"] = [receipt_id] * len(markets)
    columns["position"] = list(range(len(markets)))
    return {name: columns[name] for name in VERBATIM_SCHEMA}


# -- a keyset page straight from its bytes ------------------------------------------------------
#
# ``keyset_columns`` reads the plain keyset envelope, ``{"markets": [...], "next_cursor": ...}``,
# with msgspec into only the keys the copy reads, each decoded as its reader's JSON types (a
# string, a number, a boolean, a string or integer identifier, or null). What it accepts it reads
# as ``json.loads`` does (a repeated key's last value, numbers correctly rounded), and what it does
# not (another type, another key beside the envelope's two, a lone surrogate, a number beyond a
# double, bytes that are not UTF-8 or not JSON) makes it answer None: the caller then reads the
# page as before, with ``page_items`` and ``verbatim_columns`` or ``verbatim_row``. After the
# decoding the column readers still judge what a type does not settle (decimal text, timestamps,
# the encoded lists, identifiers given as integers); strings, numbers and booleans need no more.

_TYPES: dict[Callable[[Any], Any], Any] = {
    _string: str | None,
    _identifier: str | int | None,
    _float: float | None,
    _number_text: str | None,
    _bool: bool | None,
    _timestamp_text: str | None,
    _string_list: str | None,
    _decimal_list: str | None,
}
# The readers whose whole judgement is the JSON type msgspec has already checked: a string it
# decodes is valid Unicode (it refuses lone surrogates), and a number it decodes is finite.
_SETTLED_BY_TYPE = frozenset({_string, _float, _bool})


def _typed_struct(name: str, columns: tuple[_Column, ...], extra: Sequence[tuple[str, Any]] = ()) -> Any:
    fields = [(column.key, _TYPES[column.read], None) for column in columns]
    return msgspec.defstruct(name, [*fields, *((key, kind, None) for key, kind in extra)], gc=False)


# gc=False: a page makes a hundred thousand of these, none in a cycle, and tracking them made the
# collector run through the copy (half a second on a 50,000-market board).
_TypedSeries = msgspec.defstruct("_TypedSeries", [("recurrence", str | None, None)], gc=False)
_TypedEvent = _typed_struct("_TypedEvent", _EVENT_COLUMNS, [("series", list[_TypedSeries] | None)])
_TypedMarket = _typed_struct("_TypedMarket", _MARKET_COLUMNS, [("events", list[_TypedEvent] | None)])
_TypedEnvelope = msgspec.defstruct(
    "_TypedEnvelope",
    [("markets", list[_TypedMarket]), ("next_cursor", str | None, None)],
    forbid_unknown_fields=True,
)
_ENVELOPE_DECODER = msgspec.json.Decoder(_TypedEnvelope)


_STRING_LIST_DECODER = msgspec.json.Decoder(list[str])


def _typed_list(text: str, decimals: bool) -> list[str]:
    # A text msgspec decoded, read once more by msgspec as an array of strings: that settles every
    # item's type and Unicode, and only decimals are left to test.
    try:
        items = _STRING_LIST_DECODER.decode(text)
    except msgspec.DecodeError:
        raise _Slow from None
    if decimals and not all(_DECIMAL.fullmatch(item) for item in items):
        raise _Slow
    return items


_TYPED_READERS = {
    **_COLUMN_READERS,
    _string_list: _list_reader(False, _typed_list),
    _decimal_list: _list_reader(True, _typed_list),
}


def _typed_columns(
    columns: tuple[_Column, ...], objects: list[Any], memo: _PageMemo, out: dict[str, list[Any]]
) -> None:
    fields = zip(*map(msgspec.structs.astuple, objects), strict=True) if objects else ((),) * len(columns)
    for column, field in zip(columns, fields, strict=False):
        values = list(field)
        if column.required and None in values:
            raise _Slow
        out[column.name] = (
            values if column.read in _SETTLED_BY_TYPE else _TYPED_READERS[column.read](values, memo)
        )


def keyset_columns(body: bytes, *, receipt_id: str) -> dict[str, list[Any]] | None:
    """``verbatim_columns`` of a plain keyset page's (market, ``events[0]``) pairs, read from its bytes.

    None when the body is not such a page or holds a value read otherwise (see above).
    """
    try:
        markets = _ENVELOPE_DECODER.decode(body).markets
    except (msgspec.DecodeError, RecursionError):
        return None
    events = [market.events[0] if market.events else None for market in markets]
    if None in events:
        return None
    return _page_columns(_typed_columns, markets, events, _typed_recurrences, receipt_id)


def _typed_recurrences(events: list[Any]) -> list[str | None]:
    return [event.series[0].recurrence if event.series else None for event in events]
