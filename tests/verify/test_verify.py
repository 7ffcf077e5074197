"""`colosseum verify`'s engine: a real record and a site built from it, clean and tampered with."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import polars as pl
import pytest

from colosseum_core.arenas import AUDITS
from colosseum_core.forecast.answering.answers import ANSWER_SIGNING, answer_signature_problems
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record import ReceiptStore, RecordTables, row_id, with_ids
from colosseum_core.record.journal import read_journal
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.record.ledger import write_recorded
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.trust.bundle import ENVELOPE_NAME, MANIFEST_NAME, sign_bundle
from colosseum_core.trust.keys import KeyStore
from colosseum_core.verify import VerifyReport, verify_path, verify_record, verify_site
from colosseum_core.verify.canonical import content_ids
from colosseum_core.verify.signatures import KeyIndex, parse_public_keys, partition_signature_problems
from tests.support import run_colosseum

CARDS = ("2026-11-20-0500", "2026-11-20-1000")
MARKETS = "800"  # a small board keeps the verdicts' re-derivation quick; 25 questions still seal
SITE_TABLES = (
    "packet",
    "card_questions",
    "ranked_candidates",
    "sweeps",
    "answers",
    "answer_lines",
    "answer_signatures",
    "public_keys",
    "settlements",
    "settlement_reviews",
    "scores",
)


def _cli(args: list[str], data: Path) -> None:
    done = run_colosseum(*args, env=dict(os.environ) | {"COLOSSEUM_DATA": str(data)})
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def record_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two cards run end to end, then settled, scored and ranked: a real record."""
    data = tmp_path_factory.mktemp("verify") / "data"
    _cli(["forecast", "card", "run", *CARDS, "--markets", MARKETS], data)
    _cli(["forecast", "settle", "--at", "2026-12-30T00:00:00Z", "--markets", MARKETS], data)
    return data


@pytest.fixture
def record(record_root: Path, tmp_path: Path) -> Path:
    """A private copy of the record, to tamper with."""
    return Path(shutil.copytree(record_root, tmp_path / "data"))


def _tables(root: Path) -> RecordTables:
    return RecordLayout(root).tables(FORECAST)


def _rewrite(
    root: Path, table: str, card: str | None, change: Callable[[pl.DataFrame], pl.DataFrame]
) -> None:
    tables = _tables(root)
    tables.write_bytes(table, parquet_bytes(change(tables.read(table, card))), card)


