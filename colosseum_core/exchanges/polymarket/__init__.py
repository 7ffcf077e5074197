"""Polymarket's Gamma API: the async sweep client, the page shapes, and the verbatim copy of a market.

Imported by: the forecast's stages (sweep, selection, settlement), the debate's topics, the
forecast's wiring and commands, the wiring's exchange resource, the benchmarks and the tests; it
imports no arena.
"""

from colosseum_core.exchanges.polymarket.client import (
    AS_OF_HEADER,
    KEYSET_ORDER,
    MARKETS_KEYSET_PATH,
    MAX_IN_FLIGHT,
    MAX_PAGE_SIZE,
    DuplicateMarket,
    FetchResult,
    GammaClient,
    GammaRequestError,
    RequestRecord,
    ShardReport,
    SweepProgress,
    SweepResult,
    SweptMarket,
    find_duplicates,
    retry_after_seconds,
    shard_windows,
)
from colosseum_core.exchanges.polymarket.markets import (
    VERBATIM_SCHEMA,
    FieldError,
    verbatim_frame,
    verbatim_row,
)
from colosseum_core.exchanges.polymarket.pages import PageError, PageMarket, next_cursor_of, page_items
from colosseum_core.exchanges.polymarket.timestamps import (
    format_timestamp,
    parse_timestamp,
)

__all__ = [
    "AS_OF_HEADER",
    "KEYSET_ORDER",
    "MARKETS_KEYSET_PATH",
    "MAX_IN_FLIGHT",
    "MAX_PAGE_SIZE",
    "VERBATIM_SCHEMA",
    "DuplicateMarket",
    "FetchResult",
    "FieldError",
    "GammaClient",
    "GammaRequestError",
    "PageError",
    "PageMarket",
    "RequestRecord",
    "ShardReport",
    "SweepProgress",
    "SweepResult",
    "SweptMarket",
    "find_duplicates",
    "format_timestamp",
    "next_cursor_of",
    "page_items",
    "parse_timestamp",
    "retry_after_seconds",
    "shard_windows",
    "verbatim_frame",
    "verbatim_row",
]
