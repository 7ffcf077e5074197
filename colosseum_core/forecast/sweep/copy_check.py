"""The independent re-check of the copy: every copied row against its recorded original.

Written apart from the copy code on purpose: it walks each receipt's JSON itself, decodes every
published field with polars' JSON decoder, and compares it with what the record holds.
If the copy code ever paraphrases, rounds, drops or invents a value, this check names the market,
the column, the copied value and the published one.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import os
import re
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl

from colosseum_core.record import ReceiptStore
from colosseum_core.record.receipts import ReceiptError

# column -> (object the value is published on, JSON path within it)
_STRINGS = {
    "market_id": ("market", "id"),
    "condition_id": ("market", "conditionId"),
    "question_id": ("market", "questionID"),
    "slug": ("market", "slug"),
    "question": ("market", "question"),
    "description": ("market", "description"),
    "resolution_source": ("market", "resolutionSource"),
    "volume": ("market", "volume"),
    "liquidity": ("market", "liquidity"),
    "start_date": ("market", "startDate"),
    "end_date": ("market", "endDate"),
    "game_start_time": ("market", "gameStartTime"),
    "market_event_start_time": ("market", "eventStartTime"),
    "closed_time": ("market", "closedTime"),
    "uma_end_date": ("market", "umaEndDate"),
    "neg_risk_market_id": ("market", "negRiskMarketID"),
    "group_item_title": ("market", "groupItemTitle"),
    "sports_market_type": ("market", "sportsMarketType"),
    "game_id": ("market", "gameId"),
    "uma_resolution_status": ("market", "umaResolutionStatus"),
    "version": ("market", "version"),
    "event_id": ("event", "id"),
    "event_title": ("event", "title"),
    "event_slug": ("event", "slug"),
    "event_start_time": ("event", "startTime"),
    "event_end_date": ("event", "endDate"),
    "event_game_id": ("event", "gameId"),
    "event_series_recurrence": ("event", "series[0].recurrence"),
}
_NUMBERS = {
    "best_bid": ("market", "bestBid"),
    "best_ask": ("market", "bestAsk"),
    "spread": ("market", "spread"),
    "last_trade_price": ("market", "lastTradePrice"),
    "volume_num": ("market", "volumeNum"),
    "volume_24hr": ("market", "volume24hr"),
    "liquidity_num": ("market", "liquidityNum"),
    "liquidity_clob": ("market", "liquidityClob"),
    "order_price_min_tick_size": ("market", "orderPriceMinTickSize"),
    "event_volume": ("event", "volume"),
    "event_volume_24hr": ("event", "volume24hr"),
    "event_liquidity": ("event", "liquidity"),
}
_BOOLEANS = {
    "active": ("market", "active"),
    "closed": ("market", "closed"),
    "archived": ("market", "archived"),
    "accepting_orders": ("market", "acceptingOrders"),
    "enable_order_book": ("market", "enableOrderBook"),
    "neg_risk": ("market", "negRisk"),
    "neg_risk_other": ("market", "negRiskOther"),
    "event_neg_risk": ("event", "negRisk"),
}
# Polymarket publishes these lists as JSON text inside a string field.
_ENCODED_LISTS = {
    "outcomes": ("market", "outcomes"),
    "outcome_prices": ("market", "outcomePrices"),
    "clob_token_ids": ("market", "clobTokenIds"),
    "uma_resolution_statuses": ("market", "umaResolutionStatuses"),
}
# Parsed instants, re-derived here from the published text by a separate normaliser.
_INSTANTS = {
    "end_date_ts": "end_date",
    "start_date_ts": "start_date",
    "game_start_time_ts": "game_start_time",
    "market_event_start_time_ts": "market_event_start_time",
    "event_start_time_ts": "event_start_time",
    "event_end_date_ts": "event_end_date",
}
CHECKED_COLUMNS = (*_STRINGS, *_NUMBERS, *_BOOLEANS, *_ENCODED_LISTS, *_INSTANTS)
_DECODE_THREADS = min(4, os.cpu_count() or 1)
_PAGES_PER_FLATTENING = 50


@dataclasses.dataclass(frozen=True)
class CopyMismatch:
    market_id: str
    receipt_id: str
    column: str
    copied: str
    published: str


def _page_markets(body: Any) -> list[tuple[dict, dict | None]]:
    """(market, parent event) pairs in document order, for every Gamma page shape."""

    def from_event(event: dict) -> list[tuple[dict, dict | None]]:
        return [(m, event) for m in event.get("markets") or []]

    def from_market(market: dict) -> list[tuple[dict, dict | None]]:
        events = market.get("events")
        return [(market, events[0] if isinstance(events, list) and events else None)]

    def from_item(item: Any) -> list[tuple[dict, dict | None]]:
        if not isinstance(item, dict):
            return []
        return from_market(item) if "question" in item else from_event(item)

    if isinstance(body, list):
        return [pair for item in body for pair in from_item(item)]
    if isinstance(body, dict):
        if isinstance(body.get("markets"), list) and "question" not in body and "title" not in body:
            return [pair for m in body["markets"] for pair in from_market(m)]
        if isinstance(body.get("events"), list) and "question" not in body:
            return [pair for e in body["events"] for pair in from_event(e)]
        return from_item(body)
    return []


def _sources() -> dict[str, dict[str, pl.DataType]]:
    """The published keys the check reads, per object, each decoded as its raw JSON text.

    Decoding to text keeps numbers exactly as published (polars' JSON-path matcher re-prints
    floats and can change their last digit); the cast to a number happens once, below.
    """
    keys: dict[str, dict[str, pl.DataType]] = {"market": {}, "event": {}}
    for owner, path in (
        *_STRINGS.values(),
        *_NUMBERS.values(),
        *_BOOLEANS.values(),
        *_ENCODED_LISTS.values(),
    ):
        if path != "series[0].recurrence":
            keys[owner][path] = pl.String()
    keys["event"]["series"] = pl.List(pl.Struct({"recurrence": pl.String()}))
    return keys


_SOURCES = _sources()
_MARKET = pl.Struct(_SOURCES["market"])
_EVENT = pl.Struct(_SOURCES["event"])
# A keyset page's markets, each with its ``events`` (the first is the parent), as one decode.
_KEYSET_MARKETS = pl.List(pl.List(pl.Struct({**_SOURCES["market"], "events": pl.List(_EVENT)})))
# A page as decoded, before its columns are flattened: a keyset page's markets (each with its
# ``events``), or a walked page's markets and parents.
_KEYSET_EMPTY = pl.DataFrame(
    schema={
        "__receipt": pl.String(),
        "__position": pl.Int64(),
        "__keyset_market": _KEYSET_MARKETS.inner.inner,
    }
)
_WALKED_EMPTY = pl.DataFrame(
    schema={"__receipt": pl.String(), "__position": pl.Int64(), "__market": _MARKET, "__event": _EVENT}
)
# A keyset envelope's head, and what may follow its array of markets to the end: its cursor (a
# token: Gamma's and the simulator's are URL-safe) or null, or nothing. JSON's whitespace only.
_KEYSET_HEAD = re.compile(rb'\{[ \t\n\r]*"markets"[ \t\n\r]*:')
_CURSOR_KEY = b'"next_cursor"'
_CURSOR_TAIL = re.compile(
    rb'[ \t\n\r]*"next_cursor"[ \t\n\r]*:[ \t\n\r]*(?:"[A-Za-z0-9_=+/.:~-]*"|null)[ \t\n\r]*\}[ \t\n\r]*'
)
_END = re.compile(rb"\}[ \t\n\r]*")


def _flat(struct: pl.Expr, owner: str) -> list[pl.Expr]:
    return [struct.struct.field(key).alias(f"{owner}.{key}") for key in _SOURCES[owner]]


def _array_end(body: bytes) -> int | None:
    """Where a keyset envelope's array of markets ends: before its cursor, else before its ``}``."""
    key = body.rfind(_CURSOR_KEY)
    comma = key - 1
    while comma > 0 and body[comma] in b" \t\n\r":
        comma -= 1
    if key > 0 and body[comma] == ord(",") and _CURSOR_TAIL.fullmatch(body, comma + 1):
        return comma
    close = body.rfind(b"}")
    return close if close > 0 and _END.fullmatch(body, close) else None


