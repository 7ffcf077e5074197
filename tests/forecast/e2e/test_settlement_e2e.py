"""End to end: a week of cards on the offline default, settled by the sensor as the exchange moves through
time, scored, ranked, and read back from DuckDB."""

from __future__ import annotations

import datetime as dt
import json

import dagster as dg
import duckdb
import httpx
import polars as pl
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from colosseum_core.exchanges.polymarket.client import AS_OF_HEADER
from colosseum_core.forecast.rules import COLOSSEUM_SCORING
from colosseum_core.forecast.schedule import cards_between
from colosseum_core.forecast.settlement.watch import RECHECK, WatchState
from colosseum_dagster.definitions import defs
from colosseum_dagster.resources import ClockResource, ExchangeResource, RecordResource
from colosseum_standins.loopback import running_app
from colosseum_standins.simulated_exchange import running_exchange
from tests.conftest import Record, all_checks_pass, check_results, run_card, run_catalog

WEEK = [
    c.key
    for c in cards_between(
        dt.datetime(2026, 11, 9, 10, tzinfo=dt.UTC), dt.datetime(2026, 11, 16, 9, tzinfo=dt.UTC)
    )
]
SETTLEMENT_CHECKS = {"scores_rederive"}
BOARD_CHECKS = {
    "kinds_never_mix",
    "intervals_contain_points",
    "site_matches_record",
    "forecast_published",
    "debate_published",
    "events_published",
}


@pytest.fixture(scope="module")
def exchange_url():
    with running_exchange(seed=5, markets=900) as url:
        yield url


@pytest.fixture(scope="module")
def week(tmp_path_factory, sparring_url, exchange_url):
    """A week of cards (21), run in order like a backfill, on one record and one instance."""
    record = Record(tmp_path_factory.mktemp("week") / "data", sparring_url)
    with dg.instance_for_test() as instance:
        for key in WEEK:
            result = run_card(key, record, exchange_url, instance)
            assert result.success and all_checks_pass(result), (key, check_results(result))
        yield record, instance


def tick(record: Record, instance, exchange_url: str, at: dt.datetime, cursor: str | None):
    context = dg.build_sensor_context(
        instance=instance,
        definitions=defs,
        cursor=cursor,
        resources={
            "record": RecordResource(data_dir=str(record.root)),
            "exchange": ExchangeResource(gamma_url=exchange_url),
            "clock": ClockResource(fixed_instant=at.isoformat()),
        },
    )
    return defs.resolve_sensor_def("settlement_sensor").evaluate_tick(context)


def settle(record: Record, instance, request: dg.RunRequest) -> dg.ExecuteInProcessResult:
    config = {**request.run_config, **record.run_config()}
    return defs.resolve_job_def("settlement_job").execute_in_process(
        partition_key=request.partition_key, run_config=config, instance=instance, raise_on_error=False
    )


