"""The record: receipts, identifiers, atomic Parquet tables and the DuckDB catalog."""

from __future__ import annotations

import dataclasses
import datetime as dt
import gzip
import hashlib
import json
import threading

import duckdb
import polars as pl
import pytest

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record import ReceiptStore, RecordTables, RequestTrace, row_id, with_ids
from colosseum_core.record.atomic import atomic_target, temp_path_for
from colosseum_core.record.catalog import catalog_views, refresh_catalog
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.record.receipts import Receipt, ReceiptError, gzip_bytes, headers_that_matter


def _receipt(body: bytes = b'{"markets": []}', status: int | None = 200) -> Receipt:
    trace = RequestTrace(
        method="GET",
        url="http://127.0.0.1:1/markets/keyset",
        params=[("closed", "false"), ("limit", "100")],
        started_at="2026-11-29T10:00:00.000001Z",
        request_headers={"X-Colosseum-As-Of": "2026-11-29T10:00:00Z", "Accept": "application/json"},
    )
    return trace.receipt(
        ended_at="2026-11-29T10:00:00.250000Z",
        status=status,
        headers=[("Content-Type", "application/json"), ("Set-Cookie", "secret"), ("Retry-After", "2")],
        body=body,
    )


class TestReceiptStore:
    def test_id_is_sha256_of_canonical_document_and_round_trips(self, tmp_path):
        store = ReceiptStore(tmp_path)
        receipt = _receipt()
        receipt_id = store.put(receipt)
        assert receipt_id == hashlib.sha256(receipt.canonical_bytes()).hexdigest()
        path = store.path_for(receipt_id)
        assert path == tmp_path / "sha256" / receipt_id[:2] / f"{receipt_id[2:]}.json.gz"
        doc = json.loads(gzip.decompress(path.read_bytes()))
        assert doc["status"] == 200 and doc["params"] == [["closed", "false"], ["limit", "100"]]
        assert doc["body_sha256"] == hashlib.sha256(b'{"markets": []}').hexdigest()
        assert store.get(receipt_id) == receipt
        assert store.get(receipt_id).json() == {"markets": []}
        assert list(store.ids()) == [receipt_id]

    def test_storing_the_same_exchange_twice_is_a_no_op(self, tmp_path):
        store = ReceiptStore(tmp_path)
        first = store.put(_receipt())
        path = store.path_for(first)
        before = (path.read_bytes(), path.stat().st_mtime_ns)
        assert store.put(_receipt()) == first
        assert (path.read_bytes(), path.stat().st_mtime_ns) == before
        assert len(list(tmp_path.rglob("*.json.gz"))) == 1

    def test_gzip_bytes_are_a_pure_function_of_the_receipt(self, tmp_path):
        a, b = ReceiptStore(tmp_path / "a"), ReceiptStore(tmp_path / "b")
        rid = a.put(_receipt())
        b.put(_receipt())
        assert a.path_for(rid).read_bytes() == b.path_for(rid).read_bytes()

    def test_only_the_headers_that_matter_are_kept(self):
        kept = _receipt().headers
        assert kept == {"content-type": "application/json", "retry-after": "2"}
        assert headers_that_matter([("X-Colosseum-Simulator", "x"), ("Server", "y")]) == {
            "x-colosseum-simulator": "x"
        }

    def test_a_transport_error_is_a_receipt_too(self, tmp_path):
        store = ReceiptStore(tmp_path)
        trace = RequestTrace("GET", "http://127.0.0.1:1/markets/keyset", [], "2026-11-29T10:00:00Z")
        rid = store.put(
            trace.receipt(ended_at="2026-11-29T10:00:01Z", status=None, error="ConnectError: refused")
        )
        got = store.get(rid)
        assert got.status is None and got.error == "ConnectError: refused" and got.body == b""

    def test_a_tampered_receipt_is_refused_naming_it(self, tmp_path):
        store = ReceiptStore(tmp_path)
        rid = store.put(_receipt())
        path = store.path_for(rid)
        path.chmod(0o644)
        doc = json.loads(gzip.decompress(path.read_bytes()))
        doc["status"] = 500
        path.write_bytes(gzip_bytes(json.dumps(doc).encode()))
        with pytest.raises(ReceiptError, match=f"receipt {rid} .* was altered"):
            store.get(rid)
        # Python's own gzip writes another header (mtime, OS byte): the file is not the store's either.
        path.write_bytes(gzip.compress(json.dumps(doc).encode()))
        with pytest.raises(ReceiptError, match=f"receipt {rid} .*gzip header"):
            store.get(rid)

    @pytest.mark.parametrize(
        ("edit", "message"),
        [
            (lambda raw: raw[:10] + b"\xff" + raw[11:], "is not readable gzip"),
            (lambda raw: raw[:30], "it ends before its deflate stream does"),
            (lambda raw: raw + b"\x00", "1 byte\\(s\\) follow its trailer"),
            (lambda raw: raw[:-9] + raw[-8:], "is not readable gzip|ends before|trailer"),
            (lambda raw: raw[:-8] + bytes([raw[-8] ^ 1]) + raw[-7:], "CRC-32 and length"),
            (
                lambda raw: raw[:-4] + (int.from_bytes(raw[-4:], "little") + 1).to_bytes(4, "little"),
                "CRC-32 and length",
            ),
        ],
        ids=[
            "a broken deflate stream",
            "cut short",
            "a byte after the trailer",
            "a byte gone before the trailer",
            "another CRC",
            "another length",
        ],
    )
    def test_a_receipt_file_that_is_not_one_whole_gzip_member_is_refused(self, tmp_path, edit, message):
        store = ReceiptStore(tmp_path)
        rid = store.put(_receipt())
        path = store.path_for(rid)
        path.chmod(0o644)
        path.write_bytes(edit(path.read_bytes()))
        with pytest.raises(ReceiptError, match=f"receipt {rid} at .*: .*({message})"):
            store.get(rid)

    def test_missing_and_malformed_ids_are_clear_errors(self, tmp_path):
        store = ReceiptStore(tmp_path)
        with pytest.raises(ReceiptError, match="missing"):
            store.get("0" * 64)
        with pytest.raises(ReceiptError, match="not a SHA-256"):
            store.get("../../etc/passwd")

    def test_a_body_that_is_not_json_names_the_receipt(self, tmp_path):
        store = ReceiptStore(tmp_path)
        rid = store.put(_receipt(body=b'{"markets": [{"id": "1", "que'))
        with pytest.raises(ReceiptError, match=f"receipt {rid}: body of GET .* is not valid JSON"):
            store.get(rid).json()


