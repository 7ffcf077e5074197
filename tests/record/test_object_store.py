"""The record on object storage: receipts, tables, seals, ledger sidecars, journals and the DuckDB
catalog, written and read in a bucket of an S3-compatible server on loopback (moto's server mode)
through the same classes as a record on disk."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from colosseum_core.record.atomic import write_bytes_atomic
from colosseum_core.record.catalog import catalog_views, connect_catalog, refresh_catalog
from colosseum_core.record.journal import Journal, read_journal
from colosseum_core.record.layout import ArenaRecord, Record, RemoteRecordError
from colosseum_core.record.ledger import check_file
from colosseum_core.record.receipts import Receipt, ReceiptError
from colosseum_core.record.seals import SealError, SealingPolicy
from colosseum_core.record.storage import is_remote, put_object, upload_tree
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.site.publish import fetch_published_site

ARENA = ArenaRecord(
    name="demo",
    partition="card",
    sealing=SealingPolicy(
        sealing_tables=("questions",),
        sealed_tables=("questions",),
        selection_tables=("questions",),
        write_once_tables=(),
        content_id_field="packet_id",
        content_noun="packet",
    ),
    views={"qs": "questions"},
)


def a_receipt(n: int) -> Receipt:
    return Receipt(
        method="GET",
        url="https://gamma-api.polymarket.com/markets",
        params=(("offset", str(n)),),
        status=200,
        headers={"content-type": "application/json"},
        body=b'[{"id": "%d"}]' % n,
        started_at="2026-12-01T12:00:00.000000Z",
        ended_at="2026-12-01T12:00:00.120000Z",
    )


def test_a_bucket_root_is_a_path_in_the_bucket(bucket_root: str) -> None:
    record = Record(bucket_root)
    assert record.on_object_store and is_remote(record.root)
    assert str(record.receipts.root) == f"{bucket_root}/receipts"
    # This host's own files stay on this host.
    assert not is_remote(record.catalog_path) and not is_remote(record.keys_dir)


def test_receipts_are_put_once_read_back_and_a_changed_one_is_named(bucket_root: str) -> None:
    store = Record(bucket_root).receipts
    ids = [store.put(a_receipt(n)) for n in range(3)]
    assert store.put(a_receipt(0)) == ids[0]  # the same exchange: a no-op
    assert sorted(store.ids()) == sorted(ids)
    assert store.get(ids[1]).body == b'[{"id": "1"}]'
    assert all(store.written_as_here(i) for i in ids)
    # A receipt is created once: a second, different object at its key is refused by the bucket.
    with pytest.raises(FileExistsError, match="written once"):
        write_bytes_atomic(store.path_for(ids[2]), b"other bytes", create_only=True)
    # Changed behind the writer's back (a plain PUT): named, never trusted.
    put_object(store.path_for(ids[2]), store.path_for(ids[0]).read_bytes())
    with pytest.raises(ReceiptError, match=f"receipt {ids[2]} .* was altered"):
        store.get(ids[2])


def test_tables_are_written_with_their_ledger_and_read_and_scanned(bucket_root: str) -> None:
    tables = Record(bucket_root).tables(ARENA)
    for card in ("2026-12-01-0500", "2026-12-01-1000"):
        tables.write("questions", pl.DataFrame({"card": [card, card], "n": [1, 2]}), card)
    tables.write("seats", pl.DataFrame({"seat": ["a", "b"]}))
    assert tables.tables() == ["questions", "seats"]
    assert tables.partitions("questions") == ["2026-12-01-0500", "2026-12-01-1000"]
    assert tables.read_checked("questions", "2026-12-01-0500")["n"].to_list() == [1, 2]
    assert tables.read("seats")["seat"].to_list() == ["a", "b"]
    scanned = tables.scan("questions")
    assert scanned is not None and scanned.select(pl.col("n").sum()).collect().item() == 6
    path = tables.path("questions", "2026-12-01-1000")
    assert check_file(path).ok
    assert tables.write_bytes("seats", tables.read_bytes("seats")) is False  # unchanged: nothing put
    put_object(path, parquet_bytes(pl.DataFrame({"card": ["x"], "n": [9]})))
    assert "changed outside the record's writer" in (check_file(path).problem or "")
    with pytest.raises(Exception, match="changed outside the record's writer"):
        tables.read_checked("questions", "2026-12-01-1000")


def test_a_seal_is_created_once_and_a_second_one_is_refused(bucket_root: str) -> None:
    record = Record(bucket_root)
    tables, seals = record.tables(ARENA), record.seals(ARENA)
    data = parquet_bytes(pl.DataFrame({"card": ["c"], "n": [1]}))
    sha = hashlib.sha256(data).hexdigest()
    kwargs: dict[str, Any] = {"kind": "0500", "sealed_at": "2026-12-01T05:00:00Z"}
    seal = seals.seal("2026-12-01-0500", content_id="p1", tables={"questions": sha}, **kwargs)
    tables.write_bytes("questions", data, "2026-12-01-0500")
    assert seals.get("2026-12-01-0500") == seal and [s.partition for s in seals.seals()] == [
        "2026-12-01-0500"
    ]
    assert seals.seal("2026-12-01-0500", content_id="p1", tables={"questions": sha}, **kwargs) == seal
    with pytest.raises(SealError, match="a second, different seal is refused"):
        seals.seal("2026-12-01-0500", content_id="p2", tables={"questions": sha}, **kwargs)
    # Even a writer that skipped every check cannot replace the seal's object.
    with pytest.raises(FileExistsError):
        write_bytes_atomic(seals.path("2026-12-01-0500"), b"{}", create_only=True)
    with pytest.raises(SealError, match="immutable"):
        seals.check_write("questions", "2026-12-01-0500", b"other")


def test_a_journal_appends_in_a_bucket_and_keeps_its_chain(bucket_root: str) -> None:
    path = Record(bucket_root).journal_path(ARENA, "answers", "2026-12-01-0500")
    journal = Journal(path)
    for seat in ("a", "b", "c"):
        journal.append({"event": "ask", "seat": seat})
    again = Journal(path)  # another writer's object: reads the chain before it appends
    again.append({"event": "reply", "seat": "a"})
    entries, torn = read_journal(path)
    assert not torn and [(e["seq"], e["seat"]) for e in entries] == [(1, "a"), (2, "b"), (3, "c"), (4, "a")]
    assert entries[3]["prev"] is not None


def test_the_catalog_reads_the_bucket_through_httpfs(bucket_root: str) -> None:
    pytest.importorskip("duckdb_extension_httpfs", reason="duckdb-extension-httpfs, the [production] extra")
    record = Record(bucket_root)
    tables = record.tables(ARENA)
    for card, n in (("2026-12-01-0500", 1), ("2026-12-01-1000", 2)):
        tables.write("questions", pl.DataFrame({"n": [n, n * 10]}), card)
    views = refresh_catalog(record, [ARENA])
    assert views == ["demo.qs", "demo.questions"] == catalog_views(record.catalog_path)
    with connect_catalog(record) as con:
        rows = con.sql("SELECT card, sum(n) FROM demo.qs GROUP BY card ORDER BY card").fetchall()
    assert rows == [("2026-12-01-0500", 11), ("2026-12-01-1000", 22)]


def test_a_bucket_record_takes_its_writers_locks_from_postgresql_only(bucket_root: str) -> None:
    with pytest.raises(RemoteRecordError, match="COLOSSEUM_POSTGRES_URL"):
        Record(bucket_root).locks  # noqa: B018


def test_an_object_store_that_does_not_answer_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("obstore", reason="obstore, the [production] extra")
    from colosseum_dagster.cli import main

    nobody = {
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
        "AWS_ALLOW_HTTP": "true",
        "AWS_ACCESS_KEY_ID": "k",
        "AWS_SECRET_ACCESS_KEY": "s",
        "AWS_REGION": "us-east-1",
    }
    for name, value in nobody.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exited:
        main(["verify", "s3://nobody-home/record"])
    said = capsys.readouterr().err
    assert exited.value.code == 2 and "Traceback" not in said and len(said.strip().splitlines()) == 1
    assert said.startswith("colosseum verify: the object store (http://127.0.0.1:9) failed a request: ")
    assert "http://127.0.0.1:9/nobody-home/record" in said


def test_the_site_a_held_arena_keeps_is_the_one_the_bucket_publishes(
    bucket_root: str, tmp_path: Path
) -> None:
    """On a bucket the site being replaced is the bucket's: another host, or this host's last pod whose
    disk is gone, may have published it; a held arena's pages come from there, never from this host."""
    record = Record(bucket_root)
    scratch = tmp_path / "scratch"
    assert fetch_published_site(record, scratch) is None  # nothing published yet: nothing to keep
    elsewhere = tmp_path / "host-a" / "site"
    (elsewhere / "debate").mkdir(parents=True)
    (elsewhere / "site.json").write_text('{"built_at": "2026-12-01T00:00:00Z"}')
    (elsewhere / "debate" / "index.html").write_text("<p>as host A published it</p>")
    assert upload_tree(elsewhere, record.published_site) == 2
    scratch.mkdir()
    (scratch / "stale.html").write_text("this host's own leftover")
    assert fetch_published_site(record, scratch) == scratch
    assert sorted(p.relative_to(scratch).as_posix() for p in scratch.rglob("*") if p.is_file()) == [
        "debate/index.html",
        "site.json",
    ]
    assert (scratch / "debate" / "index.html").read_text() == "<p>as host A published it</p>"