def _keyset_page(receipt_id: str, body: bytes) -> pl.DataFrame | None:
    """A keyset page's published columns by one polars decode of its bytes; None if it is not one.

    Only the plain envelope is read here, ``{"markets": [...]}`` with at most a ``next_cursor``
    after the array: then the markets are the page's items, each with ``events[0]`` as its parent,
    exactly as ``_page_markets`` reads it. To be sure nothing else stands at the top level, the
    text between the head and the tail is decoded as the one item of an array: anything but a
    single JSON value there (another key, a second value) does not decode to one item. Every other
    shape, and a page polars can not decode into these types (a market the copy quarantined for a
    value of the wrong type, say), is left to ``_python_page``.
    """
    head = _KEYSET_HEAD.match(body)
    if head is None:
        return None
    end = _array_end(body)
    if end is None:
        return None
    array_text = body[head.end() : end]
    try:
        array_text.decode("utf-8")
        # Wrapped as the one item of an array under one key: polars' reader of whole documents
        # decodes a page three to four times faster than its expression decoder.
        wrapped = pl.read_json(io.BytesIO(b'{"m":[' + array_text + b"]}"), schema={"m": _KEYSET_MARKETS})
    except (UnicodeDecodeError, pl.exceptions.PolarsError):
        return None
    decoded = wrapped.to_series()
    if decoded.null_count() or decoded.list.len()[0] != 1:
        return None
    array = decoded.explode()
    if array.null_count():
        return None
    count = array.list.len()[0]
    markets = array.explode().head(count)  # an empty list explodes to one null
    if markets.null_count():
        # A null where a market should be: _page_markets has no reading for it; let it say so.
        return None
    return pl.DataFrame(
        {
            "__receipt": pl.Series([receipt_id] * count, dtype=pl.String),
            "__position": pl.int_range(count, dtype=pl.Int64, eager=True),
            "__keyset_market": markets,
        }
    )


