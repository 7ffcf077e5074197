"""Every recorded real Gamma payload in the shared samples folder goes through the copy.

The folder is ``$COLOSSEUM_POLYMARKET_SAMPLES`` or ``<repo>/../shared/reference/polymarket_samples``;
the tests skip when it is absent. Every ``gamma_*.json`` there is parsed: a new file is parsed too,
and the per-file expectations below pin key values of the known ones.

Six of the recorded markets were captured without their parent event (fetched from a route that
does not nest it, or trimmed by the repository that recorded them). The copy refuses a market with
no parent (``FieldError`` on ``events``); the tests assert exactly that, then copy the market's own
fields under an explicit stand-in event so that those fields are still checked.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from colosseum_core.exchanges.polymarket import (
    VERBATIM_SCHEMA,
    FieldError,
    PageError,
    page_items,
    parse_timestamp,
    verbatim_frame,
    verbatim_row,
)
from tests.support import REPO

pytestmark = pytest.mark.samples

SAMPLES_ENV = "COLOSSEUM_POLYMARKET_SAMPLES"
SAMPLES = Path(os.environ.get(SAMPLES_ENV) or REPO.parent / "shared" / "reference" / "polymarket_samples")
RID = "5a" * 32
UTC = dt.UTC
STAND_IN_EVENT = {"id": "stand-in"}

# Markets recorded without a parent event: the copy must refuse them for exactly that reason.
WITHOUT_EVENT = {
    "gamma_market_by_id_with_schema_key_2026_08.json",
    "gamma_market_legacy_2020_amm_closed_outcomePrices_0_0.json",
    "gamma_market_legacy_2020_scalar_closed_fractional_prices.json",
    "gamma_market_past_endDate_still_open__field_subset.json",
    "gamma_market_resolved_no_early_katana_fdv.json",
    "gamma_market_resolved_yes_no_umaResolutionStatus_field.json",
}


def _gamma_files() -> list[Path]:
    return sorted(SAMPLES.glob("gamma_*.json")) if SAMPLES.is_dir() else []


def _require_samples() -> None:
    if not SAMPLES.is_dir():
        pytest.skip(f"no Polymarket samples at {SAMPLES} (set ${SAMPLES_ENV})")


def _load(name: str) -> Any:
    _require_samples()
    path = SAMPLES / name
    if not path.exists():
        pytest.skip(f"sample {name} is not in {SAMPLES}")
    return json.loads(path.read_text(encoding="utf-8"))


def _rows(name: str) -> list[dict[str, Any]]:
    """Every market of a sample file copied; event-less ones under the explicit stand-in."""
    body = _load(name)
    rows = []
    for item in page_items(body, RID):
        event = item.event
        if event is None:
            assert name in WITHOUT_EVENT, f"{name}: market {item.market.get('id')} has no parent event"
            with pytest.raises(FieldError, match="no parent event") as caught:
                verbatim_row(item.market, None, receipt_id=RID, position=item.position)
            assert caught.value.field == "events"
            event = STAND_IN_EVENT
        rows.append(verbatim_row(item.market, event, receipt_id=RID, position=item.position))
    return rows


def test_samples_folder_has_gamma_files() -> None:
    _require_samples()
    assert len(_gamma_files()) >= 14


@pytest.mark.parametrize("path", _gamma_files(), ids=lambda p: p.name)
def test_every_gamma_sample_is_copied(path: Path) -> None:
    rows = _rows(path.name)
    frame = verbatim_frame(rows)
    assert frame.schema == pl.Schema(VERBATIM_SCHEMA)
    for row in rows:
        # The instants the rules read are the published text, parsed.
        assert row["end_date_ts"] == parse_timestamp(row["end_date"])
        for text in ("closed_time", "uma_end_date", "start_date", "game_start_time", "event_start_time"):
            if row[text] is not None:
                parse_timestamp(row[text])
    body = json.loads(path.read_text(encoding="utf-8"))
    assert len(rows) == _count_markets(body)


def _count_markets(body: Any) -> int:
    """An independent count of the market objects in a Gamma body."""
    items = body if isinstance(body, list) else [body]
    return sum(1 if "question" in item else len(item.get("markets") or []) for item in items)


@pytest.mark.parametrize(
    "name",
    [
        "clob_book_2024_10.json",
        "clob_book_2026_07_negrisk_with_tick_size.json",
        "clob_book_2026_08.json",
        "clob_book_2026_08_empty_ask_side.json",
        "clob_market_by_condition_open_trump_2024_negrisk.json",
        "clob_market_by_condition_resolved_no_katana_tokens_winner.json",
        "clob_market_by_condition_resolved_yes_tokens_winner.json",
        "clob_markets_page_limit100_next_cursor.json",
        "kalshi_events_page_with_nested_markets_2026.json",
        "kalshi_markets_page_2026_07.json",
        "kalshi_series_2026.json",
    ],
)
def test_clob_and_kalshi_payloads_are_recognised_as_not_gamma(name: str) -> None:
    body = _load(name)
    with pytest.raises(PageError, match=r"not a Gamma|Kalshi's|the CLOB's") as caught:
        page_items(body, RID)
    assert RID in str(caught.value)


def test_every_sample_file_is_accounted_for() -> None:
    _require_samples()
    others = {p.name for p in SAMPLES.glob("*.json")} - {p.name for p in _gamma_files()}
    assert all(name.startswith(("clob_", "kalshi_")) for name in others), others


def test_katana_resolved_early_closed_time_parses() -> None:
    (row,) = _rows("gamma_market_resolved_no_early_katana_fdv.json")
    assert row["market_id"] == "1460332"
    assert row["closed_time"] == "2026-03-19 23:20:15+00"
    assert parse_timestamp(row["closed_time"]) == dt.datetime(2026, 3, 19, 23, 20, 15, tzinfo=UTC)
    assert row["uma_end_date"] == "2026-03-19T23:20:15Z"
    # Resolved No in March 2026, nearly two years before its scheduled end.
    assert row["end_date_ts"] == dt.datetime(2028, 1, 1, 5, tzinfo=UTC)
    assert row["closed"] is True and row["accepting_orders"] is False
    assert row["uma_resolution_status"] == "resolved"
    assert row["uma_resolution_statuses"] == ["proposed"]
    assert row["outcome_prices"] == ["0", "1"]
    assert row["best_bid"] is None  # absent on the empty book
    assert row["volume"] is None and row["volume_24hr"] is None


def test_mlp_event_postgres_game_start_time_and_integer_game_id() -> None:
    rows = _rows("gamma_event_sports_mlp_with_gameStartTime_teams_2026_08.json")
    assert len(rows) == 2
    moneyline = rows[0]
    assert moneyline["game_start_time"] == "2026-08-14 21:00:00+00"
    assert moneyline["game_start_time_ts"] == dt.datetime(2026, 8, 14, 21, tzinfo=UTC)
    assert moneyline["event_start_time_ts"] == dt.datetime(2026, 8, 14, 21, tzinfo=UTC)
    assert moneyline["outcomes"] == ["St. Louis Shock", "Texas Ranchers"]
    assert moneyline["outcome_prices"] == ["0.525", "0.475"]
    assert (moneyline["best_bid"], moneyline["best_ask"]) == (0.06, 0.99)
    assert moneyline["sports_market_type"] == "moneyline"
    assert moneyline["game_id"] == "dd80aae9-52f9-4c7b-a1cf-7b4ab63cd281:STL:TEX"
    assert {row["event_id"] for row in rows} == {"835109"}
    # The event's gameId is a JSON integer; it is copied as its decimal digits.
    body = _load("gamma_event_sports_mlp_with_gameStartTime_teams_2026_08.json")
    assert isinstance(body[0]["gameId"], int)
    assert moneyline["event_game_id"] == str(body[0]["gameId"])
    assert moneyline["event_volume_24hr"] is None  # absent on this event
    assert moneyline["version"] == "v1"
    assert rows[1]["sports_market_type"] == "soccer_team_to_advance"


def test_events_page_placeholder_market_with_empty_condition_id() -> None:
    rows = _rows("gamma_events_page_2_events_4_markets_each_2026_07.json")
    assert len(rows) == 8
    placeholders = [row for row in rows if row["condition_id"] == ""]
    assert [row["market_id"] for row in placeholders] == ["1642124"]
    (placeholder,) = placeholders
    assert placeholder["active"] is False
    assert placeholder["outcome_prices"] is None and placeholder["clob_token_ids"] is None
    assert [row["position"] for row in rows] == list(range(8))
    assert len({row["event_id"] for row in rows}) == 2
    resolved = [row for row in rows if row["uma_resolution_status"] == "resolved"]
    assert resolved and all(row["closed"] for row in resolved)


def test_event_fetched_without_markets_yields_no_markets() -> None:
    body = _load("gamma_event_sports_mlb_closed_include_markets_false_2026_10.json")
    assert "markets" not in body[0]
    assert page_items(body, RID) == []
    assert isinstance(body[0]["gameId"], int)


def test_markets_page_parents_are_events_0() -> None:
    rows = _rows("gamma_markets_page_3_markets_2026_07.json")
    assert [row["market_id"] for row in rows] == ["2063134", "1654958", "1931121"]
    body = _load("gamma_markets_page_3_markets_2026_07.json")
    assert [row["event_id"] for row in rows] == [m["events"][0]["id"] for m in body]
    assert rows[0]["volume"] == "46224362.39541418"
    assert rows[0]["volume_num"] == 46224362.39541418
    assert rows[0]["liquidity"] == "30197.69398"
    assert rows[0]["event_volume_24hr"] == 1999288.72894
    assert rows[0]["neg_risk"] is True


def test_btc_five_minute_market_series_recurrence_and_event_start() -> None:
    (row,) = _rows("gamma_market_open_btc_updown_5m_with_nested_event_and_series.json")
    assert row["event_series_recurrence"] == "5m"
    assert row["market_event_start_time"] == "2026-03-12T09:20:00Z"
    assert row["market_event_start_time_ts"] == dt.datetime(2026, 3, 12, 9, 20, tzinfo=UTC)
    assert row["outcomes"] == ["Up", "Down"]


def test_dem_nominee_negrisk_event() -> None:
    rows = _rows("gamma_event_negrisk_multi_outcome_dem_nominee_2028__trimmed_to_2_markets.json")
    assert [row["group_item_title"] for row in rows] == ["Stephen A. Smith", "Gretchen Whitmer"]
    assert all(row["event_neg_risk"] is True and row["neg_risk"] is True for row in rows)
    assert {row["event_id"] for row in rows} == {"30829"}
    assert rows[0]["end_date_ts"] == dt.datetime(2028, 11, 7, tzinfo=UTC)


def test_resolved_without_uma_status_and_legacy_markets() -> None:
    (ceasefire,) = _rows("gamma_market_resolved_yes_no_umaResolutionStatus_field.json")
    assert ceasefire["uma_resolution_status"] is None
    assert ceasefire["uma_resolution_statuses"] == []
    assert ceasefire["outcome_prices"] == ["1", "0"]
    assert ceasefire["accepting_orders"] is True and ceasefire["closed"] is True
    assert ceasefire["game_start_time_ts"] is not None
    (amm,) = _rows("gamma_market_legacy_2020_amm_closed_outcomePrices_0_0.json")
    assert amm["outcome_prices"] == ["0", "0"]
    (scalar,) = _rows("gamma_market_legacy_2020_scalar_closed_fractional_prices.json")
    assert scalar["outcomes"] == ["Long", "Short"]
    (subset,) = _rows("gamma_market_past_endDate_still_open__field_subset.json")
    assert subset["end_date_ts"] == dt.datetime(2026, 6, 1, tzinfo=UTC)
    assert subset["active"] is True and subset["closed"] is False and subset["accepting_orders"] is True
    assert subset["volume"] is None and subset["outcome_prices"] is None


def test_schema_key_market_and_sorted_key_sports_markets() -> None:
    (schema_market,) = _rows("gamma_market_by_id_with_schema_key_2026_08.json")
    assert schema_market["market_id"] == "2774056"
    assert schema_market["version"] == "v1"
    moneyline = _rows("gamma_market_sports_moneyline_resolved_cs2__keys_sorted.json")[0]
    handicap = _rows("gamma_market_sports_map_handicap_resolved_cs2__keys_sorted.json")[0]
    assert moneyline["sports_market_type"] == "moneyline"
    assert moneyline["game_id"] == "1427074"
    assert handicap["sports_market_type"] == "map_handicap"
    assert moneyline["event_id"] == handicap["event_id"]
    assert moneyline["closed_time"] == "2026-04-05 19:37:33+00"
    assert parse_timestamp(moneyline["closed_time"]) == dt.datetime(2026, 4, 5, 19, 37, 33, tzinfo=UTC)
    assert moneyline["event_game_id"] == "1427074"