class TestIdentifiers:
    def test_known_vector(self):
        # RFC 8785 canonical form of {"b": "x", "a": 1} is {"a":1,"b":"x"}.
        expected = hashlib.sha256(b'{"a":1,"b":"x"}').hexdigest()
        assert row_id({"b": "x", "a": 1}) == expected
        assert row_id({"id": "ignored", "a": 1, "b": "x"}) == expected

    def test_any_change_changes_the_id(self):
        base = {"question": "Will it rain?", "price": 0.5, "tags": ["a", "b"]}
        assert row_id(base) != row_id({**base, "price": 0.51})
        assert row_id(base) != row_id({**base, "tags": ["b", "a"]})
        assert row_id(base) == row_id(dict(reversed(base.items())))

    def test_datetimes_have_one_canonical_form(self):
        utc = dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC)
        new_york = utc.astimezone(dt.timezone(dt.timedelta(hours=-5)))
        assert row_id({"t": utc}) == row_id({"t": new_york}) == row_id({"t": "2026-11-29T15:00:00Z"})
        with pytest.raises(ValueError, match="naive"):
            row_id({"t": dt.datetime(2026, 11, 29)})
        with pytest.raises(ValueError, match="non-finite"):
            row_id({"x": float("nan")})

    def test_with_ids_recomputes_from_the_other_columns(self):
        frame = pl.DataFrame({"a": [1, 2], "b": [["x"], None]})
        out = with_ids(frame)
        assert out.columns == ["id", "a", "b"]
        assert out["id"].to_list() == [row_id({"a": 1, "b": ["x"]}), row_id({"a": 2, "b": None})]
        assert with_ids(out.with_columns(pl.lit("forged").alias("id"))).equals(out)