@pytest.mark.slow
def test_a_week_settles_as_the_exchange_moves_through_time(week, exchange_url):
    record, instance = week
    first_seal = dt.datetime(2026, 11, 9, 10, tzinfo=dt.UTC)
    assert len(WEEK) == 21

    # Just after the first seals nothing has resolved: every card waits, no run is requested.
    early = tick(record, instance, exchange_url, first_seal + dt.timedelta(hours=1), None)
    state = WatchState.from_cursor(early.cursor)
    assert state is not None and sorted(state.pending) == WEEK
    waiting_markets = sum(len(m) for m in state.pending.values())
    assert not early.run_requests or all(r.partition_key == WEEK[0] for r in early.run_requests)

    # Every tick asks about one batch, in rotation; in ten days most questions have resolved.
    later = first_seal + dt.timedelta(days=10)
    cursor, requests = early.cursor, {}
    for _ in range(-(-waiting_markets // 400)):
        result = tick(record, instance, exchange_url, later, cursor)
        cursor = result.cursor
        for request in result.run_requests:
            requests[request.run_key] = request
    assert {r.partition_key for r in requests.values()} == set(WEEK)
    assert all(r.run_key.startswith(f"settle:{r.partition_key}:") for r in requests.values())
    # The same news asked again is the same run key: no tick duplicates a run.
    again = tick(record, instance, exchange_url, later, early.cursor)
    assert {r.run_key for r in again.run_requests} <= set(requests)

    for request in sorted(requests.values(), key=lambda r: r.partition_key):
        result = settle(record, instance, request)
        assert result.success and set(check_results(result)) == SETTLEMENT_CHECKS, check_results(result)
        assert all(check_results(result).values())

    # Every settlement names the receipt it was read from; the receipt is in the record.
    settlements = pl.concat([record.tables.read("settlements", k) for k in WEEK])
    assert set(settlements["status"]) <= {"settled", "void"}
    assert all(rid in record.receipts for rid in settlements["receipt_id"].unique())

    # Two months on, the long tail of disputes has resolved too; settled cards leave the watch.
    much_later = first_seal + dt.timedelta(days=75)
    for _ in range(3):
        result = tick(record, instance, exchange_url, much_later, cursor)
        cursor = result.cursor
        for request in result.run_requests:
            assert settle(record, instance, request).success
    # Settled cards stay watched for the recheck period, then leave the watch.
    final = tick(record, instance, exchange_url, much_later + RECHECK, cursor)
    assert WatchState.from_cursor(final.cursor).pending == {}
    assert final.run_requests == []

    scores = pl.concat([record.tables.read("scores", k) for k in WEEK])
    questions = pl.concat([record.tables.read("card_questions", k) for k in WEEK])
    assert scores.height == 13 * questions.height
    assert set(scores["formula"]) == {COLOSSEUM_SCORING}
    assert set(scores["kind"]) == {"CALIBRATION"}

    boards = defs.resolve_job_def("leaderboard_job").execute_in_process(
        run_config=record.run_config(), instance=instance, raise_on_error=False
    )
    assert boards.success and check_results(boards) == dict.fromkeys(BOARD_CHECKS, True)
    assert run_catalog(record, instance).success

    con = duckdb.connect(str(record.catalog), read_only=True)
    try:
        views = {
            r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
        }
        assert {
            "cards",
            "verdicts",
            "answers",
            "settlements",
            "scores",
            "leaderboard",
            "calibration",
        } <= views
        board = con.execute(
            "SELECT entrant, n, record, sharp, sharp_low, sharp_high, edge, crown, early, voids "
            "FROM forecast.leaderboard WHERE kind = 'CALIBRATION' AND entrant_type = 'seat' "
            "ORDER BY crown DESC"
        ).fetchall()
        # The board re-derives from the scores view, in plain SQL, exactly.
        derived = dict(
            con.execute(
                "SELECT seat, (SUM(400 - brier_units) FILTER (WHERE result <> 'void'))::DOUBLE "
                "/ (4 * COUNT(*) FILTER (WHERE result <> 'void')) FROM forecast.scores GROUP BY seat"
            ).fetchall()
        )
    finally:
        con.close()
    assert len(board) == 13
    for entrant, n, _record, sharp, low, high, _edge, _crown, early, voids in board:
        assert n + voids == scores.filter(pl.col("seat") == entrant).height
        assert low <= sharp <= high and early == (n < 30)
        assert sharp == derived[entrant]
    reviews = [
        record.tables.read("settlement_reviews", k)
        for k in WEEK
        if record.tables.exists("settlement_reviews", k)
    ]
    assert all(r.is_empty() for r in reviews)
    # The bootstrap is recorded with its seed, generator and replicate count, and reproduces bit for bit.
    leaderboard = record.tables.read("leaderboard")
    assert leaderboard["bootstrap_replicates"].unique().to_list() == [1999]
    assert (
        leaderboard["bootstrap_seed"].n_unique() == 1
        and "RandomState" in leaderboard["bootstrap_generator"][0]
    )
    rerun = defs.resolve_job_def("leaderboard_job").execute_in_process(
        run_config=record.run_config(), instance=instance, raise_on_error=False
    )
    assert rerun.success and record.tables.read("leaderboard").equals(leaderboard)


def _proxy(upstream: str, tamper: dict[str, str]) -> Starlette:
    """Forwards to the simulated exchange; rewrites one market when ``tamper`` says how."""

    async def keyset(request: Request) -> Response:
        async with httpx.AsyncClient() as client:
            upstream_response = await client.get(
                upstream + "/markets/keyset",
                params=list(request.query_params.multi_items()),
                headers={k: v for k, v in request.headers.items() if k.lower() == AS_OF_HEADER.lower()},
            )
        body = upstream_response.json()
        closed_asked = request.query_params.get("closed") == "true"
        target, how = tamper.get("market"), tamper.get("how")
        if target and how == "flip" and closed_asked:
            for market in body["markets"]:
                if market["id"] == target:
                    market["outcomePrices"] = json.dumps(list(reversed(json.loads(market["outcomePrices"]))))
        if target and how == "unresolve":
            ids = request.query_params.getlist("id")
            if closed_asked:
                body["markets"] = [m for m in body["markets"] if m["id"] != target]
            elif target in ids:
                # The market reappears open and disputed, as if its resolution had been withdrawn.
                async with httpx.AsyncClient() as client:
                    one = (
                        await client.get(upstream + f"/markets/{target}", headers=dict(request.headers))
                    ).json()
                body["markets"].append(one | {"closed": False, "umaResolutionStatus": "disputed"})
        return JSONResponse(body, status_code=upstream_response.status_code)

    async def status(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    return Starlette(routes=[Route("/markets/keyset", keyset), Route("/status", status)])


def test_a_contradicting_settlement_is_flagged_for_review_and_never_overwrites(
    record, instance, exchange_url
):
    card = WEEK[0]
    seal = dt.datetime(2026, 11, 9, 10, tzinfo=dt.UTC)
    result = run_card(card, record, exchange_url, instance)
    assert result.success
    tamper: dict[str, str] = {}
    with running_app(_proxy(exchange_url, tamper)) as proxy:
        at = seal + dt.timedelta(days=75)
        first = tick(record, instance, proxy, at, None)
        [request] = first.run_requests
        assert settle(record, instance, request).success
        settlements_file = record.tables.path("settlements", card).read_bytes()
        scores_file = record.tables.path("scores", card).read_bytes()
        settled = (
            record.tables.read("settlements", card).filter(pl.col("status") == "settled").row(0, named=True)
        )

        tamper.update(market=settled["market_id"], how="flip")
        flipped = tick(record, instance, proxy, at + dt.timedelta(hours=1), first.cursor)
        [request] = flipped.run_requests
        assert request.run_key != first.run_requests[0].run_key
        assert settle(record, instance, request).success

        tamper.update(how="unresolve")
        unresolved = tick(record, instance, proxy, at + dt.timedelta(hours=2), flipped.cursor)
        [request] = unresolved.run_requests
        assert settle(record, instance, request).success

    # The settled outcome and every score stand, byte for byte; both contradictions are on record.
    assert record.tables.path("settlements", card).read_bytes() == settlements_file
    assert record.tables.path("scores", card).read_bytes() == scores_file
    reviews = record.tables.read("settlement_reviews", card)
    assert reviews.select("market_id", "problem").rows() == [
        (settled["market_id"], "changed winner"),
        (settled["market_id"], "un-resolved: a settled market no longer reads as settled"),
    ]
    assert set(reviews["settlement_id"]) == {settled["id"]}
    assert all(rid in record.receipts for rid in reviews["receipt_id"])
