"""The copy step: the check's reading of the pages in a child process beside the copy gives exactly
what the copy and its check give one after the other, and when the child cannot help the check
reads in this process and says so."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import polars as pl
import pytest

from colosseum_core.forecast.sweep import copy_step
from colosseum_core.forecast.sweep.copy import copy_markets
from colosseum_core.forecast.sweep.copy_check import decode_published, read_published, recheck_copy
from colosseum_core.forecast.sweep.copy_step import ASIDE, ASIDE_FROM_PAGES, HERE, checked_copy
from colosseum_core.record import ReceiptStore, RequestTrace
from colosseum_core.record.layout import Record
from colosseum_standins.simulated_exchange import AS_OF_HEADER, running_exchange
from tests.support import FIXTURES

POLYMARKET = FIXTURES / "polymarket"
CARD = "2026-11-29-1000"
CARD_SEAL = "2026-11-29T15:00:00Z"


def _put(store: ReceiptStore, body: bytes) -> str:
    trace = RequestTrace(
        "GET", "http://127.0.0.1:1/markets/keyset", [("closed", "false")], "2026-11-29T15:00:00Z"
    )
    return store.put(trace.receipt(ended_at="2026-11-29T15:00:01Z", status=200, body=body))


@pytest.fixture
def store(tmp_path: Path) -> ReceiptStore:
    return ReceiptStore(tmp_path / "receipts")


def _pages(store: ReceiptStore) -> list[str]:
    """Pages of every kind the check reads: keyset pages, an events page (walked in Python), a page
    holding a market the copy quarantines, a body that is not JSON, and a receipt that is absent."""
    keyset = json.loads((POLYMARKET / "markets_keyset_page.json").read_text())
    bad = json.loads(json.dumps(keyset))
    bad["markets"][1]["bestBid"] = {"not": "a number"}
    return [
        _put(store, (POLYMARKET / "markets_keyset_page.json").read_bytes()),
        _put(store, (POLYMARKET / "events_keyset_page.json").read_bytes()),
        _put(store, json.dumps(bad).encode()),
        _put(store, b"<html>502</html>"),
        "0" * 64,
    ]


def test_the_check_read_beside_the_copy_gives_what_the_two_give_one_after_the_other(store):
    ids = _pages(store)
    checked = checked_copy(CARD, ids, store, aside_from_pages=1)
    alone = copy_markets(CARD, ids, store)
    assert checked.check_read_by == ASIDE and checked.check_process_peak_mb > 0
    assert checked.copied.markets.equals(alone.markets) and checked.copied.errors.equals(alone.errors)
    assert checked.copied.markets.height >= 3 and checked.copied.errors.height == 3
    assert checked.mismatches == recheck_copy(alone.markets, store) == []


def test_pages_read_ahead_are_the_pages_read_after(store):
    """The plain keyset page is read whole ahead; the events page, the page whose quarantined market
    does not decode into the check's types, and the unreadable ones are not (the first two are read
    after the copy, at the positions it copied), and a forged value is named either way."""
    ids = _pages(store)
    ahead = read_published(ids, store)
    assert ahead.read == {ids[0]}
    markets = copy_markets(CARD, ids, store).markets
    forged = markets.with_columns(
        pl.when(pl.int_range(pl.len()) == 0)
        .then(pl.lit("forged"))
        .otherwise(pl.col("question"))
        .alias("question")
    )
    after = recheck_copy(forged, store)
    assert [m.column for m in after] == ["question"]
    assert recheck_copy(forged, store, ahead=ahead) == after
    assert recheck_copy(markets, store, ahead=ahead) == []


def _simulated_pages(store: ReceiptStore) -> list[str]:
    """Every keyset page of a simulated board, as received over HTTP."""
    ids, params = [], {"limit": "100", "closed": "false"}
    with (
        running_exchange(seed=3, markets=600) as url,
        httpx.Client(headers={AS_OF_HEADER: CARD_SEAL}) as client,
    ):
        while True:
            response = client.get(url + "/markets/keyset", params=params)
            ids.append(_put(store, response.content))
            cursor = response.json().get("next_cursor")
            if not cursor:
                return ids
            params["after_cursor"] = cursor


def test_a_board_read_beside_the_copy_is_checked_row_for_row(store):
    ids = _simulated_pages(store)
    checked = checked_copy(CARD, ids, store, aside_from_pages=1)
    assert checked.check_read_by == ASIDE and checked.mismatches == []
    assert checked.copied.markets.height == copy_markets(CARD, ids, store).markets.height > 300


@pytest.mark.parametrize(
    ("executable", "why"),
    [("/bin/false", "exit status 1: no message"), ("/nonexistent/python", "No such file")],
)
def test_when_the_child_fails_the_check_reads_here_and_says_why(store, monkeypatch, executable, why):
    ids = _pages(store)
    monkeypatch.setattr(sys, "executable", executable)
    checked = checked_copy(CARD, ids, store, aside_from_pages=1)
    assert checked.check_read_by.startswith(f"{HERE} (the separate process failed: ")
    assert why in checked.check_read_by
    assert checked.check_process_peak_mb is None
    assert checked.mismatches == []


def test_when_the_copy_fails_the_child_is_stopped(store, monkeypatch):
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def watched(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    def broken(*_args, **_kwargs):
        raise RuntimeError("the copy failed")

    monkeypatch.setattr(copy_step.subprocess, "Popen", watched)
    monkeypatch.setattr(copy_step, "copy_markets", broken)
    with pytest.raises(RuntimeError, match="the copy failed"):
        checked_copy(CARD, _pages(store), store, aside_from_pages=1)
    [child] = started
    assert child.poll() is not None


def test_on_a_bucket_record_the_check_decodes_aside_what_the_copy_read(bucket_root: str) -> None:
    # The child reads nothing from the record itself: it needs no bucket settings.
    store = Record(bucket_root).receipts
    page = _put(store, (POLYMARKET / "markets_keyset_page.json").read_bytes())
    checked = checked_copy(CARD, [page], store, aside_from_pages=1)
    assert checked.check_read_by == ASIDE
    assert checked.copied.markets.height == 3 and checked.mismatches == []


def test_a_few_pages_are_checked_in_this_process(store):
    # A Python process starts slower than the check reads a small board.
    ids = _pages(store)
    checked = checked_copy(CARD, ids, store)
    assert checked.check_read_by == f"{HERE} (5 pages, fewer than {ASIDE_FROM_PAGES})"
    assert checked.check_process_peak_mb is None and checked.mismatches == []
    assert checked.copied.markets.equals(copy_markets(CARD, ids, store).markets)


def test_pages_sent_to_the_child_are_received_as_sent_and_a_cut_stream_is_refused() -> None:
    pages = [("a" * 64, b'{"markets": []}'), ("b" * 64, b""), ("c" * 64, bytes(range(256)) * 300)]
    read_end, write_end = os.pipe()
    sender = copy_step._Sender(os.fdopen(write_end, "wb"))
    for page in pages:
        sender.send(*page)
    # More than a pipe holds: the end of input is sent while this reads.
    closing = threading.Thread(target=sender.close)
    closing.start()
    with os.fdopen(read_end, "rb") as stream:
        received = list(copy_step._received(stream))
    closing.join(timeout=30)
    assert not closing.is_alive()
    assert received == pages
    whole = b"".join(
        copy_step._HEADER.pack(len(name), len(body)) + name.encode() + body for name, body in pages
    )
    for cut in (3, copy_step._HEADER.size + 10, len(whole) - 1):
        with pytest.raises(EOFError, match="input ended inside a page"):
            list(copy_step._received(io.BytesIO(whole[:cut])))


def test_the_check_decodes_bodies_as_it_reads_receipts_and_each_receipt_once(store):
    ids = _pages(store)
    readable = [(rid, store.get(rid).body) for rid in ids if rid != "0" * 64]
    read = read_published(ids, store)
    for bodies in (readable, readable + readable[:2]):
        decoded = decode_published(bodies)
        assert decoded.read == read.read and decoded.frame.equals(read.frame)


def test_when_the_child_dies_while_the_copy_sends_the_check_reads_here(store, tmp_path, monkeypatch):
    ids = _simulated_pages(store)
    dying = tmp_path / "dying-python"
    dying.write_text('#!/bin/sh\nhead -c 100 >/dev/null\necho "gave up after 100 bytes" >&2\nexit 3\n')
    dying.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(dying))
    checked = checked_copy(CARD, ids, store, aside_from_pages=1)
    assert (
        checked.check_read_by
        == f"{HERE} (the separate process failed: exit status 3: gave up after 100 bytes)"
    )
    assert checked.mismatches == [] and checked.copied.markets.height > 300