def _python_page(receipt_id: str, body: bytes, positions: frozenset[int]) -> pl.DataFrame:
    """Any page shape: walked in Python, the copied positions' markets and parents re-encoded and
    decoded by polars. Only those: a market the copy quarantined (a field holding an object, say)
    has no copied row to compare, and its value may not decode into the checked types."""
    page = _page_markets(json.loads(body))
    kept = [position for position in range(len(page)) if position in positions]
    markets = [json.dumps(page[position][0]) for position in kept]
    events = [None if page[position][1] is None else json.dumps(page[position][1]) for position in kept]
    texts = pl.DataFrame(
        {"__market": markets, "__event": events, "__position": kept},
        schema={"__market": pl.String, "__event": pl.String, "__position": pl.Int64},
    )
    return texts.select(
        pl.lit(receipt_id, pl.String).alias("__receipt"),
        pl.col("__position"),
        pl.col("__market").str.json_decode(_MARKET),
        pl.col("__event").str.json_decode(_EVENT),
    )


def _published_page(receipt_id: str, positions: frozenset[int], receipts: ReceiptStore) -> pl.DataFrame:
    body = receipts.get(receipt_id).body
    page = _keyset_page(receipt_id, body)
    return _python_page(receipt_id, body, positions) if page is None else page


def _flattened(pages: Iterable[pl.DataFrame]) -> pl.DataFrame:
    """Decoded pages as one frame, a column per published key the check reads, keyed by
    ``__receipt`` and ``__position``. Flattened once for all pages of each kind: a select per page
    cost more than the decoding."""
    pages = list(pages)
    keyset = pl.concat([_KEYSET_EMPTY, *(p for p in pages if "__keyset_market" in p.columns)])
    walked = pl.concat([_WALKED_EMPTY, *(p for p in pages if "__market" in p.columns)])
    market = pl.col("__keyset_market")
    return pl.concat(
        [
            keyset.select(
                "__receipt",
                "__position",
                *_flat(market, "market"),
                *_flat(market.struct.field("events").list.first(), "event"),
            ),
            walked.select(
                "__receipt",
                "__position",
                *_flat(pl.col("__market"), "market"),
                *_flat(pl.col("__event"), "event"),
            ),
        ]
    )


