"""The archive: a compacted copy of a per-card table that is never stale and never needed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.board.leaderboard import build_boards, read_scores
from colosseum_core.record.archive import INDEX_NAME, TableArchive
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.record.tables import RecordTables
from tests.forecast.test_leaderboard import synthetic_scores

CARDS = ["2026-01-30-1800", "2026-01-31-0500", "2026-02-01-0500", "2026-02-01-1000", "2026-03-02-1800"]


def card_rows(card: str, seed: int = 0) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": [f"{card}/{seat}" for seat in ("A", "B")],
            "card": [card, card],
            "seat": ["A", "B"],
            "points": [seed, seed + 1],
            "note": ["x", None],
        }
    )


@pytest.fixture
def record(tmp_path: Path) -> RecordTables:
    tables = RecordLayout(tmp_path).tables(FORECAST)
    for card in CARDS:
        tables.write("things", card_rows(card), card)
    return tables


def archive(tables: RecordTables, cache: Path, **options: object) -> TableArchive:
    return TableArchive(tables, "things", cache, categorical=("card", "seat"), **options)  # type: ignore[arg-type]


def as_strings(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col(pl.Categorical).cast(pl.String))


def scanned(tables: RecordTables) -> pl.DataFrame:
    scan = tables.scan("things")
    assert scan is not None
    return scan.collect()


def test_the_archive_gives_exactly_the_card_files_in_card_order(record: RecordTables, tmp_path: Path) -> None:
    first = archive(record, tmp_path / "cache").read()
    assert first is not None
    assert (first.partitions, first.segments_reused, first.segments_rebuilt) == (5, 0, 3)  # three months
    assert first.frame.schema["card"] == pl.Categorical and first.frame.schema["seat"] == pl.Categorical
    assert as_strings(first.frame).equals(scanned(record))
    again = archive(record, tmp_path / "cache").read()
    assert again is not None and (again.segments_reused, again.segments_rebuilt) == (3, 0)
    assert as_strings(again.frame).equals(scanned(record))
    assert sorted(p.name.split(".")[0] for p in (tmp_path / "cache" / "things").glob("*.parquet")) == [
        "2026-01",
        "2026-02",
        "2026-03",
    ]


def test_a_rewritten_card_rebuilds_only_its_month(record: RecordTables, tmp_path: Path) -> None:
    archive(record, tmp_path / "cache").read()
    record.write("things", card_rows("2026-02-01-1000", seed=50), "2026-02-01-1000")
    read = archive(record, tmp_path / "cache").read()
    assert read is not None and (read.segments_reused, read.segments_rebuilt) == (2, 1)
    assert as_strings(read.frame).equals(scanned(record))
    assert 50 in read.frame["points"].to_list()
    # The month's old segment is gone: one file per month, whatever was rebuilt.
    assert len(list((tmp_path / "cache" / "things").glob("2026-02.*.parquet"))) == 1


def test_a_rewrite_with_the_same_size_and_time_is_still_seen(record: RecordTables, tmp_path: Path) -> None:
    archive(record, tmp_path / "cache").read()
    path = record.path("things", "2026-01-31-0500")
    before = path.stat()
    record.write("things", card_rows("2026-01-31-0500", seed=7), "2026-01-31-0500")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old mtime
    assert path.stat().st_size == before.st_size
    read = archive(record, tmp_path / "cache").read()
    assert read is not None and read.segments_rebuilt == 1 and 7 in read.frame["points"].to_list()


def test_cards_added_and_removed_are_followed(record: RecordTables, tmp_path: Path) -> None:
    archive(record, tmp_path / "cache").read()
    record.write("things", card_rows("2026-04-01-0500"), "2026-04-01-0500")
    record.path("things", "2026-03-02-1800").unlink()
    read = archive(record, tmp_path / "cache").read()
    assert read is not None and (read.partitions, read.segments_reused, read.segments_rebuilt) == (5, 2, 1)
    assert as_strings(read.frame).equals(scanned(record))
    assert not list((tmp_path / "cache" / "things").glob("2026-03.*"))


def test_a_damaged_archive_is_rebuilt_from_the_cards(record: RecordTables, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    archive(record, cache).read()
    segment = next((cache / "things").glob("2026-02.*.parquet"))
    segment.write_bytes(b"not parquet")
    read = archive(record, cache).read()
    assert read is not None and (read.segments_reused, read.segments_rebuilt) == (2, 1)
    assert as_strings(read.frame).equals(scanned(record))
    (cache / "things" / INDEX_NAME).write_text("{ not json")
    read = archive(record, cache).read()
    assert read is not None and read.segments_rebuilt == 3 and as_strings(read.frame).equals(scanned(record))
    index = json.loads((cache / "things" / INDEX_NAME).read_text())
    assert index["format"] == "COLOSSEUM-ARCHIVE-1" and index["segments"]["2026-01"]["rows"] == 4


def test_another_projection_or_encoding_does_not_reuse_segments(record: RecordTables, tmp_path: Path) -> None:
    archive(record, tmp_path / "cache").read()
    narrowed = archive(
        record, tmp_path / "cache", columns=["card", "seat", "points"], narrow={"points": pl.Int8()}
    )
    read = narrowed.read()
    assert read is not None and read.segments_rebuilt == 3
    assert read.frame.columns == ["card", "seat", "points"] and read.frame.schema["points"] == pl.Int8
    record.write("things", card_rows("2026-01-30-1800", seed=1000), "2026-01-30-1800")  # too wide for Int8
    read = narrowed.read()
    assert read is not None and read.frame["points"].max() == 1001


def test_an_unwritable_cache_still_reads_whole(record: RecordTables, tmp_path: Path) -> None:
    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("")
    read = archive(record, blocked).read()
    assert read is not None and not read.archive_written and as_strings(read.frame).equals(scanned(record))


def test_an_empty_table_reads_as_none(tmp_path: Path) -> None:
    assert archive(RecordLayout(tmp_path).tables(FORECAST), tmp_path / "cache").read() is None


def test_boards_from_the_archive_equal_boards_from_the_card_files(tmp_path: Path) -> None:
    scores = synthetic_scores(cards=24, questions=5, seats=3, seed=8)
    tables = RecordLayout(tmp_path).tables(FORECAST)
    for (card,), rows in scores.group_by("card"):
        tables.write("scores", rows, str(card))
    read = read_scores(tables, tmp_path / "cache")
    assert read is not None and read.frame.schema["seat"] == pl.Categorical
    assert read.frame.schema["kind"] == pl.Enum(["CALIBRATION", "FIGHT"])
    assert read.frame.schema["brier_units"] == pl.Int16
    direct = tables.scan("scores")
    assert direct is not None
    expected, ours = build_boards(direct.collect(), replicates=99), build_boards(read.frame, replicates=99)
    assert ours.leaderboard.equals(expected.leaderboard) and ours.calibration.equals(expected.calibration)


def test_a_value_the_narrow_type_cannot_hold_stays_wide_and_is_refused_by_name(tmp_path: Path) -> None:
    scores = synthetic_scores(cards=6, questions=3, seats=2, seed=1)
    tables = RecordLayout(tmp_path).tables(FORECAST)
    for (card,), rows in scores.group_by("card"):
        odd = rows.with_columns(kind=pl.lit("SPARRING")) if card == scores["card"].max() else rows
        tables.write("scores", odd, str(card))
    read = read_scores(tables, tmp_path / "cache")
    assert read is not None
    with pytest.raises(ValueError, match="unknown kind 'SPARRING'"):
        build_boards(read.frame, replicates=9)