def _flip(path: Path, offset: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    at = len(data) // 2 if offset is None else offset
    data[at] ^= 0x5A
    path.write_bytes(bytes(data))


def _has(report: VerifyReport, *parts: str) -> bool:
    return any(all(p in line for p in parts) for line in report.problems)


# --------------------------------------------------------------------------------------------
# A clean record


def test_a_clean_record_verifies_with_plausible_counts(record_root: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    report = verify_record(record_root, AUDITS, workers=2, progress=lambda *a: seen.append(a))
    assert report.ok(), report.problems[:10]
    tables = _tables(record_root)
    rows = sum(pl.read_parquet(p).height for p in (record_root / "warehouse").rglob("*.parquet"))
    verdicts = sum(tables.read("ranked_candidates", c).height for c in CARDS)
    answers = sum(tables.read("answers", c).height for c in CARDS)
    checked = report.checked
    assert checked["cards"] == len(CARDS) and checked["seals"] == len(CARDS)
    assert checked["rows"] == rows and checked["files"] == len(
        list((record_root / "warehouse").rglob("*.parquet"))
    )
    assert checked["receipts"] == len(list(ReceiptStore(record_root / "receipts").ids())) > 0
    assert checked["signatures"] == 2 * answers == 2 * 13 * len(CARDS)
    assert checked["verdicts"] == verdicts > 50
    assert checked["settlements"] > 0 and checked["scores"] > 0
    assert checked["board_rows"] == tables.read("leaderboard").height + tables.read("calibration").height
    assert checked["tables"] == len(tables.tables())
    stages = {stage for stage, _, _ in seen}
    assert {"cards", "receipts", "board", "files"} <= stages
    assert all(done <= total for _, done, total in seen)
    assert ("cards", len(CARDS), len(CARDS)) in seen
    summary = report.summary()
    assert json.loads(json.dumps(summary)) == summary and summary["ok"] is True


def test_the_batch_identifiers_are_the_reference_ones(record_root: Path) -> None:
    for path in (record_root / "warehouse").rglob("*.parquet"):
        frame = pl.read_parquet(path)
        ids, errors = content_ids(frame)
        assert not errors and ids == frame["id"].to_list() == [row_id(r) for r in frame.iter_rows(named=True)]
    utc = dt.UTC
    edge = pl.DataFrame(
        {
            "f": [5.0, -0.0, 0.1, 1e-4, 9e-5, 1e-7, 1e16, 1e21, 2.0**53, 123456.789, 1.5e300, None],
            "i": [0, -1, 2**53 - 1, -(2**53) + 1, 7, 8, 9, 10, 11, 12, 13, None],
            "s": [
                "",
                "é",
                "\u2028",
                "\x00\x1f\x7f",
                '"\\',
                "\b\f\n\r\t",
                "𝄞",
                "\ud7ff",
                "a b",
                "0",
                "[]",
                None,
            ],
            "t": [dt.datetime(2026, 1, 2, 3, 4, 5, m, tzinfo=utc) for m in (0, 1, 999999, *range(8))]
            + [None],
            "d": [dt.date(2026, 1, d) for d in range(1, 12)] + [None],
            "l": [["a", "b"], [], None, ["\n"], *([["x"]] * 8)],
        }
    )
    ids, errors = content_ids(edge)
    assert not errors and ids == [row_id(r) for r in edge.iter_rows(named=True)]
    unsafe = pl.DataFrame({"i": [2**53, 1], "f": [float("nan"), 1.0]})
    ids, errors = content_ids(unsafe)
    assert ids[0] is None and 0 in errors and ids[1] == row_id(unsafe.row(1, named=True))


def test_the_fast_signature_check_agrees_with_the_reference(record_root: Path) -> None:
    tables = _tables(record_root)
    for card in CARDS:
        answers, signatures = tables.read("answers", card), tables.read("answer_signatures", card)
        keys_frame = tables.read("public_keys", card)
        keys, key_problems = parse_public_keys(keys_frame)
        day = dt.date.fromisoformat(card[:10])
        seats = sorted({k.name for k in keys} - {"arena"})
        assert not key_problems and len(seats) == 13
        ids = content_ids(answers)[0]
        fast, checked = partition_signature_problems(
            card, answers, ids, signatures, keys_frame, KeyIndex(keys), day, seats, ANSWER_SIGNING
        )
        assert fast == [] and checked == 26
        assert (
            answer_signature_problems(
                answers, keys_frame, signatures=signatures, on_date=day, expected_seats=seats
            )
            == []
        )
        # One seat's row gone and another's signature swapped: both ways find both.
        bad_sigs = signatures.with_columns(
            pl.when(pl.col("seat") == seats[1])
            .then(pl.lit(signatures["seat_signature"][0]))
            .otherwise(pl.col("seat_signature"))
            .alias("seat_signature")
        )
        kept = answers.filter(pl.col("seat") != seats[0])
        fast, _ = partition_signature_problems(
            card, kept, content_ids(kept)[0], bad_sigs, keys_frame, KeyIndex(keys), day, seats, ANSWER_SIGNING
        )
        assert any(f"seat {seats[0]}: no answer record" in p for p in fast)
        assert any(f"seat {seats[1]}" in p and "does not verify" in p for p in fast)


# --------------------------------------------------------------------------------------------
# A record tampered with: each change is named


def test_a_flipped_byte_in_a_receipt_names_the_receipt(record: Path) -> None:
    store = ReceiptStore(record / "receipts")
    receipt_id = next(iter(store.ids()))
    _flip(store.path_for(receipt_id))
    report = verify_record(record, AUDITS, workers=1)
    assert not report.ok()
    assert _has(report, f"receipt {receipt_id}")


def test_a_deleted_reply_receipt_is_named_by_the_answer_that_names_it(record: Path) -> None:
    card = CARDS[0]
    row = _tables(record).read("answers", card).row(0, named=True)
    [receipt_id, *_] = row["receipt_ids"]
    ReceiptStore(record / "receipts").path_for(receipt_id).unlink()
    report = verify_record(record, AUDITS, workers=1)
    journal = f"journal/forecast/answers/card={card}.jsonl"
    [line] = [e["seq"] for e in read_journal(record / journal)[0] if e.get("receipt_id") == receipt_id]
    assert report.problems == [
        f"answers card {card} row {row['id']}: names receipt {receipt_id}, which is not in receipts/",
        f"answers card {card} seat {row['seat']}: its call cannot be replayed (receipt {receipt_id} is "
        f"missing (expected at {ReceiptStore(record / 'receipts').path_for(receipt_id)}))",
        f"{journal} line {line}: names receipt {receipt_id}, which is not in receipts/",
    ]


def test_a_changed_answer_fails_its_id_and_its_signatures(record: Path) -> None:
    card = CARDS[1]
    answers = _tables(record).read("answers", card)
    seat, stored = answers["seat"][3], answers["id"][3]
    _rewrite(
        record,
        "answers",
        card,
        lambda f: f.with_columns(
            pl.when(pl.col("seat") == seat)
            .then(pl.lit("tampered"))
            .otherwise(pl.col("format_record"))
            .alias("format_record")
        ),
    )
    report = verify_record(record, AUDITS, workers=1)
    assert _has(report, "answers", f"card {card}", f"row {stored}", "id does not match its content")
    assert _has(report, f"card {card} seat {seat} record {stored}", "signature does not verify")


def test_a_changed_score_is_named_by_rescoring_its_id_and_the_board(record: Path) -> None:
    card = CARDS[0]
    scores = _tables(record).read("scores", card)
    target = scores.filter(pl.col("result") != "void").row(0, named=True)
    _rewrite(
        record,
        "scores",
        card,
        lambda f: f.with_columns(
            pl.when(pl.col("id") == target["id"])
            .then(pl.col("crown") + 1)
            .otherwise(pl.col("crown"))
            .alias("crown")
        ),
    )
    report = verify_record(record, AUDITS, workers=1)
    assert _has(report, f"card {card}", f"score {target['id'][:12]}", "crown is")
    assert _has(report, "scores card", f"row {target['id']}", "id does not match")
    assert _has(report, "leaderboard", target["seat"], "crown is")


def test_parquet_statistics_that_hide_rows_from_a_filter_are_named(record: Path) -> None:
    """The rows decode as before, but a column's recorded minimum now says no row can match: DuckDB
    and polars skip the row group under a filter. Only the file's bytes can tell."""
    card = CARDS[0]
    path = _tables(record).path("scores", card)
    frame = pl.read_parquet(path)
    seat = frame["seat"].min()
    assert isinstance(seat, str)
    data = path.read_bytes()
    footer = data.rindex(seat.encode())  # the column chunk's min statistic, in the footer
    path.write_bytes(data[:footer] + b"z" * len(seat) + data[footer + len(seat) :])
    assert pl.read_parquet(path).equals(frame)  # every row as it was
    query = f"SELECT count(*) FROM read_parquet('{path}') WHERE seat = '{seat}'"
    assert duckdb.sql(query).fetchall() == [(0,)]  # …but a filter now finds nothing
    report = verify_record(record, AUDITS, workers=1)
    assert _has(report, f"warehouse/forecast/scores/card={card}/data.parquet", "not to the recorded")


def test_a_flipped_byte_inside_a_parquet_file_names_the_file(record: Path) -> None:
    card = CARDS[0]
    path = _tables(record).path("ranked_candidates", card)
    _flip(path)
    report = verify_record(record, AUDITS, workers=1)
    assert _has(
        report,
        "warehouse/forecast/ranked_candidates/card=2026-11-20-0500/data.parquet",
        "not to the recorded",
    )
    # Bytes that the ledger vouches for but no decoder can read are named too, never a crash.
    lines = _tables(record).path("answer_lines", card)
    _flip(lines, offset=8)  # the first page's header: no longer readable as Parquet
    write_recorded(lines, lines.read_bytes())
    report = verify_record(record, AUDITS, workers=1)
    assert _has(
        report,
        "warehouse/forecast/answer_lines/card=2026-11-20-0500/data.parquet",
        "cannot be read as Parquet",
    )


def test_a_seal_that_no_longer_matches_names_the_table_and_the_seal(record: Path) -> None:
    card = CARDS[1]
    seal_path = record / "seals" / "forecast" / f"card={card}.json"
    seal = json.loads(seal_path.read_text())
    seal["tables"]["sweeps"] = "0" * 64
    write_recorded(seal_path, json.dumps(seal).encode())
    report = verify_record(record, AUDITS, workers=1)
    assert report.problems == [
        line for line in report.problems if f"seals/forecast/card={card}.json" in line and "sweeps" in line
    ]
    assert _has(
        report, f"warehouse/forecast/sweeps/card={card}/data.parquet", "does not match the seal", "0" * 12
    )


def test_a_changed_verdict_with_a_fresh_id_is_caught_by_re_deriving_it(record: Path) -> None:
    card = CARDS[0]
    verdicts = _tables(record).read("ranked_candidates", card)
    target = verdicts.filter(pl.col("verdict") == "excluded").row(0, named=True)
    new_rule = "settles_soon" if target["rule"] != "settles_soon" else "real_money"
    _rewrite(
        record,
        "ranked_candidates",
        card,
        lambda f: with_ids(
            f.with_columns(
                pl.when(pl.col("market_id") == target["market_id"])
                .then(pl.lit(new_rule))
                .otherwise(pl.col("rule"))
                .alias("rule")
            )
        ),
    )
    report = verify_record(record, AUDITS, workers=1)
    assert not _has(report, "ranked_candidates", "id does not match")
    assert _has(
        report,
        f"ranked_candidates card {card}",
        f"market_id {target['market_id']}",
        f"rule is '{new_rule}' in the record, re-derived '{target['rule']}'",
    )
    assert _has(
        report, f"warehouse/forecast/ranked_candidates/card={card}/data.parquet", "does not match the seal"
    )


def test_verify_path_dispatches_and_refuses_anything_else(record_root: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=str(tmp_path)):
        verify_path(tmp_path, AUDITS)


# --------------------------------------------------------------------------------------------
# A site built from the record


def _build_site(record: Path, site: Path, folder: str = "") -> Path:
    """What the exporter publishes: pages, the downloads, and the signed manifest; ``folder``: where
    the forecasting board lives, as the site's ``site.json`` says ("": at the root, as a site from
    before the landing page had it, with no ``site.json``)."""
    tables = _tables(record)
    if folder:
        arenas = [{"arena": "forecast", "folder": folder, "label": "Forecasting"}]
        document = {
            "site": "COLOSSEUM-SITE-2",
            "built_at": "2026-12-31T00:00:00Z",
            "arenas": arenas,
            "held": [],
        }
        site.mkdir(parents=True)
        (site / "site.json").write_text(json.dumps(document))
        site_root, site = site, site / folder
    data = site / "data"
    data.mkdir(parents=True)
    for table in SITE_TABLES:
        frames = [tables.read(table, card) for card in CARDS if tables.exists(table, card)]
        pl.concat(frames, how="vertical").write_parquet(data / f"{table}.parquet")
    for table in ("leaderboard", "calibration"):
        tables.read(table).write_parquet(data / f"{table}.parquet")
    board = tables.read("leaderboard").to_dicts()
    (data / "leaderboard.json").write_text(json.dumps(board, indent=1))
    (site / "index.html").write_text("<!doctype html><title>Frontier Colosseum</title><h1>The board</h1>\n")
    (site / "cards").mkdir()
    (site / "cards" / f"{CARDS[0]}.html").write_text(f"<!doctype html><h1>card {CARDS[0]}</h1>\n")
    arena = KeyStore.for_data(record).signing_key("arena", dt.date.fromisoformat(CARDS[0][:10]))
    if folder:
        site = site_root
    sign_bundle(site, arena)
    return site


@pytest.fixture(scope="module")
def site_root(record_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_site(record_root, tmp_path_factory.mktemp("site") / "site")


@pytest.fixture
def site(site_root: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(site_root, tmp_path / "site"))


def test_a_clean_site_verifies(site_root: Path, record_root: Path) -> None:
    report = verify_path(site_root, AUDITS, workers=1)
    assert report.kind == "site" and report.ok(), report.problems[:10]
    checked = report.checked
    assert checked["receipts"] == 0 and any("receipts are not part of a site" in n for n in report.notes)
    assert checked["signatures"] == 2 * 13 * len(CARDS) and checked["cards"] == len(CARDS)
    assert checked["scores"] > 0 and checked["board_rows"] > 0
    assert checked["files_in_manifest"] == len([p for p in site_root.rglob("*") if p.is_file()]) - 2
    on_disk = sum(pl.read_parquet(p).height for p in (site_root / "data").glob("*.parquet"))
    assert checked["rows"] == on_disk


@pytest.mark.parametrize("name", ["index.html", "MANIFEST.json"])
def test_a_flipped_byte_in_a_site_names_the_file(site: Path, name: str) -> None:
    _flip(site / name)
    report = verify_site(site, AUDITS, workers=1)
    assert _has(report, name)


@pytest.mark.parametrize("folder", ["forecast", ""], ids=["in-its-folder", "at-the-root-of-an-older-site"])
def test_a_site_whose_board_does_not_follow_from_its_scores_names_the_field(
    record_root: Path, tmp_path: Path, folder: str
) -> None:
    """The forecasting board's downloads are found where the site's signed site.json places them, and
    named from the site's root; a site from before the landing page has them at data/."""
    site = _build_site(record_root, tmp_path / "site", folder)
    data = site / folder / "data"
    named = f"{folder}/data" if folder else "data"
    rows = json.loads((data / "leaderboard.json").read_text())
    rows[0]["crown"] += 5
    (data / "leaderboard.json").write_text(json.dumps(rows))
    changed = pl.read_parquet(data / "answers.parquet").with_columns(pl.lit("x").alias("model"))
    changed.write_parquet(data / "answers.parquet")
    report = verify_site(site, AUDITS, workers=2)
    # Bytes the signed manifest does not vouch for are named, and never decoded.
    assert _has(report, f"{named}/answers.parquet: SHA-256 does not match the signed manifest")
    assert _has(report, f"{named}/leaderboard.json: SHA-256 does not match the signed manifest")
    assert not _has(report, "crown is") and not _has(report, "id does not match")
    # Signed as they are (the arena published them so), every number is re-derived and named.
    for stale in (MANIFEST_NAME, ENVELOPE_NAME):
        (site / stale).unlink()
    sign_bundle(
        site, KeyStore.for_data(record_root).signing_key("arena", dt.date.fromisoformat(CARDS[0][:10]))
    )
    report = verify_site(site, AUDITS, workers=2)
    assert report.checked["cards"] == len(CARDS) and report.checked["board_rows"] > 0
    assert _has(report, f"{named}/leaderboard.json", rows[0]["entrant"], "crown is")
    assert _has(report, f"{named}/answers.parquet", "id does not match")
    assert _has(report, f"{named}/answers.parquet", "signature does not verify")
    if folder:  # and nothing named as if it were at the root
        assert not _has(report, " data/") and all(
            p.startswith(("forecast/", "MANIFEST")) for p in report.problems
        )


def test_a_board_builder_that_miscounts_is_caught_by_the_reference_group_by(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the board builder that verify's re-derivation shares (both call ``build_boards``) is
    still caught: verify also re-derives the point numbers with a plain group-by over the scores."""
    from colosseum_core.forecast.board import leaderboard

    honest = leaderboard._points

    def miscounting(*args: object, **kwargs: object) -> pl.DataFrame:
        points = honest(*args, **kwargs)
        return points.with_columns(pl.col("crown") + (pl.col("entrant_type") == "seat").cast(pl.Int64))

    monkeypatch.setattr(leaderboard, "_points", miscounting)
    tables = _tables(record)
    scores = pl.concat(
        [tables.read("scores", k) for k in tables.partitions("scores")], how="diagonal_relaxed"
    )
    boards = leaderboard.build_boards(scores)
    tables.write("leaderboard", boards.leaderboard)
    tables.write("calibration", boards.calibration)

    report = verify_record(record, AUDITS, workers=1)  # in-process: the miscounting builder is verify's too
    assert not _has(report, "leaderboard", "re-derived")  # the builder agrees with itself
    assert _has(report, "leaderboard CALIBRATION seat", "crown is", "the reference group-by over the scores")
    assert not _has(report, "leaderboard CALIBRATION gladiator")


def test_the_reference_group_by_gives_the_board_s_numbers_bit_for_bit() -> None:
    """On many random score tables, the builder's point numbers and the reference's are identical."""
    import random

    from colosseum_core.forecast.audit.board_reference import CHECKED_COLUMNS, reference_points
    from colosseum_core.forecast.board.leaderboard import leaderboard_points
    from colosseum_core.forecast.rules import COLOSSEUM_SCORING

    rng = random.Random(7)
    for _ in range(25):
        rows = []
        for i in range(rng.randint(1, 400)):
            result = rng.choice(["win", "loss", "void"])
            scored = result != "void"
            rows.append(
                {
                    "card": f"2026-11-{rng.randint(1, 28):02d}-0500",
                    "kind": rng.choice(["CALIBRATION", "FIGHT"]),
                    "seat": f"seat-{rng.randint(1, 5)}",
                    "gladiator": f"model-{rng.randint(1, 7)}",
                    "market_id": str(i),
                    "result": result,
                    "forfeit": rng.random() < 0.1 if scored else None,
                    "bad_formatting": rng.random() < 0.1 if scored else None,
                    "confidence": rng.randint(1, 10),
                    "brier_units": rng.randint(0, 400) if scored else None,
                    "edge_units": rng.randint(-(4 * 10**12), 4 * 10**12) if scored else None,
                    "crown": rng.randint(-10, 10) if scored else None,
                    "formula": COLOSSEUM_SCORING,
                }
            )
        scores = pl.DataFrame(rows)
        keys = ["kind", "entrant_type", "entrant"]
        built = leaderboard_points(scores).select(*keys, *CHECKED_COLUMNS).sort(keys)
        reference = reference_points(scores).sort(keys)
        assert built.equals(reference), (built, reference)