def _mapped(function: Callable[[Any], pl.DataFrame | None], jobs: list[Any], threads: int) -> list[Any]:
    """``function`` of every job, in order, a few at a time in threads: reading a receipt (inflate,
    hash) and polars' JSON decoder release the GIL, and only the pages at hand are held in memory."""
    workers = max(1, min(threads, len(jobs)))
    if workers == 1:
        return [function(job) for job in jobs]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, jobs))


@dataclasses.dataclass(frozen=True)
class PublishedPages:
    """Pages read before anyone says which of their markets were copied: every plain keyset page
    decoded whole (``frame``, flattened), and which receipts those were (``read``). Any other page
    is read once the rows to compare are known (``_python_page`` reads only those)."""

    frame: pl.DataFrame
    read: frozenset[str]


def read_published(receipt_ids: Iterable[str], receipts: ReceiptStore) -> PublishedPages:
    """Every plain keyset page among ``receipt_ids`` decoded by the check's reader, whole.

    A receipt that cannot be read, or whose page is another shape, is left out of ``read``: the
    copy quarantined the first kind (no row will name it) and the check reads the second later.
    """

    def keyset_page(receipt_id: str) -> tuple[str, pl.DataFrame | None]:
        try:
            body = receipts.get(receipt_id).body
        except ReceiptError:
            return receipt_id, None
        return receipt_id, _keyset_page(receipt_id, body)

    ids = list(dict.fromkeys(receipt_ids))
    # A batch at a time, so that only the pages at hand are held decoded.
    size = _PAGES_PER_FLATTENING
    batches = (ids[start : start + size] for start in range(0, len(ids), size))
    pages = (_mapped(keyset_page, batch, _DECODE_THREADS) for batch in batches)
    return _published(itertools.chain.from_iterable(pages))


def decode_published(bodies: Iterable[tuple[str, bytes]]) -> PublishedPages:
    """What ``read_published`` gives, from pages' bodies already read from the record: each
    ``(receipt_id, body)`` decoded by the check's reader as it comes (a receipt named twice, once)."""
    seen: set[str] = set()

    def first_time(receipt_id: str) -> bool:
        fresh = receipt_id not in seen
        seen.add(receipt_id)
        return fresh

    return _published(
        (receipt_id, _keyset_page(receipt_id, body)) for receipt_id, body in bodies if first_time(receipt_id)
    )


def _published(pages: Iterable[tuple[str, pl.DataFrame | None]]) -> PublishedPages:
    """Decoded pages (None: not a plain keyset page) as ``PublishedPages``, flattened a batch at a
    time: the pages as decoded take as much room as flattened, and holding all of a 50,000-market
    board's until the end raised the peak by 50 MB."""
    frames, read = [], []
    pending = iter(pages)
    while batch := list(itertools.islice(pending, _PAGES_PER_FLATTENING)):
        decoded = [(receipt_id, page) for receipt_id, page in batch if page is not None]
        frames.append(_flattened(page for _, page in decoded))
        read += [receipt_id for receipt_id, _ in decoded]
    return PublishedPages(frame=pl.concat([_flattened([]), *frames]), read=frozenset(read))