class TestTables:
    def test_layout_and_listing(self, tmp_path):
        tables = RecordTables(tmp_path, "card")
        tables.write(
            "verbatim_markets", pl.DataFrame({"card": ["2026-11-29-0500"], "x": [1]}), "2026-11-29-0500"
        )
        tables.write(
            "verbatim_markets", pl.DataFrame({"card": ["2026-11-29-1000"], "x": [2]}), "2026-11-29-1000"
        )
        assert tables.path("verbatim_markets", "2026-11-29-0500") == (
            tmp_path / "verbatim_markets" / "card=2026-11-29-0500" / "data.parquet"
        )
        assert tables.partitions("verbatim_markets") == ["2026-11-29-0500", "2026-11-29-1000"]
        assert tables.tables() == ["verbatim_markets"]
        assert tables.read("verbatim_markets", "2026-11-29-1000")["x"].to_list() == [2]

    def test_unsafe_names_are_refused(self, tmp_path):
        tables = RecordTables(tmp_path, "card")
        with pytest.raises(ValueError, match="snake_case"):
            tables.path("../etc")
        with pytest.raises(ValueError, match="safe path"):
            tables.path("t", "../../x")

    def test_a_failed_write_leaves_the_old_file_and_no_temp(self, tmp_path):
        tables = RecordTables(tmp_path, "card")
        path = tables.write("t", pl.DataFrame({"x": [1]}), "k")
        before = path.read_bytes()

        class Boom(Exception):
            pass

        with pytest.raises(Boom), atomic_target(path) as tmp:
            tmp.write_bytes(b"half a parq")
            raise Boom
        assert path.read_bytes() == before
        assert sorted(p.name for p in path.parent.iterdir()) == ["data.parquet", "data.parquet.sha256"]

    def test_temp_names_never_match_the_read_glob(self, tmp_path):
        tmp = temp_path_for(tmp_path / "data.parquet")
        assert not tmp.match("data.parquet") and not tmp.match("*.parquet")

    def test_readers_never_see_a_half_written_file(self, tmp_path):
        tables = RecordTables(tmp_path, "card")
        frame = pl.DataFrame({"x": list(range(50_000))})
        tables.write("t", frame, "k")
        stop = threading.Event()
        errors: list[Exception] = []

        def rewrite() -> None:
            while not stop.is_set():
                tables.write("t", frame, "k")

        writer = threading.Thread(target=rewrite)
        writer.start()
        try:
            con = duckdb.connect()
            for _ in range(60):
                try:
                    assert con.execute(
                        f"SELECT count(*) FROM read_parquet('{tables.glob('t')}')"
                    ).fetchone() == (50_000,)
                except duckdb.Error as exc:  # pragma: no cover - the failure this test exists to catch
                    errors.append(exc)
        finally:
            stop.set()
            writer.join()
        assert errors == []