def _published_frame(
    rows: pl.DataFrame, receipts: ReceiptStore, ahead: PublishedPages | None = None
) -> pl.DataFrame:
    """One row per copied row, in order: the published value of every key the check reads.

    Pages read ``ahead`` are taken as read; every other page a row names is read here.
    """
    read = frozenset() if ahead is None else ahead.read
    wanted = (
        rows.drop_nulls("receipt_id")
        .filter(~pl.col("receipt_id").is_in(list(read)))
        .group_by("receipt_id", maintain_order=True)
        .agg(pl.col("position").drop_nulls())
        .iter_rows()
    )
    jobs = [(receipt_id, frozenset(positions)) for receipt_id, positions in wanted]
    published = _flattened(_mapped(lambda job: _published_page(*job, receipts), jobs, _DECODE_THREADS))
    if ahead is not None:
        published = pl.concat([ahead.frame, published])
    return (
        rows.select(pl.col("receipt_id").alias("__receipt"), pl.col("position").alias("__position"))
        .join(published, on=["__receipt", "__position"], how="left", maintain_order="left")
        .drop("__receipt", "__position")
    )


def _field(source: tuple[str, str]) -> pl.Expr:
    owner, path = source
    if path == "series[0].recurrence":
        return pl.col("event.series").list.first().struct.field("recurrence")
    return pl.col(f"{owner}.{path}")


def _instant(text: pl.Expr) -> pl.Expr:
    normalised = (
        text.str.replace(r"^(\d{4}-\d{2}-\d{2})$", "${1}T00:00:00Z")
        .str.replace(r"^(\d{4}-\d{2}-\d{2}) ", "${1}T")
        .str.replace(r"(\+00(:00)?(:00)?|Z)$", "+00:00")
    )
    return normalised.str.to_datetime(
        "%Y-%m-%dT%H:%M:%S%.f%:z", time_zone="UTC", time_unit="us", strict=False
    )


def _expected(published: pl.DataFrame) -> pl.DataFrame:
    expressions = [
        *(_field(src).alias(col) for col, src in _STRINGS.items()),
        *(_field(src).cast(pl.Float64, strict=False).alias(col) for col, src in _NUMBERS.items()),
        *(
            pl.when(_field(src).is_null()).then(None).otherwise(_field(src) == "true").alias(col)
            for col, src in _BOOLEANS.items()
        ),
        *(_field(src).str.json_decode(pl.List(pl.String)).alias(col) for col, src in _ENCODED_LISTS.items()),
    ]
    frame = published.select(expressions)
    return frame.with_columns(_instant(pl.col(text)).alias(col) for col, text in _INSTANTS.items())


def recheck_copy(
    verbatim: pl.DataFrame,
    receipts: ReceiptStore,
    *,
    limit: int | None = None,
    ahead: PublishedPages | None = None,
) -> list[CopyMismatch]:
    """Compare every checked column of every row with its receipt; return the differences.

    ``ahead``: pages ``read_published`` read already (in another process, say, while the copy ran).
    """
    if verbatim.is_empty():
        return []
    expected = _expected(_published_frame(verbatim, receipts, ahead))
    differs = pl.DataFrame(
        {col: ~verbatim[col].eq_missing(expected[col]) for col in CHECKED_COLUMNS if col in verbatim.columns}
    )
    missing = [col for col in CHECKED_COLUMNS if col not in verbatim.columns]
    mismatches = [
        CopyMismatch("*", "*", col, "<column missing from the copy>", "<published>") for col in missing
    ]
    flagged = differs.select(pl.any_horizontal(pl.all())).to_series()
    for index in flagged.arg_true().to_list():
        row = verbatim.row(index, named=True)
        for col in differs.columns:
            if differs[col][index]:
                mismatches.append(
                    CopyMismatch(
                        market_id=str(row["market_id"]),
                        receipt_id=str(row["receipt_id"]),
                        column=col,
                        copied=repr(row[col])[:120],
                        published=repr(expected[col][index])[:120],
                    )
                )
                if limit is not None and len(mismatches) >= limit:
                    return mismatches
    return mismatches


def mismatch_lines(mismatches: Iterable[CopyMismatch]) -> list[str]:
    return [
        f"market {m.market_id} (receipt {m.receipt_id}): {m.column} "
        f"copied {m.copied}, published {m.published}"
        for m in mismatches
    ]