class TestCatalog:
    def test_views_over_absolute_globs_and_no_lock_against_open_readers(self, tmp_path, monkeypatch):
        record = RecordLayout(tmp_path)
        tables = record.tables(FORECAST)
        db = record.catalog_path
        tables.write("sweeps", pl.DataFrame({"card": ["2026-11-29-0500"], "pages": [3]}), "2026-11-29-0500")
        assert refresh_catalog(record, [FORECAST]) == ["forecast.sweeps"]

        reader = duckdb.connect(str(db), read_only=True)  # an analyst's open session
        try:
            tables.write(
                "sweeps", pl.DataFrame({"card": ["2026-11-29-1000"], "pages": [4]}), "2026-11-29-1000"
            )
            tables.write(
                "raw_sweep", pl.DataFrame({"card": ["2026-11-29-1000"], "seq": [0]}), "2026-11-29-1000"
            )
            # New cards of a known table appear without a rebuild.
            assert reader.execute("SELECT sum(pages) FROM forecast.sweeps").fetchone() == (7,)
            # A rebuild while the analyst holds the file open neither waits nor fails.
            assert refresh_catalog(record, [FORECAST]) == ["forecast.raw_sweep", "forecast.sweeps"]
        finally:
            reader.close()

        monkeypatch.chdir(tmp_path.parent)  # views must not depend on the reader's directory
        assert catalog_views(db) == ["forecast.raw_sweep", "forecast.sweeps"]
        con = duckdb.connect(str(db), read_only=True)
        try:
            assert con.execute("SELECT card, pages FROM forecast.sweeps ORDER BY card").fetchall() == [
                ("2026-11-29-0500", 3),
                ("2026-11-29-1000", 4),
            ]
        finally:
            con.close()
        assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]

    def test_each_arena_has_its_schema_and_its_aliases(self, tmp_path):
        record = RecordLayout(tmp_path)
        other = dataclasses.replace(FORECAST, name="other", views={"games": "boards"})
        record.tables(FORECAST).write("packet", pl.DataFrame({"card": ["k"], "n": [1]}), "k")
        record.tables(other).write("boards", pl.DataFrame({"n": [2]}))
        views = refresh_catalog(record, [FORECAST, other])
        assert views == ["forecast.cards", "forecast.packet", "other.boards", "other.games"]
        with duckdb.connect(str(record.catalog_path), read_only=True) as con:
            assert con.execute("SELECT n FROM forecast.cards").fetchall() == [(1,)]
            assert con.execute("SELECT n FROM other.games").fetchall() == [(2,)]


class TestReceiptCanonicalForm:
    """Receipts hash their RFC 8785 form; the fast encoder must agree with the reference one."""

    from hypothesis import given, settings
    from hypothesis import strategies as st

    _text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)

    @given(
        url=_text,
        params=st.lists(st.tuples(_text, _text), max_size=4),
        headers=st.dictionaries(
            st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12), _text, max_size=4
        ),
        status=st.one_of(st.none(), st.integers(100, 599)),
        body=st.binary(max_size=200),
        error=st.one_of(st.none(), _text),
    )
    @settings(max_examples=300, deadline=None)
    def test_fast_canonical_bytes_equal_rfc8785(self, url, params, headers, status, body, error):
        import rfc8785

        receipt = Receipt(
            method="GET",
            url=url,
            params=tuple(params),
            status=status,
            headers=headers,
            body=body,
            started_at="2026-11-29T10:00:00.000001Z",
            ended_at="2026-11-29T10:00:00.000002Z",
            error=error,
        )
        assert receipt.canonical_bytes() == rfc8785.dumps(receipt.document())


def test_bodies_that_are_not_utf8_are_kept_byte_for_byte(tmp_path):
    store = ReceiptStore(tmp_path)
    raw = b"\xff\xfe{not utf-8 \x00"
    rid = store.put(_receipt(body=raw))
    doc = json.loads(gzip.decompress(store.path_for(rid).read_bytes()))
    assert doc["body_encoding"] == "base64"
    assert store.get(rid).body == raw
    text_id = store.put(_receipt(body='{"q": "Élysée ✓"}'.encode()))
    text_doc = json.loads(gzip.decompress(store.path_for(text_id).read_bytes()))
    assert text_doc["body_encoding"] == "utf-8" and text_doc["body"] == '{"q": "Élysée ✓"}'
