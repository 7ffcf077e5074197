"""The static public board: pages, JSON and Parquet from a small hand-made record, the release rule,
determinism, missed cards, and the re-reading check catching hand-edited sites."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import shutil
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from colosseum_core.forecast.answering.answers import LINE_SCHEMA, SEAT_SCHEMA
from colosseum_core.forecast.answering.seats import Gladiator, Seat
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.board.leaderboard import build_boards
from colosseum_core.forecast.rules import (
    COLOSSEUM_READING,
    COLOSSEUM_SCORING,
    COLOSSEUM_SETTLEMENT,
    SEAL_ORDER,
    SLATE_LAWS,
)
from colosseum_core.forecast.sealing.seal_step import card_status_frame
from colosseum_core.forecast.settlement.resolution import REVIEW_SCHEMA, SETTLEMENT_SCHEMA
from colosseum_core.forecast.settlement.scoring import score_card
from colosseum_core.forecast.site import (
    ReleaseError,
    SiteReport,
    build_site,
    pages,
    release_problems,
    site_problems,
)
from colosseum_core.forecast.site.fields import format_field
from colosseum_core.record import RecordTables, row_id, with_ids
from colosseum_core.record.layout import Record as RecordLayout
from colosseum_core.site import page_parse
from colosseum_core.site.formats import (
    code_point_label,
    code_point_title,
    escape_html,
    has_hidden,
    hidden_in,
    label_code_point,
    plain,
)
from colosseum_core.site.page_parse import read_page
from colosseum_core.trust.keys import ARENA, SigningKey, public_keys_frame
from colosseum_core.trust.signing import sign_record, signatures_frame

BUILT_AT = "2026-12-30T00:00:00Z"
CARD_A, CARD_B, CARD_C = "2026-11-20-0500", "2026-11-20-1000", "2026-11-21-0500"
UTC = dt.UTC


def _gladiator(since: dt.date, model: str) -> Gladiator:
    return Gladiator(
        since=since, protocol="openai", model=model, base_url="https://x.example", key_env="X_KEY"
    )


SEATS = (
    Seat(
        "alpha-flagship",
        "Alpha",
        "flagship",
        dt.date(2026, 1, 1),
        "house-hash",
        (_gladiator(dt.date(2026, 1, 1), "alpha-1"), _gladiator(dt.date(2026, 6, 1), "alpha-2")),
    ),
    Seat(
        "beta-small",
        "Beta",
        "small",
        dt.date(2026, 1, 1),
        "house-coin",
        (_gladiator(dt.date(2026, 1, 1), "beta-1"),),
    ),
    # Takes its seat after cards A and B: only card C needs its answer.
    Seat(
        "gamma-flagship",
        "Gamma",
        "flagship",
        dt.date(2026, 11, 21),
        "house-contrarian",
        (_gladiator(dt.date(2026, 11, 21), "gamma-1"),),
    ),
)
ALPHA, BETA, GAMMA = (s.id for s in SEATS)


# --- a small record, written table by table the way the arena writes it ---------------------------------


def _key(name: str, valid_from: dt.date) -> SigningKey:
    return SigningKey.from_seed(name, hashlib.sha256(name.encode()).digest(), valid_from)


def _packet(card: str, kind: str, questions: list[dict[str, Any]], complete: bool = True) -> pl.DataFrame:
    text = f"FRONTIER COLOSSEUM · CARD {card}\n\n" + "".join(
        f"{q['label']}\nQuestion: {q['question']}\n"
        + (f"Resolution rules:\n{q['description']}\n" if q.get("description") else "")
        + "\n"
        for q in questions
    )
    seal = dt.datetime.fromisoformat(card[:10] + "T10:00:00+00:00")
    return with_ids(
        pl.DataFrame(
            [
                {
                    "card": card,
                    "slot": "DAWN",
                    "seal": seal,
                    "kind": kind,
                    "questions": len(questions),
                    "total_doubt_bits": sum(q["doubt_bits"] for q in questions),
                    "swept": 40,
                    "ranked": 12,
                    "sweep_complete": complete,
                    "sweep_reason": None if complete else "slice 3 failed: HTTP 500 (receipt abc)",
                    "exchange": "simulated",
                    "exchange_url": "http://127.0.0.1:8765",
                    "rules": SLATE_LAWS,
                    "packet_format": "COLOSSEUM-PACKET-1",
                    "packet_id": hashlib.sha256(text.encode()).hexdigest(),
                    "packet_text": text,
                }
            ],
            schema_overrides={"seal": pl.Datetime("us", "UTC"), "sweep_reason": pl.String()},
        )
    )


def _sweeps(card: str, complete: bool = True) -> pl.DataFrame:
    seal = dt.datetime.fromisoformat(card[:10] + "T10:00:00+00:00")
    return with_ids(
        pl.DataFrame(
            [
                {
                    "card": card,
                    "slot": "DAWN",
                    "seal": seal,
                    "window_start": seal,
                    "window_end": seal + dt.timedelta(hours=102),
                    "exchange": "simulated",
                    "complete": complete,
                    "reason": None if complete else "slice 3 failed",
                    "pages": 4,
                    "requests": 5,
                    "markets": 40,
                    "rules": SLATE_LAWS,
                }
            ],
            schema_overrides={
                "seal": pl.Datetime("us", "UTC"),
                "window_start": pl.Datetime("us", "UTC"),
                "window_end": pl.Datetime("us", "UTC"),
                "reason": pl.String(),
            },
        )
    )


def _questions(card: str, kind: str, specs: list[tuple[str, float, str]]) -> list[dict[str, Any]]:
    return [
        {
            "card": card,
            "kind": kind,
            "label": f"M{i:02d}",
            "position": i,
            "place": i,
            "rank": i,
            "market_id": market,
            "event_id": f"e{market}",
            "price": price,
            "price_source": "midpoint",
            "doubt_bits": 0.9 + i / 100,
            "interest": 12345.678,
            "question": question,
            "end_date": f"{card[:10]}T20:00:00Z",
            "packet_id": "0" * 64,
            "rules": SLATE_LAWS,
        }
        for i, (market, price, question) in enumerate(specs, start=1)
    ]


# Ranked but cut, after the card's places: more than the card page shows around the cut.
CUT_ROWS = 24


def _ranked(card: str, questions: list[dict[str, Any]], cut: int = CUT_ROWS) -> pl.DataFrame:
    rows = [
        {
            "card": card,
            "market_id": q["market_id"],
            "event_id": q["event_id"],
            "question": q["question"],
            "verdict": "selected",
            "rule": None,
            "value": f"doubt {q['doubt_bits']:.3f} bits",
            "rank": q["rank"],
            "place": q["place"],
            "doubt_bits": q["doubt_bits"],
            "price": q["price"],
            "price_source": "midpoint",
            "interest": q["interest"],
            "rules": SLATE_LAWS,
        }
        for q in questions
    ]
    rows += [
        {
            "card": card,
            "market_id": f"8{card[-4:]}{n:05d}",
            "event_id": f"e8{n}",
            "question": f"Cut question {n} & <friends>",
            "verdict": "excluded",
            "rule": "the_cut",
            "value": f"place {len(questions) + 1 + n}",
            "rank": len(questions) + 1 + n,
            "place": len(questions) + 1 + n,
            "doubt_bits": 0.5 - n / 100_000,
            "price": 0.1234567,
            "price_source": "last_trade",
            "interest": 5000.0 + n,
            "rules": SLATE_LAWS,
        }
        for n in range(cut)
    ]
    rows += [
        {
            "card": card,
            "market_id": f"9{card[-4:]}{n}",
            "event_id": "e9",
            "question": f"Excluded question {n}",
            "verdict": "excluded",
            "rule": rule,
            "value": value,
            "rank": None,
            "place": None,
            "doubt_bits": None,
            "price": None,
            "price_source": None,
            "interest": 12.0,
            "rules": SLATE_LAWS,
        }
        for n, (rule, value) in enumerate([("gradeable", "outcomes [A, B]"), ("real_money", "interest $12")])
    ]
    return with_ids(pl.DataFrame(rows, schema_overrides={"rule": pl.String(), "price_source": pl.String()}))


Edit = Callable[[dict[str, Any]], None]


def _answers(
    card: str,
    kind: str,
    house: bool,
    statuses: dict[str, str],
    settings: dict[str, dict[str, Any]],
    edit: Edit | None = None,
) -> pl.DataFrame:
    rows = []
    for seat, status in statuses.items():
        record = {
            "answered": 2,
            "bad_formatting": seat == BETA,
            "steps_used": {"prose_lines": 1},
            "notes": [],
        }
        rows.append(
            {
                "card": card,
                "card_date": card[:10],
                "seat": seat,
                "protocol": "openai",
                "model": f"{seat.split('-')[0]}-1",
                "house": house,
                "kind": kind,
                "packet_id": "0" * 64,
                "status": status,
                "attempts": 1,
                "receipt_ids": ["r" * 64],
                "settings": json.dumps(settings.get(seat, {"temperature": 0.0, "seed": 0}), sort_keys=True),
                "error": None if status == "answered" else "timed out after 300 s",
                "bad_formatting": seat == BETA,
                "answered": 2,
                "recovered": 1 if seat == BETA else 0,
                "unbound": 0,
                "unmatched": 0,
                "format_record": json.dumps(record, sort_keys=True),
                "binding_answers": [],
                "rules": COLOSSEUM_READING,
            }
        )
        if edit is not None:
            edit(rows[-1])
    return with_ids(pl.DataFrame(rows, schema=SEAT_SCHEMA))


def _lines(
    card: str,
    questions: list[dict[str, Any]],
    calls: dict[str, list[tuple[Any, ...]]],
    edit: Edit | None = None,
) -> pl.DataFrame:
    rows = []
    for seat, answers in calls.items():
        for q, answer in zip(questions, answers, strict=True):
            call, confidence, step = (*answer, None)[:3] if answer else (None, None, None)
            rows.append(
                {
                    "card": card,
                    "seat": seat,
                    "label": q["label"],
                    "market_id": q["market_id"],
                    "call": call,
                    "confidence": confidence,
                    "status": ("recovered" if step else "answered") if call else "unbound",
                    "binding": call is not None,
                    "step": step,
                    "reason": None if call else "seat no_response",
                    "rules": COLOSSEUM_READING,
                }
            )
            if edit is not None:
                edit(rows[-1])
    return with_ids(pl.DataFrame(rows, schema=LINE_SCHEMA))


def _settlements(card: str, questions: list[dict[str, Any]], outcomes: list[int | None]) -> pl.DataFrame:
    rows = [
        {
            "card": card,
            "label": q["label"],
            "market_id": q["market_id"],
            "status": "settled" if o is not None else "void",
            "outcome": o,
            "winner": {1: "Yes", 0: "No"}.get(o) if o is not None else None,
            "outcome_prices": '["1", "0"]' if o == 1 else '["0", "1"]' if o == 0 else '["0.5", "0.5"]',
            "uma_resolution_status": "resolved",
            "receipt_id": "c" * 64,
            "observed_at": "2026-12-01T00:00:00Z",
            "rules": COLOSSEUM_SETTLEMENT,
        }
        for q, o in zip(questions, outcomes, strict=True)
    ]
    return with_ids(pl.DataFrame(rows, schema=SETTLEMENT_SCHEMA))


def _write_card(
    tables: RecordTables,
    card: str,
    kind: str,
    specs: list[tuple[str, float, str]],
    *,
    complete: bool = True,
    descriptions: Sequence[str | None] = (),
) -> list[dict[str, Any]]:
    questions = _questions(card, kind, specs)
    for question, description in zip(questions, descriptions, strict=False):
        question["description"] = description
    tables.write("packet", _packet(card, kind, questions, complete), card)
    tables.write("sweeps", _sweeps(card, complete), card)
    tables.write("card_questions", with_ids(pl.DataFrame(questions)), card)
    tables.write("ranked_candidates", _ranked(card, questions), card)
    return questions


def _write_answers(
    tables: RecordTables,
    card: str,
    kind: str,
    questions: list[dict[str, Any]],
    statuses: dict[str, str],
    calls: dict[str, list[tuple[Any, ...]]],
    *,
    house: bool = False,
    settings: dict[str, dict[str, Any]] | None = None,
    edit_answer: Edit | None = None,
    edit_line: Edit | None = None,
) -> None:
    answers = _answers(card, kind, house, statuses, settings or {}, edit_answer)
    arena = _key(ARENA, dt.date(2026, 1, 1))
    keys = {seat: _key(seat, dt.date(2026, 1, 1)) for seat in statuses}
    signed = [sign_record(row, keys[row["seat"]], arena) for row in answers.iter_rows(named=True)]
    tables.write("answers", answers, card)
    tables.write("answer_lines", _lines(card, questions, calls, edit_line), card)
    tables.write("answer_signatures", signatures_frame(signed), card)
    tables.write("public_keys", public_keys_frame([arena.record, *(k.record for k in keys.values())]), card)


def _score(tables: RecordTables, card: str, outcomes: list[int | None]) -> None:
    questions = tables.read("card_questions", card)
    settlements = _settlements(card, list(questions.iter_rows(named=True)), outcomes)
    tables.write("settlements", settlements, card)
    tables.write("settlement_reviews", with_ids(pl.DataFrame(schema=REVIEW_SCHEMA)), card)
    scores = score_card(
        tables.read("answer_lines", card), tables.read("answers", card), questions, settlements
    )
    tables.write("scores", scores, card)


def _rebuild_boards(tables: RecordTables) -> None:
    scores = pl.concat([tables.read("scores", c) for c in tables.partitions("scores")])
    boards = build_boards(scores)
    tables.write("leaderboard", with_ids(boards.leaderboard))
    tables.write("calibration", with_ids(boards.calibration))


def make_record(root: Path) -> RecordTables:
    """Card A (FIGHT) and card B (CALIBRATION) answered, settled and scored; card C sealed, awaiting."""
    tables = RecordLayout(root).tables(FORECAST)
    qa = _write_card(
        tables,
        CARD_A,
        "FIGHT",
        [
            ("101", 0.515, 'Will <b>"Fulham"</b> win & score?'),
            ("102", 0.25, "Will it rain in Paris?"),
            ("103", 0.5, "Will the match be void?"),
        ],
    )
    _write_answers(
        tables,
        CARD_A,
        "FIGHT",
        qa,
        {ALPHA: "answered", BETA: "answered"},
        {ALPHA: [("YES", 7), ("NO", 3), ("YES", 1)], BETA: [("NO", 2), ("YES", 9, "prose_lines"), ()]},
        settings={BETA: {"temperature": 0.0, "top_p": 1.0, "seed": "OMITTED"}},
    )
    _score(tables, CARD_A, [1, 0, None])
    qb = _write_card(
        tables, CARD_B, "CALIBRATION", [("201", 0.6, "Will BTC close up?"), ("202", 0.4, "Snow?")]
    )
    _write_answers(
        tables,
        CARD_B,
        "CALIBRATION",
        qb,
        {ALPHA: "answered", BETA: "no_response"},
        {ALPHA: [("YES", 10), ("NO", 5)], BETA: [(), ()]},
        house=True,
    )
    _score(tables, CARD_B, [1, 1])
    _rebuild_boards(tables)
    _write_card(tables, CARD_C, "CALIBRATION", [("301", 0.5, "Will C happen?")], complete=False)
    return tables


@pytest.fixture(scope="module")
def record_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("board") / "data"
    make_record(root)
    return root


@pytest.fixture
def tables(record_root: Path, tmp_path: Path) -> RecordTables:
    """A private copy of the record, free to edit."""
    shutil.copytree(record_root, tmp_path / "data")
    return RecordLayout(tmp_path / "data").tables(FORECAST)


@pytest.fixture(scope="module")
def built(record_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SiteReport]:
    out = tmp_path_factory.mktemp("site") / "site"
    report = build_site(RecordLayout(record_root).tables(FORECAST), out, seats=SEATS, built_at=BUILT_AT)
    return out, report


@pytest.fixture
def site(built: tuple[Path, SiteReport], tmp_path: Path) -> Path:
    """A private copy of the built site, free to edit by hand."""
    return Path(shutil.copytree(built[0], tmp_path / "site"))


# --- reading pages back ----------------------------------------------------------------------------------


class Cells(HTMLParser):
    """Marked cells (table, id, field, text) and the section each sits in.

    A single marked element names its table, id and field; in a compact table (``<table data-table>``)
    each ``<th data-field>`` names its column's field and each ``<tr data-id>`` its row, and a cell's
    own ``data-id``/``data-field`` come first. ``rows`` lists the (table, id) of every compact row.
    """

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, tuple[str, str, str] | None, list[str]]] = []
        self.cells: list[dict[str, Any]] = []
        self.rows: list[tuple[str, str]] = []
        self.section: list[str | None] = []
        self.tables: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section":
            self.section.append(a.get("id"))
        mark = None
        if tag == "table":
            self.tables.append(
                {"table": a.get("data-table"), "fields": [], "row": None, "col": 0, "head": False}
            )
        elif "data-table" in a:
            mark = (str(a["data-table"]), str(a["data-id"]), str(a["data-field"]))
        compact = self.tables[-1] if self.tables and self.tables[-1]["table"] else None
        if compact is not None and tag != "table":
            if tag in ("thead", "tbody"):
                compact["head"] = tag == "thead"
            elif tag == "tr":
                compact["row"], compact["col"] = a.get("data-id"), 0
                if compact["row"] and not compact["head"]:
                    self.rows.append((compact["table"], compact["row"]))
            elif tag in ("td", "th") and compact["head"]:
                compact["fields"].append(None if mark else a.get("data-field"))
            elif tag in ("td", "th"):
                column = compact["col"]
                compact["col"] += 1
                fields = compact["fields"]
                field = a.get("data-field") or (fields[column] if column < len(fields) else None)
                row = a.get("data-id") or compact["row"]
                if mark is None and field and row:
                    mark = (compact["table"], row, field)
        if tag not in ("img", "meta", "link", "br", "wbr"):
            self.open.append((tag, mark, []))

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            name, mark, text = self.open.pop()
            if mark is not None:
                self.cells.append(
                    {
                        "table": mark[0],
                        "id": mark[1],
                        "field": mark[2],
                        "text": "".join(text),
                        "section": next((s for s in reversed(self.section) if s), None),
                    }
                )
            if name == "section" and self.section:
                self.section.pop()
            if name == "table" and self.tables:
                self.tables.pop()
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        for _, mark, text in self.open:
            if mark is not None:
                text.append(data)


def read_cells(path: Path) -> Cells:
    parser = Cells()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def cells(path: Path) -> list[dict[str, Any]]:
    return read_cells(path).cells


def rows_by_id(tables: RecordTables, table: str) -> dict[str, dict[str, Any]]:
    if table in ("leaderboard", "calibration"):
        return {r["id"]: r for r in tables.read(table).iter_rows(named=True)}
    return {r["id"]: r for c in tables.partitions(table) for r in tables.read(table, c).iter_rows(named=True)}


def edit(path: Path, change: Callable[[str], str]) -> None:
    before = path.read_text(encoding="utf-8")
    after = change(before)
    assert after != before, f"the edit of {path.name} changed nothing"
    path.write_text(after, encoding="utf-8")


# --- the build -------------------------------------------------------------------------------------------


def test_the_site_holds_pages_json_and_parquet(built: tuple[Path, SiteReport], record_root: Path) -> None:
    out, report = built
    assert report.cards == 3 and report.released == 2 and report.awaiting_answers == [CARD_C]
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert report.files == len(files) and report.bytes == sum((out / f).stat().st_size for f in files)
    for name in (
        "index.html",
        "style.css",
        "seats.html",
        "keys.html",
        "rules.html",
        "calibration.html",
        "downloads.html",
        "cards/index.html",
        *(f"cards/{c}.html" for c in (CARD_A, CARD_B, CARD_C)),
        *(f"cards/{c}/ranked.html" for c in (CARD_A, CARD_B, CARD_C)),
        *(f"data/cards/{c}.json" for c in (CARD_A, CARD_B, CARD_C)),
        *(f"data/ranked/{c}.parquet" for c in (CARD_A, CARD_B, CARD_C)),
        *(f"data/scores/{c}.parquet" for c in (CARD_A, CARD_B)),
        "data/leaderboard.json",
        "data/calibration.json",
        "data/seats.json",
        "data/rules.json",
        "data/site.json",
        "plots/standing-fight.svg",
        "plots/standing-calibration.svg",
        *(f"plots/calibration-{k}-{s.id}.svg" for k in ("fight", "calibration") for s in SEATS),
    ):
        assert name in files, name
    assert not {"MANIFEST.json", "MANIFEST.json.dsse", "keys/arena.pem"} & set(files)
    assert f"data/scores/{CARD_C}.parquet" not in files  # awaiting answers: no scores, not even empty
    assert site_problems(out, RecordLayout(record_root).tables(FORECAST), SEATS) == []


def test_every_marked_number_is_the_record_value(built: tuple[Path, SiteReport], record_root: Path) -> None:
    out, _ = built
    tables = RecordLayout(record_root).tables(FORECAST)
    board = rows_by_id(tables, "leaderboard")
    index = cells(out / "index.html")
    sharp = [c for c in index if c["table"] == "leaderboard" and c["field"] == "sharp"]
    assert len(sharp) == len(board)  # every board row, by seat and by gladiator, shows its SHARP
    for c in sharp:
        assert c["text"] == f"{board[c['id']]['sharp']:.1f}"
    for c in (c for c in index if c["table"] == "leaderboard" and c["field"] in ("crown", "record")):
        value = board[c["id"]][c["field"]]
        assert c["text"] == ("0" if value == 0 else f"{value:+d}")
    fields = {c["field"] for c in index if c["table"] == "leaderboard"}
    assert {"sharp_low", "sharp_high", "edge", "edge_low", "edge_high", "n", "early", "forfeits"} <= fields
    assert {
        "bad_formatting",
        "voids",
        "bootstrap_seed",
        "bootstrap_generator",
        "bootstrap_replicates",
    } <= fields
    early = [c for c in index if c["field"] == "early"]
    assert early and all(c["text"] == "EARLY" for c in early)  # every entrant here has n < 30
    # Card A: every answer and every score of the card, each one the record's.
    page = cells(out / "cards" / f"{CARD_A}.html")
    lines = rows_by_id(tables, "answer_lines")
    shown = {c["id"] for c in page if c["table"] == "answer_lines"}
    assert shown == {i for i, r in lines.items() if r["card"] == CARD_A}
    scores = {i for i, r in rows_by_id(tables, "scores").items() if r["card"] == CARD_A}
    assert {c["id"] for c in page if c["table"] == "scores"} == scores
    # The ranked list around the cut: the card's three places and the 20 best-ranked cut questions.
    ranked = {i: r for i, r in rows_by_id(tables, "ranked_candidates").items() if r["card"] == CARD_A}
    around = {i for i, r in ranked.items() if r["rank"] is not None and r["rank"] <= 3 + 20}
    assert {c["id"] for c in page if c["table"] == "ranked_candidates"} == around
    counts = {c["id"]: c["text"] for c in page if c["table"] == "verdict_summary" and c["field"] == "count"}
    assert counts == {
        "selected": "3",
        "excluded/the_cut": str(CUT_ROWS),
        **dict.fromkeys(("excluded/gradeable", "excluded/real_money"), "1"),
    }
    # The full list on its own page: every verdict, each value the record's.
    full = cells(out / "cards" / CARD_A / "ranked.html")
    assert {c["id"] for c in full} == set(ranked) and len(ranked) == 3 + CUT_ROWS + 2
    for c in full:
        assert c["text"] == format_field("ranked_candidates", c["field"], ranked[c["id"]])
    omitted = [c for c in page if c["field"] == "settings.seed" and c["text"] == "OMITTED"]
    assert len(omitted) == 1
    assert any(c["field"] == "step" and c["text"] == "prose_lines" for c in page)
    assert any(
        c["table"] == "answers" and c["field"] == "bad_formatting" and c["text"] == "BAD FORMATTING"
        for c in page
    )
    void = [c for c in page if c["table"] == "settlements" and c["field"] == "status" and c["text"] == "void"]
    assert len(void) == 1
    for c in page:
        table = c["table"]
        row = rows_by_id(tables, table)[c["id"]] if table in ("answers", "scores", "card_questions") else None
        if row is not None:
            assert c["text"] == format_field(table, c["field"], row)


def test_the_packet_is_verbatim_and_text_is_escaped(
    built: tuple[Path, SiteReport], record_root: Path
) -> None:
    out, _ = built
    packet = RecordLayout(record_root).tables(FORECAST).read("packet", CARD_A).row(0, named=True)
    html = (out / "cards" / f"{CARD_A}.html").read_text(encoding="utf-8")
    assert "<b>" not in html and "&lt;b&gt;&quot;Fulham&quot;&lt;/b&gt; win &amp; score?" in html
    [pre] = [c for c in cells(out / "cards" / f"{CARD_A}.html") if c["field"] == "packet_text"]
    assert pre["text"] == "\n" + packet["packet_text"]  # the newline a browser drops after <pre>
    assert packet["packet_id"] in html


def test_fight_and_calibration_are_separate_sections(
    built: tuple[Path, SiteReport], record_root: Path
) -> None:
    out, _ = built
    board = rows_by_id(RecordLayout(record_root).tables(FORECAST), "leaderboard")
    index = [c for c in cells(out / "index.html") if c["table"] == "leaderboard"]
    by_section: dict[str, set[str]] = {}
    for c in index:
        by_section.setdefault(c["section"], set()).add(board[c["id"]]["kind"])
    assert by_section == {"fight": {"FIGHT"}, "calibration": {"CALIBRATION"}}
    fight_n = {board[c["id"]]["n"] for c in index if c["section"] == "fight"}
    assert fight_n == {2}  # card A's two settled questions; the void is counted apart, never scored


def test_an_empty_fight_board_says_so(tables: RecordTables, tmp_path: Path) -> None:
    for table in ("packet", "sweeps", "card_questions", "ranked_candidates", "answers", "answer_lines"):
        shutil.rmtree(tables.path(table, CARD_A).parent)
    for table in ("answer_signatures", "public_keys", "settlements", "settlement_reviews", "scores"):
        shutil.rmtree(tables.path(table, CARD_A).parent)
    _rebuild_boards(tables)
    build_site(tables, tmp_path / "out", seats=SEATS, built_at=BUILT_AT)
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    fight = re.search(r'<section id="fight".*?</section>', html, re.S)
    assert fight is not None and "no FIGHT records yet" in fight.group(0)
    assert "data-table" not in fight.group(0)
    assert site_problems(tmp_path / "out", tables, SEATS) == []


def test_an_awaiting_card_shows_no_answers_anywhere(built: tuple[Path, SiteReport]) -> None:
    out, _ = built
    page = (out / "cards" / f"{CARD_C}.html").read_text(encoding="utf-8")
    assert "awaiting answers" in page.lower()
    marked = {c["table"] for c in cells(out / "cards" / f"{CARD_C}.html")}
    assert marked.isdisjoint({"answers", "answer_lines", "answer_signatures", "scores"})
    assert {"packet", "card_questions", "ranked_candidates", "sweeps"} <= marked
    assert "partial" in page and "slice 3 failed" in page
    document = json.loads((out / "data" / "cards" / f"{CARD_C}.json").read_text())
    assert document["released"] is False and document["status"] == "awaiting answers"
    assert set(document["tables"]).isdisjoint({"answers", "answer_lines", "answer_signatures", "scores"})
    site = json.loads((out / "data" / "site.json").read_text())
    assert site["awaiting_answers"] == [CARD_C] and site["released"] == 2 and site["built_at"] == BUILT_AT


def test_downloads_keep_the_record_rows_and_ids(built: tuple[Path, SiteReport], record_root: Path) -> None:
    out, _ = built
    tables = RecordLayout(record_root).tables(FORECAST)
    for table in ("answers", "answer_lines", "answer_signatures", "scores"):
        frame = pl.read_parquet(out / "data" / f"{table}.parquet")
        record = pl.concat([tables.read(table, c) for c in (CARD_A, CARD_B)])
        assert frame.equals(record), table
    answers = pl.read_parquet(out / "data" / "answers.parquet")
    for row in answers.iter_rows(named=True):  # an auditor's verify: ids recompute from the file alone
        assert row_id(row) == row["id"]
    packets = pl.read_parquet(out / "data" / "packet.parquet")
    assert packets["card"].to_list() == [CARD_A, CARD_B, CARD_C]
    keys = pl.read_parquet(out / "data" / "public_keys.parquet")
    assert keys["id"].is_unique().all() and set(keys["name"]) == {ARENA, ALPHA, BETA}
    assert pl.read_parquet(out / "data" / "leaderboard.parquet").equals(tables.read("leaderboard"))
    board = json.loads((out / "data" / "leaderboard.json").read_text())
    assert {r["id"] for r in board["rows"]} == set(tables.read("leaderboard")["id"])
    card = json.loads((out / "data" / "cards" / f"{CARD_A}.json").read_text())
    lines = card["tables"]["answer_lines"]
    assert lines["columns"] == tables.read("answer_lines", CARD_A).columns and len(lines["rows"]) == 6
    assert [dict(zip(lines["columns"], r, strict=True)) for r in lines["rows"]] == [
        plain(r) for r in tables.read("answer_lines", CARD_A).iter_rows(named=True)
    ]
    # The ranked list around the cut, not all of it; scores not at all: both are downloads of their own.
    assert len(card["tables"]["ranked_candidates"]["rows"]) == 3 + 20 and "scores" not in card["tables"]
    assert card["elsewhere"]["ranked_candidates"]["rows"] == 3 + CUT_ROWS + 2
    assert card["elsewhere"]["scores"] == {
        "download": f"data/scores/{CARD_A}.parquet",
        "here": "none",
        "rows": tables.read("scores", CARD_A).height,
    }
    for table, directory in (("ranked_candidates", "ranked"), ("scores", "scores")):
        assert (out / "data" / directory / f"{CARD_A}.parquet").read_bytes() == tables.path(
            table, CARD_A
        ).read_bytes()


def test_pages_are_accessible_and_self_contained(built: tuple[Path, SiteReport]) -> None:
    out, _ = built
    for page in out.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert html.startswith("<!DOCTYPE html>") and '<html lang="en">' in html and "<title>" in html
        assert "<script" not in html
        for ref in re.findall(r'(?:href|src)="([^"]*)"', html):
            assert not re.match(r"^(?:[a-z]+:|//|/)", ref), (page.name, ref)
        for img in re.findall(r"<img [^>]*>", html):
            assert re.search(r'alt="[^"]+"', img), img
    seats = (out / "seats.html").read_text(encoding="utf-8")
    assert "2026-06-01" in seats and "alpha-2" in seats and "gamma-flagship" in seats
    rules = (out / "rules.html").read_text(encoding="utf-8")
    assert all(
        v in rules
        for v in (SLATE_LAWS, COLOSSEUM_SCORING, COLOSSEUM_READING, "colosseum_core/forecast/rules.py")
    )
    keys = (out / "keys.html").read_text(encoding="utf-8")
    assert _key(ALPHA, dt.date(2026, 1, 1)).record.key_id in keys


def test_the_svgs_are_well_formed(built: tuple[Path, SiteReport]) -> None:
    out, _ = built
    plots = sorted((out / "plots").glob("*.svg"))
    assert len(plots) == 2 + 2 * len(SEATS)
    for plot in plots:
        root = ET.fromstring(plot.read_bytes())
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.get("width") and root.get("height") and root.get("viewBox")
    ns = {"s": "http://www.w3.org/2000/svg"}
    fight = ET.fromstring((out / "plots" / "standing-fight.svg").read_bytes())
    panels = fight.findall("s:g", ns)
    assert len(panels) == 2  # a panel per seat that played FIGHT
    # Each panel draws its own line and the other seat's, in grey behind it.
    assert all(len(panel.findall("s:polyline", ns)) == 2 for panel in panels)
    alpha = ET.fromstring((out / "plots" / f"calibration-calibration-{ALPHA}.svg").read_bytes())
    assert len(alpha.findall("s:circle", ns)) == 2  # confidences 10 and 5 on card B
    empty = (out / "plots" / f"calibration-fight-{GAMMA}.svg").read_text()
    assert "no FIGHT answers yet" in empty


def test_two_builds_are_byte_identical(record_root: Path, tmp_path: Path) -> None:
    tables = RecordLayout(record_root).tables(FORECAST)
    first = build_site(tables, tmp_path / "one", seats=SEATS, built_at=BUILT_AT)
    (tmp_path / "two").mkdir()  # an existing empty directory is fine
    second = build_site(tables, tmp_path / "two", seats=SEATS, built_at=BUILT_AT)
    assert first == second

    def digest(root: Path) -> dict[str, str]:
        return {
            p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }

    assert digest(tmp_path / "one") == digest(tmp_path / "two")


def test_a_non_empty_output_is_refused(record_root: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "old.html").write_text("old")
    with pytest.raises(FileExistsError, match="not an empty directory"):
        build_site(
            RecordLayout(record_root).tables(FORECAST), tmp_path / "out", seats=SEATS, built_at=BUILT_AT
        )
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["old.html"]


# --- the release rule ------------------------------------------------------------------------------------


def _set_status(tables: RecordTables, card: str, seat: str, status: str | None) -> None:
    answers = tables.read("answers", card)
    changed = answers.with_columns(
        status=pl.when(pl.col("seat") == seat).then(pl.lit(status, pl.String)).otherwise(pl.col("status"))
    )
    tables.write("answers", with_ids(changed), card)


def test_a_pending_seat_blocks_the_build_before_anything_is_written(
    tables: RecordTables, tmp_path: Path
) -> None:
    _set_status(tables, CARD_A, BETA, "pending")
    assert release_problems(tables, SEATS) == [
        f"card {CARD_A}: seat {BETA} has neither answered nor forfeited"
    ]
    with pytest.raises(ReleaseError) as refused:
        build_site(tables, tmp_path / "out", seats=SEATS, built_at=BUILT_AT)
    assert CARD_A in str(refused.value) and BETA in str(refused.value)
    assert refused.value.problems == release_problems(tables, SEATS)
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out*"))


def test_missing_seats_are_named_card_by_card(tables: RecordTables, tmp_path: Path) -> None:
    # Card C (2026-11-21) needs all three seats; only alpha answered. Card B: beta's status is null.
    questions = list(tables.read("card_questions", CARD_C).iter_rows(named=True))
    _write_answers(tables, CARD_C, "CALIBRATION", questions, {ALPHA: "answered"}, {ALPHA: [("YES", 3)]})
    _set_status(tables, CARD_B, BETA, None)
    problems = release_problems(tables, SEATS)
    assert problems == [
        f"card {CARD_B}: seat {BETA} has neither answered nor forfeited",
        f"card {CARD_C}: seats {BETA}, {GAMMA} have neither answered nor forfeited",
    ]
    with pytest.raises(ReleaseError) as refused:
        build_site(tables, tmp_path / "out", seats=SEATS, built_at=BUILT_AT)
    assert all(p in str(refused.value) for p in problems)


def test_forfeits_and_silence_release_a_card(tables: RecordTables, tmp_path: Path) -> None:
    questions = list(tables.read("card_questions", CARD_C).iter_rows(named=True))
    _write_answers(
        tables,
        CARD_C,
        "CALIBRATION",
        questions,
        {ALPHA: "answered", BETA: "refused", GAMMA: "forfeited"},
        {ALPHA: [("YES", 3)], BETA: [()], GAMMA: [()]},
    )
    assert release_problems(tables, SEATS) == []
    report = build_site(tables, tmp_path / "out", seats=SEATS, built_at=BUILT_AT)
    assert report.released == 3 and report.awaiting_answers == []
    assert site_problems(tmp_path / "out", tables, SEATS) == []


# --- the re-reading check --------------------------------------------------------------------------------


@pytest.fixture
def pending_c(tables: RecordTables) -> RecordTables:
    """Card C's answers recorded after the build, with gamma still pending: not releasable."""
    questions = list(tables.read("card_questions", CARD_C).iter_rows(named=True))
    _write_answers(
        tables,
        CARD_C,
        "CALIBRATION",
        questions,
        {ALPHA: "answered", BETA: "answered", GAMMA: "pending"},
        {ALPHA: [("YES", 3)], BETA: [("NO", 8)], GAMMA: [()]},
    )
    return tables


def _line_cell(row: dict[str, Any]) -> str:
    return f'<td data-table="answer_lines" data-id="{row["id"]}" data-field="call">{row["call"]}</td>'


def test_an_unreleased_answer_added_to_a_page_is_early(site: Path, pending_c: RecordTables) -> None:
    # The built site published none of it (its only news is gamma's new public key).
    assert not [p for p in site_problems(site, pending_c, SEATS) if "early" in p]
    line = pending_c.read("answer_lines", CARD_C).row(0, named=True)
    page = site / "cards" / f"{CARD_C}.html"
    edit(page, lambda html: html.replace("</main>", f"<table><tr>{_line_cell(line)}</tr></table></main>"))
    problems = site_problems(site, pending_c, SEATS)
    assert f"card {CARD_C}: answer published early (cards/{CARD_C}.html)" in problems


def test_a_released_answer_copied_into_an_awaiting_page_is_early(site: Path, tables: RecordTables) -> None:
    line = tables.read("answer_lines", CARD_A).row(0, named=True)
    page = site / "cards" / f"{CARD_C}.html"
    edit(page, lambda html: html.replace("</main>", f"<table><tr>{_line_cell(line)}</tr></table></main>"))
    problems = site_problems(site, tables, SEATS)
    assert f"card {CARD_C}: answer published early (cards/{CARD_C}.html)" in problems
    assert any(f"belongs to card {CARD_A}, not {CARD_C}" in p for p in problems)


def test_an_unreleased_answer_in_a_download_is_early(site: Path, pending_c: RecordTables) -> None:
    download = site / "data" / "answer_lines.parquet"
    published = pl.read_parquet(download)
    pl.concat([published, pending_c.read("answer_lines", CARD_C)]).write_parquet(download)
    problems = site_problems(site, pending_c, SEATS)
    assert f"card {CARD_C}: answer published early (data/answer_lines.parquet)" in problems


def test_an_answer_in_an_awaiting_card_json_is_early(site: Path, pending_c: RecordTables) -> None:
    path = site / "data" / "cards" / f"{CARD_C}.json"
    document = json.loads(path.read_text())
    answers = pending_c.read("answers", CARD_C).head(1)
    document["tables"]["answers"] = {
        "columns": answers.columns,
        "rows": [[plain(v) for v in r] for r in answers.iter_rows()],
    }
    path.write_text(json.dumps(document))
    problems = site_problems(site, pending_c, SEATS)
    assert f"card {CARD_C}: answer published early (data/cards/{CARD_C}.json)" in problems


def test_an_answer_id_anywhere_in_a_json_file_is_early(site: Path, pending_c: RecordTables) -> None:
    # Not as a row of a table, not under an "id" key: a bare string in a list is found all the same.
    line = pending_c.read("answer_lines", CARD_C)["id"][0]
    path = site / "data" / "cards" / f"{CARD_A}.json"
    document = json.loads(path.read_text())
    document["notes"] = [["see", line]]
    path.write_text(json.dumps(document))
    problems = site_problems(site, pending_c, SEATS)
    assert f"card {CARD_C}: answer published early (data/cards/{CARD_A}.json)" in problems


def test_a_hand_edited_sharp_is_named_by_file_id_and_field(site: Path, tables: RecordTables) -> None:
    row = tables.read("leaderboard").filter(pl.col("kind") == "FIGHT").row(0, named=True)
    cell = f'data-id="{row["id"]}" data-field="sharp" class="strong num">'
    original = f"{row['sharp']:.1f}"
    edit(site / "index.html", lambda html: html.replace(cell + original, cell + "99.9"))
    problems = site_problems(site, tables, SEATS)
    assert problems == [
        f"index.html: leaderboard row {row['id']} field sharp: published '99.9', record '{original}'"
    ]


def test_hand_edited_json_and_parquet_numbers_are_named(site: Path, tables: RecordTables) -> None:
    board = site / "data" / "leaderboard.json"
    document = json.loads(board.read_text())
    first = document["rows"][0]
    first["crown"] += 1
    board.write_text(json.dumps(document))
    scores = site / "data" / "scores.parquet"
    frame = pl.read_parquet(scores)
    tampered = frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(0.5).otherwise(pl.col("brier")).alias("brier")
    )
    tampered.write_parquet(scores)
    problems = site_problems(site, tables, SEATS)
    crown = f"published {first['crown']}, record {first['crown'] - 1}"
    assert f"data/leaderboard.json: leaderboard row {first['id']} field crown: {crown}" in problems
    assert any(
        p.startswith(f"data/scores.parquet: scores row {frame['id'][0]} field brier: published 0.5")
        for p in problems
    )


def test_a_row_that_is_not_in_the_record_is_reported(site: Path, tables: RecordTables) -> None:
    edit(
        site / "cards" / f"{CARD_A}.html",
        lambda html: html.replace(
            "</main>", '<p><span data-table="scores" data-id="feed" data-field="crown">+3</span></p></main>'
        ),
    )
    problems = site_problems(site, tables, SEATS)
    assert problems == [
        f"cards/{CARD_A}.html: scores row feed field crown: no such row in the record (published '+3')"
    ]


def test_a_missing_page_and_a_broken_svg_are_reported(site: Path, tables: RecordTables) -> None:
    (site / "cards" / f"{CARD_B}.html").unlink()
    (site / "plots" / "standing-fight.svg").write_text("<svg><g></svg>")
    problems = site_problems(site, tables, SEATS)
    assert f"cards/{CARD_B}.html: missing from the site" in problems
    assert any(p.startswith("plots/standing-fight.svg: not well-formed XML") for p in problems)
    assert any(p.startswith("index.html: <a href=") and CARD_B in p for p in problems)


def test_the_signed_manifest_files_are_left_to_the_signer(site: Path, tables: RecordTables) -> None:
    (site / "MANIFEST.json").write_text("{}")
    (site / "MANIFEST.json.dsse").write_text("{}")
    (site / "keys").mkdir()
    (site / "keys" / "arena.pem").write_text("-----BEGIN PUBLIC KEY-----\n")
    assert site_problems(site, tables, SEATS) == []


def test_formats_one_function_per_kind() -> None:
    row: dict[str, Any] = {
        "id": "x",
        "sharp": 61.25,
        "edge": -0.00123,
        "crown": 0,
        "record": -3,
        "price": 0.5150005,
        "interest": 12345.6,
        "early": True,
        "outcome": 0,
        "seal": dt.datetime(2026, 11, 20, 10, tzinfo=UTC),
        "settings": json.dumps({"seed": "OMITTED", "temperature": 0.0}),
        "step": None,
    }
    expected = {
        "sharp": "61.2",
        "edge": "-0.0012",
        "crown": "0",
        "record": "-3",
        "price": "0.5150005",
        "interest": "$12,346",
        "early": "EARLY",
        "outcome": "NO",
        "seal": "2026-11-20T10:00:00Z",
        "settings.seed": "OMITTED",
        "settings.temperature": "0.0",
        "settings.top_p": "—",
        "step": "—",
    }
    assert {f: format_field("leaderboard", f, row) for f in expected} == expected


def test_answer_lines_without_their_answers_table_block_the_build(
    tables: RecordTables, tmp_path: Path
) -> None:
    # A record caught between writing answer lines and the answers table must not be published.
    questions = list(tables.read("card_questions", CARD_C).iter_rows(named=True))
    tables.write("answer_lines", _lines(CARD_C, questions, {ALPHA: [("YES", 3)]}), CARD_C)
    assert release_problems(tables, SEATS) == [
        f"card {CARD_C}: answer_lines is recorded but the card has no answers table"
    ]
    with pytest.raises(ReleaseError, match=CARD_C):
        build_site(tables, tmp_path / "out", seats=SEATS, built_at=BUILT_AT)


# --- the full ranked list, compact tables, and the fast reading ------------------------------------------


def _row_html(html: str, row_id: str) -> str:
    [row] = re.findall(rf'<tr data-id="{row_id}"[^>]*>.*?</tr>', html)
    return row


def test_the_ranked_page_is_compact(built: tuple[Path, SiteReport], record_root: Path) -> None:
    out, _ = built
    html = (out / "cards" / CARD_A / "ranked.html").read_text(encoding="utf-8")
    ranked = RecordLayout(record_root).tables(FORECAST).read("ranked_candidates", CARD_A)
    # The table named once, each field once per column, each row id once per row, plain cells.
    assert html.count('<table data-table="ranked_candidates"') == 1
    assert html.count("data-table=") == 1
    assert html.count("data-id=") == ranked.height
    heads = re.findall(r'<th scope="col" data-field="([^"]+)" title="[^"]+">', html)
    fields = "rank place market_id question verdict rule value doubt_bits price interest"
    assert heads == fields.split()
    assert "data-field" not in html.split("</thead>", 1)[1]
    row = _row_html(html, ranked.filter(pl.col("verdict") == "selected")["id"][0])
    assert row.startswith('<tr data-id="') and 'class="selected"' in row and "<td>M" not in row
    assert "Cut question 0 &amp; &lt;friends&gt;" in html  # text is escaped
    # The rows in the record's order (ranked, the unranked last), linked from the card page and back.
    parsed = read_cells(out / "cards" / CARD_A / "ranked.html")
    assert [i for t, i in parsed.rows] == ranked["id"].to_list()
    card_page = (out / "cards" / f"{CARD_A}.html").read_text(encoding="utf-8")
    assert f'href="{CARD_A}/ranked.html"' in card_page and f'href="../{CARD_A}.html"' in html


def test_a_tampered_cell_in_the_ranked_list_is_named_by_file_row_and_field(
    site: Path, tables: RecordTables
) -> None:
    ranked = tables.read("ranked_candidates", CARD_A)
    row = ranked.filter(pl.col("rule") == "gradeable").row(0, named=True)
    page = site / "cards" / CARD_A / "ranked.html"

    def tamper(html: str) -> str:
        before = _row_html(html, row["id"])
        return html.replace(before, before.replace("<td>gradeable</td>", "<td>real_money</td>"))

    edit(page, tamper)
    assert site_problems(site, tables, SEATS) == [
        f"cards/{CARD_A}/ranked.html: ranked_candidates row {row['id']} field rule: "
        "published 'real_money', record 'gradeable'"
    ]


def test_a_row_left_out_of_the_ranked_list_or_taken_from_another_card_is_named(
    site: Path, tables: RecordTables
) -> None:
    ranked = tables.read("ranked_candidates", CARD_A)
    dropped = ranked.filter(pl.col("rule") == "real_money")["id"][0]
    foreign = tables.read("ranked_candidates", CARD_B)["id"][0]
    page = site / "cards" / CARD_A / "ranked.html"
    b_row = _row_html((site / "cards" / CARD_B / "ranked.html").read_text(encoding="utf-8"), foreign)
    edit(page, lambda html: html.replace(_row_html(html, dropped), b_row))
    problems = site_problems(site, tables, SEATS)
    assert problems == [
        f"cards/{CARD_A}/ranked.html: ranked_candidates row {foreign} belongs to card {CARD_B}, not {CARD_A}",
        f"cards/{CARD_A}/ranked.html: ranked_candidates row {dropped} of the record is missing",
    ]


def test_the_card_page_shows_exactly_the_rows_around_the_cut(site: Path, tables: RecordTables) -> None:
    ranked = tables.read("ranked_candidates", CARD_A).sort("rank", nulls_last=True)
    last_shown, first_hidden = ranked["id"][3 + 20 - 1], ranked["id"][3 + 20]
    hidden_row = _row_html(
        (site / "cards" / CARD_A / "ranked.html").read_text(encoding="utf-8"), first_hidden
    )
    # The 21st best-ranked excluded question in place of the 20th.
    edit(
        site / "cards" / f"{CARD_A}.html", lambda html: html.replace(_row_html(html, last_shown), hidden_row)
    )
    assert site_problems(site, tables, SEATS) == [
        f"cards/{CARD_A}.html: ranked_candidates row {last_shown} of the record is missing",
        f"cards/{CARD_A}.html: ranked_candidates row {first_hidden}: not one of the rows around the cut",
    ]


def test_a_compact_table_edited_out_of_shape_is_still_read(site: Path, tables: RecordTables) -> None:
    # Markup the fast reader does not know (a <b> in a cell) leaves the table to html.parser: the same
    # meaning, so the changed CROWN is still named, by file, row and field.
    score = tables.read("scores", CARD_A).filter(pl.col("crown") != 0).row(0, named=True)
    crown = f"{score['crown']:+d}"
    page = site / "cards" / f"{CARD_A}.html"

    def tamper(html: str) -> str:
        before = _row_html(html, score["id"])
        cells = before.split("</td>")
        at = next(i for i, c in enumerate(cells) if c.endswith(f">{crown}"))
        cells[at] = cells[at].removesuffix(crown) + "<b>+9</b>"
        return html.replace(before, "</td>".join(cells))

    edit(page, tamper)
    assert read_page((page).read_text(encoding="utf-8")).cells  # readable
    assert site_problems(site, tables, SEATS) == [
        f"cards/{CARD_A}.html: scores row {score['id']} field crown: published '+9', record '{crown}'"
    ]


def test_an_unreleased_answer_in_a_compact_row_is_early(site: Path, pending_c: RecordTables) -> None:
    # The row id alone publishes the answer, even under a column that names no field.
    line = pending_c.read("answer_lines", CARD_C).row(0, named=True)
    table = (
        '<table data-table="answer_lines">\n<caption>x</caption>\n<thead><tr><th scope="col">Seat</th>'
        f'</tr></thead>\n<tbody>\n<tr data-id="{line["id"]}"><td>{line["seat"]}</td></tr>\n</tbody></table>'
    )
    edit(site / "cards" / f"{CARD_C}.html", lambda html: html.replace("</main>", table + "</main>"))
    problems = site_problems(site, pending_c, SEATS)
    assert f"card {CARD_C}: answer published early (cards/{CARD_C}.html)" in problems


def test_the_verdict_counts_are_counted_from_the_record(site: Path, tables: RecordTables) -> None:
    page = site / "cards" / f"{CARD_A}.html"
    edit(
        page, lambda html: html.replace(f"<td>the_cut</td><td>{CUT_ROWS}</td>", "<td>the_cut</td><td>2</td>")
    )
    assert site_problems(site, tables, SEATS) == [
        f"cards/{CARD_A}.html: verdict_summary row excluded/the_cut field count: "
        f"published '2', record '{CUT_ROWS}'"
    ]


def test_per_card_json_and_parquet_are_checked(site: Path, tables: RecordTables) -> None:
    path = site / "data" / "cards" / f"{CARD_A}.json"
    document = json.loads(path.read_text())
    block = document["tables"]["card_questions"]
    first = dict(zip(block["columns"], block["rows"][0], strict=True))
    block["rows"][0][block["columns"].index("price")] = 0.99
    path.write_text(json.dumps(document))
    ranked = site / "data" / "ranked" / f"{CARD_B}.parquet"
    frame = pl.read_parquet(ranked)
    frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 1).then(pl.lit("the_cut")).otherwise(pl.col("rule")).alias("rule")
    ).write_parquet(ranked)
    scores = site / "data" / "scores" / f"{CARD_C}.parquet"
    shutil.copy(site / "data" / "scores" / f"{CARD_B}.parquet", scores)  # a card still awaiting answers
    problems = site_problems(site, tables, SEATS)
    assert problems == [
        f"data/cards/{CARD_A}.json: card_questions row {first['id']} field price: "
        f"published 0.99, record {first['price']}",
        f"data/ranked/{CARD_B}.parquet: ranked_candidates row {frame['id'][1]} field rule: "
        f"published 'the_cut', record None",
        f"data/scores/{CARD_C}.parquet: scores of card {CARD_C}, whose answers may not be published yet",
        f"card {CARD_C}: answer published early (data/scores/{CARD_C}.parquet)",
    ]


def test_the_fast_reading_is_html_parser_s_reading(
    built: tuple[Path, SiteReport], missed_built: Path
) -> None:
    out, _ = built
    for path in sorted([*out.rglob("*.html"), *missed_built.rglob("*.html")]):
        html = path.read_text(encoding="utf-8")
        fast, slow = read_page(html), read_page(html, fast=False)
        for part in ("cells", "rows", "refs"):
            assert sorted(getattr(fast, part)) == sorted(getattr(slow, part)), (path.name, part)
        assert (fast.images, fast.scripts, fast.lang, fast.title, fast.statuses) == (
            slow.images,
            slow.scripts,
            slow.lang,
            slow.title,
            slow.statuses,
        )
        # Every compact table the builder writes is in the shape the fast reader takes.
        starts = [m.start() for m in re.finditer('<table data-table="', html)]
        assert all(page_parse._TABLE.match(html, at) for at in starts), path.name
    # And the test's own reader, written apart from both, agrees on the card page.
    page = out / "cards" / f"{CARD_A}.html"
    mine = read_cells(page)
    theirs = read_page(page.read_text(encoding="utf-8"))
    # (This reader keeps the newline a browser drops after <pre>.)
    assert sorted(
        (
            c["table"],
            c["id"],
            c["field"],
            c["text"].removeprefix("\n") if c["field"] == "packet_text" else c["text"],
        )
        for c in mine.cells
    ) == sorted(theirs.cells)
    assert sorted(mine.rows) == sorted(theirs.rows)


def test_a_long_ranked_list_stays_off_the_card_page(tables: RecordTables, tmp_path: Path) -> None:
    # 3,000 verdicts: the card page and its JSON stay as they were; the ranked page holds one id a row.
    small = build_site(tables, tmp_path / "small", seats=SEATS, built_at=BUILT_AT)
    questions = list(tables.read("card_questions", CARD_A).iter_rows(named=True))
    tables.write("ranked_candidates", _ranked(CARD_A, questions, cut=3_000), CARD_A)
    build_site(tables, tmp_path / "long", seats=SEATS, built_at=BUILT_AT)
    assert small.cards == 3

    def size(site: str, file: str) -> int:
        return (tmp_path / site / file).stat().st_size

    for file in (f"cards/{CARD_A}.html", f"data/cards/{CARD_A}.json"):
        assert abs(size("long", file) - size("small", file)) < 100, file
    ranked = (tmp_path / "long" / "cards" / CARD_A / "ranked.html").read_text(encoding="utf-8")
    assert ranked.count("data-id=") == 3 + 3_000 + 2
    assert size("long", f"cards/{CARD_A}/ranked.html") < 3_005 * 400
    assert site_problems(tmp_path / "long", tables, SEATS) == []


def test_worker_processes_find_what_one_process_finds(site: Path, tables: RecordTables) -> None:
    edit(
        site / "cards" / CARD_B / "ranked.html",
        lambda html: html.replace("<td>the_cut</td>", "<td>x</td>", 1),
    )
    path = site / "data" / "cards" / f"{CARD_A}.json"
    path.write_text(path.read_text().replace('"status": "released"', '"status": "later"'))
    one = site_problems(site, tables, SEATS, workers=1)
    assert len(one) == 2
    assert site_problems(site, tables, SEATS, workers=2) == one


# --- missed cards: a later card of the kind sealed first ------------------------------------------------

SEALED_1, MISSED_CARD, SEALED_2 = "2026-11-22-0500", "2026-11-22-1000", "2026-11-23-0500"
MISSED_REASON = f"the later FIGHT card {SEALED_2} sealed first, and FIGHT cards seal in time order"
# A sweep's reason is text from outside (an error): markup and a bidirectional override in it.
SWEEP_REASON = "slice 2 failed: <b>HTTP 503</b> \u202e after 3 retries"


def make_missed_record(root: Path) -> RecordTables:
    """Two sealed FIGHT cards and, between them, a FIGHT card swept but overtaken: the later one sealed
    first. Every card has its card_status; the missed one keeps its (partial) sweep and nothing else."""
    tables = RecordLayout(root).tables(FORECAST)
    for card in (SEALED_1, SEALED_2):
        _write_card(tables, card, "FIGHT", [(f"7{card[-4:]}", 0.5, f"Will card {card} happen?")])
        packet = tables.read("packet", card)["packet_id"][0]
        status = card_status_frame(card, "FIGHT", "sealed", packet=packet, overtaken_by=None, reason=None)
        tables.write("card_status", status, card)
    sweep = _sweeps(MISSED_CARD, complete=False).with_columns(reason=pl.lit(SWEEP_REASON))
    tables.write("sweeps", with_ids(sweep), MISSED_CARD)
    status = card_status_frame(
        MISSED_CARD, "FIGHT", "missed", packet=None, overtaken_by=SEALED_2, reason=MISSED_REASON
    )
    tables.write("card_status", status, MISSED_CARD)
    return tables


@pytest.fixture(scope="module")
def missed_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("missed") / "data"
    make_missed_record(root)
    return root


@pytest.fixture(scope="module")
def missed_built(missed_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("missed-site") / "site"
    report = build_site(RecordLayout(missed_root).tables(FORECAST), out, seats=SEATS, built_at=BUILT_AT)
    assert (report.cards, report.missed) == (2, [MISSED_CARD])
    return out


@pytest.fixture
def missed_site(missed_built: Path, missed_root: Path, tmp_path: Path) -> tuple[Path, RecordTables]:
    """Private copies of the built site and of its record, free to edit."""
    shutil.copytree(missed_root, tmp_path / "data")
    return Path(shutil.copytree(missed_built, tmp_path / "site")), RecordLayout(tmp_path / "data").tables(
        FORECAST
    )


def _missed_status(tables: RecordTables) -> dict[str, Any]:
    return tables.read("card_status", MISSED_CARD).row(0, named=True)


def test_a_missed_card_is_listed_with_the_card_that_overtook_it(
    missed_built: Path, missed_root: Path
) -> None:
    tables = RecordLayout(missed_root).tables(FORECAST)
    status = _missed_status(tables)
    page = missed_built / "cards" / "index.html"
    parsed = read_cells(page)
    listed = [c for c in parsed.cells if c["section"] == "missed"]
    assert {(c["table"], c["id"]) for c in listed} == {("card_status", status["id"])}
    assert {c["field"]: c["text"] for c in listed} == {
        "card": MISSED_CARD,
        "kind": "FIGHT",
        "overtaken_by": SEALED_2,
        "reason": MISSED_REASON,
        "rules": SEAL_ORDER,
    }
    row = _row_html(page.read_text(encoding="utf-8"), status["id"])
    assert f'<a href="{MISSED_CARD}.html">{MISSED_CARD}</a>' in row
    assert f'<a href="{SEALED_2}.html">{SEALED_2}</a>' in row  # the card that overtook it, linked
    # The sealed cards' table holds the sealed cards, newest first, and no other.
    sealed = [i for t, i in parsed.rows if t == "packet"]
    assert sealed == [tables.read("packet", c)["id"][0] for c in (SEALED_2, SEALED_1)]
    # The board's list of cards is about cards: the missed one is in it, in its place, marked missed.
    board = (missed_built / "index.html").read_text(encoding="utf-8")
    [listing] = re.findall(r'<ul class="cards">.*?</ul>', board)
    cards = re.findall(r'<li(?: class="([a-z]+)")?><a href="cards/([^"]+)\.html">', listing)
    assert cards == [("", SEALED_2), ("missed", MISSED_CARD), ("", SEALED_1)]
    marked = {(c["id"], c["field"]): c["text"] for c in cells(missed_built / "index.html")}
    assert marked == {(status["id"], "card"): MISSED_CARD, (status["id"], "status"): "missed"}


def test_a_missed_card_page_says_missed_and_shows_its_reason_and_sweep(
    missed_built: Path, missed_root: Path
) -> None:
    tables = RecordLayout(missed_root).tables(FORECAST)
    page = missed_built / "cards" / f"{MISSED_CARD}.html"
    html = page.read_text(encoding="utf-8")
    assert "MISSED — never sealed, never sent to any seat" in html
    marks = read_page(html)
    assert marks.statuses == ["missed"]
    shown = {(c[0], c[2]): c[3] for c in marks.cells}
    assert {f: shown["card_status", f] for f in ("status", "kind", "overtaken_by", "reason", "rules")} == {
        "status": "missed",
        "kind": "FIGHT",
        "overtaken_by": SEALED_2,
        "reason": MISSED_REASON,
        "rules": SEAL_ORDER,
    }
    assert f'<a href="{SEALED_2}.html"><span data-table="card_status"' in html
    # The sweep, as a sealed card's page shows one: partial and why, pages, requests, markets.
    assert {f: shown["sweeps", f] for f in ("complete", "reason", "pages", "requests", "markets")} == {
        "complete": "partial",
        "reason": SWEEP_REASON,
        "pages": "4",
        "requests": "5",
        "markets": "40",
    }
    # The sweep's reason is text from outside: its markup escaped, its override shown as its escape.
    assert (
        "slice 2 failed: &lt;b&gt;HTTP 503&lt;/b&gt; " in html and "<b>" not in html and "\u202e" not in html
    )
    # A missed card has nothing else of a card: no questions, packet, verdicts, answers or ranked list.
    assert {c[0] for c in marks.cells} == {"card_status", "sweeps"}
    for gone in (
        f"cards/{MISSED_CARD}",
        f"data/ranked/{MISSED_CARD}.parquet",
        f"data/scores/{MISSED_CARD}.parquet",
    ):
        assert not (missed_built / gone).exists(), gone
    document = json.loads((missed_built / "data" / "cards" / f"{MISSED_CARD}.json").read_text())
    assert (document["status"], document["kind"], document["released"]) == ("missed", "FIGHT", False)
    assert set(document["tables"]) == {"card_status", "sweeps"} and document["elsewhere"] == {}
    for table in ("card_status", "sweeps"):
        block = document["tables"][table]
        assert [dict(zip(block["columns"], r, strict=True)) for r in block["rows"]] == [
            plain(r) for r in tables.read(table, MISSED_CARD).iter_rows(named=True)
        ]
    site = json.loads((missed_built / "data" / "site.json").read_text())
    assert site["missed"] == [MISSED_CARD] and site["card_keys"] == [SEALED_1, SEALED_2]


def test_the_card_status_download_holds_every_card(missed_built: Path, missed_root: Path) -> None:
    tables = RecordLayout(missed_root).tables(FORECAST)
    published = pl.read_parquet(missed_built / "data" / "card_status.parquet")
    record = pl.concat([tables.read("card_status", c) for c in (SEALED_1, MISSED_CARD, SEALED_2)])
    assert published.equals(record)
    assert published["status"].to_list() == ["sealed", "missed", "sealed"]
    for row in published.iter_rows(named=True):
        assert row_id(row) == row["id"]
    # A missed card's sweep is published with the others; it has no packet.
    assert pl.read_parquet(missed_built / "data" / "sweeps.parquet")["card"].to_list() == [
        SEALED_1,
        MISSED_CARD,
        SEALED_2,
    ]
    assert pl.read_parquet(missed_built / "data" / "packet.parquet")["card"].to_list() == [SEALED_1, SEALED_2]
    downloads = (missed_built / "downloads.html").read_text(encoding="utf-8")
    assert '<a href="data/card_status.parquet">data/card_status.parquet</a>' in downloads
    assert site_problems(missed_built, tables, SEATS) == []


def test_a_sealed_card_has_no_missed_mark(missed_built: Path, missed_root: Path) -> None:
    tables = RecordLayout(missed_root).tables(FORECAST)
    for card in (SEALED_1, SEALED_2):
        page = missed_built / "cards" / f"{card}.html"
        html = page.read_text(encoding="utf-8")
        assert read_page(html).statuses == ["sealed"] and "missed" not in html.lower()
        status = tables.read("card_status", card).row(0, named=True)
        shown = {(c["id"], c["field"]): c["text"] for c in cells(page) if c["table"] == "card_status"}
        assert shown == {(status["id"], "status"): "sealed", (status["id"], "rules"): SEAL_ORDER}
        document = json.loads((missed_built / "data" / "cards" / f"{card}.json").read_text())
        assert document["status"] == "awaiting answers" and "card_status" in document["tables"]
    cards = (missed_built / "cards" / "index.html").read_text(encoding="utf-8")
    for card in (SEALED_1, SEALED_2):
        assert 'class="missed"' not in _row_html(cards, tables.read("packet", card)["id"][0])


@pytest.mark.parametrize(
    ("field", "before", "after"),
    [("reason", MISSED_REASON, "it was late"), ("overtaken_by", SEALED_2, SEALED_1)],
)
def test_a_hand_edited_missed_card_page_is_named_by_file_and_field(
    missed_site: tuple[Path, RecordTables], field: str, before: str, after: str
) -> None:
    site, tables = missed_site
    status = _missed_status(tables)
    mark = f'data-id="{status["id"]}" data-field="{field}">'
    edit(site / "cards" / f"{MISSED_CARD}.html", lambda html: html.replace(mark + before, mark + after))
    assert site_problems(site, tables, SEATS) == [
        f"cards/{MISSED_CARD}.html: card_status row {status['id']} field {field}: "
        f"published {after!r}, record {before!r}"
    ]


def test_a_missed_card_page_without_its_reason_or_sweep_is_named(
    missed_site: tuple[Path, RecordTables],
) -> None:
    site, tables = missed_site
    status, sweep = _missed_status(tables), tables.read("sweeps", MISSED_CARD)["id"][0]

    def tamper(html: str) -> str:
        html = re.sub(r"<dt>Why</dt><dd>.*?</dd>", "", html)
        return re.sub(r"<h3>Sweep</h3>\n<dl .*?</dl>", "", html, flags=re.S)

    edit(site / "cards" / f"{MISSED_CARD}.html", tamper)
    assert site_problems(site, tables, SEATS) == [
        f"cards/{MISSED_CARD}.html: card_status row {status['id']} field reason: not shown",
        f"cards/{MISSED_CARD}.html: sweeps row {sweep} of the record is missing",
    ]


def test_a_missed_card_shown_as_sealed_or_a_sealed_card_as_missed_is_named(
    missed_site: tuple[Path, RecordTables],
) -> None:
    site, tables = missed_site
    missed, sealed = site / "cards" / f"{MISSED_CARD}.html", site / "cards" / f"{SEALED_1}.html"
    edit(
        missed, lambda html: html.replace('data-partition-status="missed"', 'data-partition-status="sealed"')
    )
    edit(
        sealed, lambda html: html.replace('data-partition-status="sealed"', 'data-partition-status="missed"')
    )
    problems = site_problems(site, tables, SEATS, workers=1)
    assert problems == [
        f"cards/{SEALED_1}.html: shows card {SEALED_1} as 'missed', but the record has it sealed",
        f"cards/{MISSED_CARD}.html: shows card {MISSED_CARD} as 'sealed', but the record has it missed",
    ]
    assert site_problems(site, tables, SEATS, workers=2) == problems


def test_a_status_statement_hidden_in_a_compact_table_is_still_read(
    missed_site: tuple[Path, RecordTables],
) -> None:
    # The fast reader leaves a table carrying a statement to html.parser, which finds it.
    site, tables = missed_site
    page = site / "cards" / f"{SEALED_1}.html"
    question = tables.read("card_questions", SEALED_1)["id"][0]
    row = f'<tr data-id="{question}"'
    edit(page, lambda html: html.replace(row, row + ' data-partition-status="missed"'))
    html = page.read_text(encoding="utf-8")
    assert read_page(html).statuses == read_page(html, fast=False).statuses == ["sealed", "missed"]
    assert site_problems(site, tables, SEATS) == [
        f"cards/{SEALED_1}.html: shows card {SEALED_1} as 'missed', but the record has it sealed"
    ]


def test_a_site_built_before_a_card_changed_status_is_named(missed_site: tuple[Path, RecordTables]) -> None:
    # The record now has the missed card sealed, and the first sealed card missed: the site shows neither.
    site, tables = missed_site
    questions = _questions(MISSED_CARD, "FIGHT", [("7999", 0.5, "Late?")])
    tables.write("packet", _packet(MISSED_CARD, "FIGHT", questions), MISSED_CARD)
    shutil.rmtree(tables.path("packet", SEALED_1).parent)
    status = card_status_frame(SEALED_1, "FIGHT", "missed", packet=None, overtaken_by=SEALED_2, reason="late")
    tables.write("card_status", status, SEALED_1)
    problems = site_problems(site, tables, SEATS)
    assert (
        f"cards/{MISSED_CARD}.html: shows card {MISSED_CARD} as 'missed', but the record has it sealed"
        in problems
    )
    assert (
        f"cards/{SEALED_1}.html: shows card {SEALED_1} as 'sealed', but the record has it missed" in problems
    )
    only = "a missed card has only its page and its JSON"
    assert f"cards/{SEALED_1}/ranked.html: card {SEALED_1} was missed; {only}" in problems


def test_the_cards_index_and_a_missed_card_s_json_are_checked(missed_site: tuple[Path, RecordTables]) -> None:
    site, tables = missed_site
    status = _missed_status(tables)
    edit(site / "cards" / "index.html", lambda html: html.replace(_row_html(html, status["id"]) + "\n", ""))
    path = site / "data" / "cards" / f"{MISSED_CARD}.json"
    document = json.loads(path.read_text())
    document["status"] = "awaiting answers"
    del document["tables"]["sweeps"]
    path.write_text(json.dumps(document))
    assert site_problems(site, tables, SEATS) == [
        f"cards/index.html: card_status row {status['id']} of the record is missing",
        f"data/cards/{MISSED_CARD}.json: status: published 'awaiting answers', expected 'missed'",
        f"data/cards/{MISSED_CARD}.json: tables.sweeps: missing (the record has it for card {MISSED_CARD})",
    ]


def test_a_missing_missed_card_page_is_named(missed_site: tuple[Path, RecordTables]) -> None:
    site, tables = missed_site
    (site / "cards" / f"{MISSED_CARD}.html").unlink()
    (site / "data" / "cards" / f"{MISSED_CARD}.json").unlink()
    problems = site_problems(site, tables, SEATS)
    assert problems[:2] == [
        f"cards/{MISSED_CARD}.html: missing from the site",
        f"data/cards/{MISSED_CARD}.json: missing from the site",
    ]


# --- text from outside: hidden code points shown, never raw ------------------------------------------------

# What an adversarial record carries: NUL, a bidirectional override and isolate, a zero-width space, ESC
# and a C1 control (CSI), around ordinary text in four scripts that is shown as it is, and the escape's
# own letters ("U+202E") written out, which must not pass for the code point.
ORDINARY = "é 日本 🙂 עברית"
HOSTILE = ("\x00", "\u202e", "\u2066", "\u200b", "\x1b", "\x9b")
QUESTION = (
    "Will Fulham\x00 win?\u202e ?niw lahsraM \u2066isolated\u2069 zero\u200bwidth \x1b[31mred\x9b0m "
    f"(not U+202E) {ORDINARY}"
)
DESCRIPTION = (
    "Resolves YES if\x00 Fulham wins.\u202e SEY \u2066x\u2069 \u200b \x1b]0;t\x07 \x9b2J\n"
    f"Line two. {ORDINARY}"
)
REPLY = f"M01: YES 7\u202e 3 ON :20M\x00 \u2066\u200b\x1b[2J\x9b {ORDINARY}"


def _element(char: str) -> str:
    return f'<span class="cp" title="{code_point_title(char)}">{code_point_label(char)}</span>'


def make_hostile_record(root: Path) -> RecordTables:
    """Card A (FIGHT) whose question, resolution rules, and beta's reply (quoted in its error, format
    notes, unbound reasons and line), model name and settings carry every hostile code point."""
    tables = RecordLayout(root).tables(FORECAST)
    questions = _write_card(
        tables,
        CARD_A,
        "FIGHT",
        [("101", 0.515, QUESTION), ("102", 0.25, "Will it rain in Paris?")],
        descriptions=[DESCRIPTION, None],
    )

    def answer(row: dict[str, Any]) -> None:
        if row["seat"] != BETA:
            return
        row["model"] = "beta-\u202e1\u200b"
        row["error"] = f"reply not read strictly: {REPLY}"
        record = json.loads(row["format_record"])
        record["notes"] = [f"ignored a line: {REPLY}"]
        record["unbound_reasons"] = {"M02": f"said {REPLY}"}
        row["format_record"] = json.dumps(record, sort_keys=True)

    def line(row: dict[str, Any]) -> None:
        if row["seat"] == BETA and row["reason"] is not None:
            row["reason"] = f"unreadable: {REPLY}"

    _write_answers(
        tables,
        CARD_A,
        "FIGHT",
        questions,
        {ALPHA: "answered", BETA: "answered"},
        {ALPHA: [("YES", 7), ("NO", 3)], BETA: [("NO", 2), ()]},
        settings={BETA: {"temperature": 0.0, "seed": "OMITTED\u200b\x00"}},
        edit_answer=answer,
        edit_line=line,
    )
    _score(tables, CARD_A, [1, 0])
    _rebuild_boards(tables)
    return tables


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RecordTables]:
    root = tmp_path_factory.mktemp("hostile") / "data"
    tables = make_hostile_record(root)
    build_site(tables, root.parent / "site", seats=SEATS, built_at=BUILT_AT)
    return root.parent / "site", tables


@pytest.fixture
def hostile_site(hostile: tuple[Path, RecordTables], tmp_path: Path) -> Path:
    return Path(shutil.copytree(hostile[0], tmp_path / "site"))


def test_escape_html_shows_every_hidden_code_point() -> None:
    listed = [
        *map(chr, range(0x20)),
        "\x7f",
        *map(chr, range(0x80, 0xA0)),
        *"\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
        *"\u200b\u200c\u200d\u2060\ufeff\u00ad\u2028\u2029\u034f\u3164",
        *"\ud800\udfff",  # lone surrogates: no record holds one (Parquet is UTF-8), but a string may
        *"\ufdd0\ufdef\ufffe\uffff\U0001fffe\U0010ffff",  # noncharacters
        *"\ue000\U000f0000\u0378\U000e0041",  # private use, unassigned, a tag character
    ]
    for char in listed:
        if char == "\n":
            assert escape_html(char) == escape_html(char, attribute=True) == "\n"
            continue
        assert escape_html(char) == _element(char), hex(ord(char))
        assert escape_html(char, attribute=True) == code_point_label(char)
        assert label_code_point(code_point_label(char)) == char
    assert escape_html("\u202e") == '<span class="cp" title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>'
    assert escape_html("a\x00b") == 'a<span class="cp" title="U+0000 NULL">U+0000</span>b'
    assert code_point_title("\U0010ffff") == "U+10FFFF noncharacter"
    assert code_point_title("\ud800") == "U+D800 surrogate"
    # Controls have no names, only aliases: each title's name is one Unicode knows for that control.
    for point in (*range(0x20), 0x7F, *range(0x80, 0xA0)):
        label, name = code_point_title(chr(point)).split(" ", 1)
        assert label == f"U+{point:04X}" and unicodedata.lookup(name) == chr(point)
    # Ordinary text (accents, CJK, emoji with its variation selector, RTL letters, NBSP) is left alone.
    ordinary = "é 日本 🙂 ❤️ עברית مرحبا 한국어 Ελληνικά naïve\u00a0nbsp"
    assert escape_html(ordinary) == escape_html(ordinary, attribute=True) == ordinary
    assert escape_html("<b>\"&'") == "&lt;b&gt;&quot;&amp;&#x27;"
    # Only the label as written is read back; the record's own letters stay letters.
    for label in ("U+202e", "U+0202E", "U+_202E", "U+0x20", "U+0041", "U+000A", "U+110000", "202E"):
        assert label_code_point(label) is None, label
    # The first two planes, the tags and the last code points of every plane (the rest is unassigned or
    # private use) at once: nothing hidden is left raw, and the readers give back every code point.
    ends = (plane | end for plane in range(0x20000, 0x110000, 0x10000) for end in (0xFFFE, 0xFFFF))
    everything = "".join(map(chr, [*range(0x20000), *range(0xE0000, 0xE1000), *ends]))
    written = escape_html(everything)
    assert not has_hidden(written) and page_parse._text(written) == everything
    bmp = "".join(map(chr, range(0x10000)))
    table = pages.table_html("t", [{"id": "i", "f": bmp}], [pages.Col("f", "F")], caption="c")
    assert page_parse._TABLE.match(table, table.index("<table "))  # the fast reader's shape
    single = f'<p><span data-table="t" data-id="i" data-field="g">{escape_html(bmp)}</span></p>'
    for fast in (True, False):
        marks = read_page(table + single, fast=fast)
        assert sorted(marks.cells) == [("t", "i", "f", bmp), ("t", "i", "g", bmp)] and marks.raw == []
    # An escape not as the builder writes it (another title) is read as the text it shows.
    forged = '<span class="cp" title="U+202E LATIN SMALL LETTER A">U+202E</span>'
    marks = read_page(f'<p><span data-table="t" data-id="i" data-field="f">a{forged}</span></p>')
    assert marks.cells == [("t", "i", "f", "aU+202E")]


def test_hidden_code_points_reach_no_page_raw(hostile: tuple[Path, RecordTables]) -> None:
    out, _ = hostile
    for page in sorted(out.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        assert not [c for c in HOSTILE if c in html], page
        assert hidden_in(unescape(html)) == [], page  # nor as a character reference, nor in an attribute
    card = (out / "cards" / f"{CARD_A}.html").read_text(encoding="utf-8")
    ranked = (out / "cards" / CARD_A / "ranked.html").read_text(encoding="utf-8")
    for char in HOSTILE:
        assert _element(char) in card and _element(char) in ranked, hex(ord(char))
    assert '<span class="cp" title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>' in card
    assert '<span class="cp" title="U+0000 NULL">U+0000</span>' in card
    assert '<span class="cp" title="U+001B ESCAPE">U+001B</span>' in card
    assert '<span class="cp" title="U+009B CONTROL SEQUENCE INTRODUCER">U+009B</span>' in card
    assert "(not U+202E)" in card  # the record's own letters, as letters
    for html in (card, ranked):
        assert ORDINARY in html
    # Every field that carries outside text shows it, read back as the record's exact text.
    carrying = {
        (table, field)
        for table, _, field, text in read_page(card).cells
        if any(char in text for char in HOSTILE)
    }
    assert carrying >= {
        ("card_questions", "question"),
        ("ranked_candidates", "question"),
        ("packet", "packet_text"),
        ("answers", "model"),
        ("answers", "error"),
        ("answers", "settings.seed"),
        ("answers", "format_record.notes"),
        ("answers", "format_record.unbound_reasons"),
        ("answer_lines", "reason"),
        ("scores", "gladiator"),
    }
    board = read_page((out / "index.html").read_text(encoding="utf-8")).cells
    assert any(f == "entrant" and "\u202e" in text for _, _, f, text in board)  # the gladiator's name


def test_the_check_reads_escapes_back_and_downloads_keep_the_record_text(
    hostile: tuple[Path, RecordTables],
) -> None:
    out, tables = hostile
    assert site_problems(out, tables, SEATS) == []
    for path in sorted(out.rglob("*.html")):
        html = path.read_text(encoding="utf-8")
        fast, slow = read_page(html), read_page(html, fast=False)
        for part in ("cells", "rows", "refs", "raw"):
            assert sorted(getattr(fast, part)) == sorted(getattr(slow, part)), (path.name, part)
        starts = [m.start() for m in re.finditer('<table data-table="', html)]
        assert all(page_parse._TABLE.match(html, at) for at in starts), path.name
    # The packet as shown reads back as the bytes every seat received, whose SHA-256 the page names.
    packet = tables.read("packet", CARD_A).row(0, named=True)
    assert DESCRIPTION in packet["packet_text"]
    card = (out / "cards" / f"{CARD_A}.html").read_text(encoding="utf-8")
    [shown] = [text for _, _, field, text in read_page(card).cells if field == "packet_text"]
    assert shown == packet["packet_text"]
    assert hashlib.sha256(shown.encode()).hexdigest() == packet["packet_id"] and packet["packet_id"] in card
    # Downloads: the record's text, code point for code point.
    questions = pl.read_parquet(out / "data" / "card_questions.parquet")
    assert QUESTION in questions["question"].to_list() and DESCRIPTION in questions["description"].to_list()
    assert pl.read_parquet(out / "data" / "packet.parquet")["packet_text"].to_list() == [
        packet["packet_text"]
    ]
    answers = (
        pl.read_parquet(out / "data" / "answers.parquet").filter(pl.col("seat") == BETA).row(0, named=True)
    )
    assert answers["error"] == f"reply not read strictly: {REPLY}" and row_id(answers) == answers["id"]
    block = json.loads((out / "data" / "cards" / f"{CARD_A}.json").read_text(encoding="utf-8"))["tables"]
    column = block["card_questions"]["columns"].index("question")
    assert QUESTION in [r[column] for r in block["card_questions"]["rows"]]


def test_a_raw_bidi_override_or_a_dropped_escape_is_named(
    hostile_site: Path, hostile: tuple[Path, RecordTables]
) -> None:
    _, tables = hostile
    question = tables.read("card_questions", CARD_A).filter(pl.col("question") == QUESTION).row(0, named=True)
    page = hostile_site / "cards" / f"{CARD_A}.html"

    def tamper(html: str) -> str:
        # In the question's cell: the override raw, and the NUL's escape unwrapped into plain letters.
        before = _row_html(html, question["id"])
        after = before.replace(_element("\u202e"), "\u202e").replace(_element("\x00"), "U+0000")
        return html.replace(before, after)

    edit(page, tamper)
    where = f"cards/{CARD_A}.html: card_questions row {question['id']} field question"
    assert site_problems(hostile_site, tables, SEATS) == [
        f"{where}: a raw U+202E RIGHT-TO-LEFT OVERRIDE, not its visible escape",
        f"{where}: published {QUESTION.replace(chr(0), 'U+0000')!r}, record {QUESTION!r}",
    ]


def test_a_raw_code_point_outside_a_value_or_as_a_reference_is_named(
    hostile_site: Path, hostile: tuple[Path, RecordTables]
) -> None:
    _, tables = hostile
    packet = tables.read("packet", CARD_A).row(0, named=True)
    page = hostile_site / "cards" / f"{CARD_A}.html"

    def tamper(html: str) -> str:
        html = html.replace("<h2>Verdicts</h2>", "<h2>Verdicts\u2066</h2>")
        head, packet_text = html.split('<pre class="packet"', 1)
        # A character reference is the very code point to a browser.
        return head + '<pre class="packet"' + packet_text.replace(_element("\u202e"), "&#x202E;", 1)

    edit(page, tamper)
    assert site_problems(hostile_site, tables, SEATS) == [
        f"cards/{CARD_A}.html: outside any published value: a raw U+2066 LEFT-TO-RIGHT ISOLATE, "
        "not its visible escape",
        f"cards/{CARD_A}.html: packet row {packet['id']} field packet_text: a raw U+202E RIGHT-TO-LEFT "
        "OVERRIDE, not its visible escape",
    ]


# --- the public board speaks to the public ------------------------------------------------------------


class Heads(HTMLParser):
    """Every column header of a page: its text, and its tooltip (title)."""

    def __init__(self) -> None:
        super().__init__()
        self.heads: list[dict[str, Any]] = []
        self.open: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "th" and a.get("scope") == "col":
            self.open = {"title": a.get("title"), "text": ""}
            self.heads.append(self.open)

    def handle_endtag(self, tag: str) -> None:
        if tag == "th":
            self.open = None

    def handle_data(self, data: str) -> None:
        if self.open is not None:
            self.open["text"] += data


def heads(path: Path) -> list[dict[str, Any]]:
    parser = Heads()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.heads


def _text(path: Path) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))))


def test_every_column_header_of_every_table_has_a_tooltip(
    built: tuple[Path, SiteReport], missed_built: Path, hostile: tuple[Path, RecordTables]
) -> None:
    for out in (built[0], missed_built, hostile[0]):
        pages = sorted(out.rglob("*.html"))
        assert len(pages) > 8
        for page in pages:
            found = heads(page)
            assert len(found) >= page.read_text(encoding="utf-8").count("<table"), page
            for head in found:
                assert head["title"] and len(head["title"]) > 10, (page.relative_to(out), head)


def test_the_method_s_public_names_stand_beside_the_recorded_ones(built: tuple[Path, SiteReport]) -> None:
    out, _ = built
    board = {h["text"]: h["title"] for h in heads(out / "index.html")}
    assert {"RECORDwins − losses", "CONFIDENCESHARP, 0–100", "VS MARKETEDGE", "FC SCORECROWN"} <= set(board)
    assert "EARLYn < 30" in board and "BAD FORMATTINGrecovered" in board
    assert (
        "recorded as SHARP" in board["CONFIDENCESHARP, 0–100"] and "0–100" in board["CONFIDENCESHARP, 0–100"]
    )
    assert "recorded as EDGE" in board["VS MARKETEDGE"] and "recorded as CROWN" in board["FC SCORECROWN"]
    scores = {h["text"]: h["title"] for h in heads(out / "cards" / f"{CARD_A}.html")}
    assert {"VS MARKET (EDGE)", "FC SCORE (CROWN)", "Confidence (stake)", "BAD FORMATTING"} <= set(scores)
    rules = _text(out / "rules.html")
    for said in (
        "CONFIDENCE, recorded as SHARP",
        "VS MARKET, recorded as EDGE",
        "FC SCORE, recorded as CROWN",
    ):
        assert said in rules
    assert "FC SCORE (recorded as CROWN)" in (out / "plots" / "standing-calibration.svg").read_text()


def test_the_board_and_each_card_page_carry_a_plain_key(built: tuple[Path, SiteReport]) -> None:
    out, _ = built
    index = (out / "index.html").read_text(encoding="utf-8")
    key = re.search(r'<section id="key" class="key".*?</section>', index, re.S)
    assert key is not None and index.index('id="key"') < index.index('id="fight"')
    terms = re.findall(r"<dt>(.*?)</dt>", key.group(0))
    assert terms[:4] == [
        "RECORD",
        "CONFIDENCE (recorded as SHARP)",
        "VS MARKET (recorded as EDGE)",
        "FC SCORE (recorded as CROWN)",
    ]
    assert {"n and EARLY", "BAD FORMATTING"} <= set(terms)
    assert "wins minus losses" in key.group(0).lower() and "0 to 100" in key.group(0)
    for card in (CARD_A, CARD_B, CARD_C):
        page = (out / "cards" / f"{card}.html").read_text(encoding="utf-8")
        card_key = re.search(r'<section id="key" class="key".*?</section>', page, re.S)
        assert card_key is not None, card
        assert {
            "VS MARKET (EDGE)",
            "FC SCORE (CROWN)",
            "BAD FORMATTING and *",
            "Listings, Swept, Ranked",
        } <= set(re.findall(r"<dt>(.*?)</dt>", card_key.group(0)))


def test_the_interval_note_says_what_the_range_is_with_the_recipe_behind_details(
    built: tuple[Path, SiteReport], record_root: Path
) -> None:
    out, _ = built
    html = (out / "index.html").read_text(encoding="utf-8")
    notes = re.findall(r'<div class="note interval-note">.*?</div>', html, re.S)
    assert len(notes) == 2  # one per board: FIGHT and CALIBRATION
    board = rows_by_id(RecordLayout(record_root).tables(FORECAST), "leaderboard")
    for note in notes:
        words, recipe = note.split("<details>", 1)
        plain_words = re.sub(r"<[^>]+>", "", words)
        assert "95% range" in plain_words and "drawn again at random, with replacement" in plain_words
        [row_id] = set(re.findall(r'data-id="([^"]+)"', note))
        row = board[row_id]
        assert f"seed {row['bootstrap_seed']}" in plain_words
        assert f"{row['bootstrap_replicates']} times" in plain_words
        assert recipe.startswith("<summary>The exact recipe</summary>")
        assert 'data-field="bootstrap_method"' in recipe and 'data-field="bootstrap_method"' not in words
        assert 'data-field="bootstrap_generator"' in recipe and 'data-field="numpy_version"' in recipe


def test_the_standing_chart_names_every_seat_and_marks_its_score(
    built: tuple[Path, SiteReport], record_root: Path
) -> None:
    out, _ = built
    ns = {"s": "http://www.w3.org/2000/svg"}
    board = rows_by_id(RecordLayout(record_root).tables(FORECAST), "leaderboard")
    svg = ET.fromstring((out / "plots" / "standing-calibration.svg").read_bytes())
    panels = svg.findall("s:g", ns)
    titles = [panel.find("s:title", ns).text for panel in panels]  # type: ignore[union-attr]
    # Card B is CALIBRATION, answered by alpha and beta: a panel each, by the seat's company and line.
    assert sorted(titles) == ["Alpha flagship (alpha-flagship)", "Beta small (beta-small)"]
    for panel in panels:
        [score] = [t for t in panel.iter() if t.get("data-table") == "leaderboard"]
        row = board[score.get("data-id")]
        assert (row["kind"], row["entrant_type"], score.get("data-field")) == ("CALIBRATION", "seat", "crown")
        assert score.text == format_field("leaderboard", "crown", row)
        texts = ["".join(t.itertext()) for t in panel.findall("s:text", ns)]
        assert row["entrant"] in titles[panels.index(panel)] and texts[1] == score.text
    # The gladiator that answered is named by its readable name.
    alpha = next(p for p in panels if "alpha" in p.find("s:title", ns).text)  # type: ignore[union-attr]
    assert "Alpha 1" in ["".join(t.itertext()) for t in alpha.findall("s:text", ns)]


def test_seats_with_identical_lines_get_panels_that_say_so() -> None:
    from colosseum_core.forecast.site.plots import Standing, standing_size, standing_svg

    cards = ["2026-11-20-0500", "2026-11-20-1000"]
    lines = [Standing(f"seat-{i}", f"Company {i} flagship", "House hash", [3, 5]) for i in range(12)]
    lines.append(Standing("seat-12", "Company 12 small", "House coin", [-1, -2]))
    svg = ET.fromstring(standing_svg("CALIBRATION", cards, lines))
    ns = {"s": "http://www.w3.org/2000/svg"}
    panels = svg.findall("s:g", ns)
    assert len(panels) == 13 and (int(svg.get("width") or 0), int(svg.get("height") or 0)) == standing_size(
        13
    )
    texts = [["".join(t.itertext()) for t in p.findall("s:text", ns)] for p in panels]
    # Highest first, every panel named; the twelve alike say so, the odd one out does not.
    assert [t[0] for t in texts] == [*(f"Company {i} flagship" for i in range(12)), "Company 12 small"]
    assert all("same line as 11 other seats" in t for t in texts[:12]) and not any(
        "same line" in s for s in texts[12]
    )
    assert texts[0][1] == "+5" and texts[12][1] == "-2"  # unmarked without a leaderboard row


def test_a_hand_edited_score_in_the_standing_chart_is_named(site: Path, tables: RecordTables) -> None:
    plot = site / "plots" / "standing-calibration.svg"
    svg = plot.read_text(encoding="utf-8")
    [(row_id, crown)] = re.findall(
        r'data-table="leaderboard" data-id="([^"]+)" data-field="crown">([^<]+)<', svg
    )[:1]
    edit(plot, lambda text: text.replace(f'data-field="crown">{crown}<', 'data-field="crown">+99<', 1))
    assert site_problems(site, tables, SEATS) == [
        f"plots/standing-calibration.svg: leaderboard row {row_id} field crown: "
        f"published '+99', record '{crown}'"
    ]


def test_gladiators_and_seats_show_readable_names_beside_their_ids(built: tuple[Path, SiteReport]) -> None:
    from colosseum_core.forecast.site.names import gladiator_name, seat_name

    assert [
        gladiator_name(m)
        for m in (
            "gpt-5",
            "gpt-5-mini",
            "claude-opus-4-1",
            "gemini-2.5-pro",
            "deepseek-chat",
            "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
            "kimi-k2",
            "house-hash",
            "house-hash-s3-sloppy-prose",
            "house-coin-s10-sloppy-json-refuse-once",
        )
    ] == [
        "GPT-5",
        "GPT-5 Mini",
        "Claude Opus 4.1",
        "Gemini 2.5 Pro",
        "DeepSeek Chat",
        "Llama 4 Maverick 17B 128E Instruct FP8",
        "Kimi K2",
        "House hash",
        "House hash #3 (sloppy prose)",
        "House coin #10 (refuse once, sloppy JSON)",
    ]
    assert seat_name("Alibaba (Qwen)", "flagship") == "Alibaba (Qwen) flagship"
    out, _ = built
    index = (out / "index.html").read_text(encoding="utf-8")
    # The name is the reader's; the id beside it is the marked value the check reads back.
    assert re.search(
        r'<a href="seats.html#seat-alpha-flagship">Alpha flagship</a><span data-table="leaderboard"', index
    )
    assert '<span class="name">Alpha 1</span>' in index
    seats = _text(out / "seats.html")
    assert (
        "Alpha 2 alpha-2" in seats
        and "House hash house-hash" in seats
        and "read from it by fixed rules" in seats
    )
    answers = _text(out / "cards" / f"{CARD_A}.html")
    assert "Gladiator Model id" in answers and "Alpha 1 alpha-1" in answers


# --- the sweep's listings, accounted for ---------------------------------------------------------------


def _account(
    tables: RecordTables, card: str, *, listed: int, copied: int, errors: list[tuple[str, str]]
) -> None:
    """Give ``card`` a sweep of ``listed`` listings, ``copied`` verbatim rows and these copy errors."""
    from colosseum_core.forecast.sweep.copy import COPY_ERRORS_SCHEMA

    sweeps = tables.read("sweeps", card).drop("id").with_columns(markets=pl.lit(listed, pl.Int64))
    tables.write("sweeps", with_ids(sweeps), card)
    verbatim = pl.DataFrame({"card": [card] * copied, "market_id": [f"7{n:04d}" for n in range(copied)]})
    tables.write("verbatim_markets", with_ids(verbatim), card)
    rows = [
        {
            "card": card,
            "receipt_id": "e" * 64,
            "market_id": f"6{n}",
            "field": field,
            "value": "x",
            "error": error,
            "rules": "VERBATIM-COPY-1",
        }
        for n, (field, error) in enumerate(errors)
    ]
    tables.write("copy_errors", with_ids(pl.DataFrame(rows, schema=COPY_ERRORS_SCHEMA)), card)


CONFLICT = "market id '61' was published with 2 different contents (receipts e); none is copied"


def _accounted_site(tables: RecordTables, tmp_path: Path) -> Path:
    _account(
        tables,
        CARD_A,
        listed=47,
        copied=40,
        errors=[("outcomePrices", "required key is null"), ("events", "no parent event"), ("id", CONFLICT)],
    )
    _account(tables, CARD_B, listed=40, copied=40, errors=[])
    out = tmp_path / "accounted"
    build_site(tables, out, seats=SEATS, built_at=BUILT_AT)
    return out


def _listings_note(page: Path) -> str:
    html = page.read_text(encoding="utf-8")
    found = re.search(r'<h3 id="listings">.*?</p>', html, re.S)
    assert found is not None
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", found.group(0))))


def test_the_card_page_explains_why_listings_and_swept_differ(tables: RecordTables, tmp_path: Path) -> None:
    out = _accounted_site(tables, tmp_path)
    assert site_problems(out, tables, SEATS) == []
    note = _listings_note(out / "cards" / f"{CARD_A}.html")
    assert "Of the 47 listings, 40 were copied (Swept 40)." in note
    assert "2 listings could not be copied because a field was not as Gamma publishes it" in note
    assert "1 market id was published with different contents" in note
    # 47 = 40 copied + 2 quarantined + 5 further listings of markets listed twice, the conflicting id's too.
    assert "The other 5 are further listings of markets listed more than once" in note
    assert "a market ending exactly on a boundary is listed by both" in note
    agreeing = _listings_note(out / "cards" / f"{CARD_B}.html")
    assert "Here they agree: all 40 listings were copied" in agreeing and "0 were repeats" in agreeing
    # The counts are marked values, and the card's JSON holds them too.
    marked = {
        c["id"]: c["text"]
        for c in cells(out / "cards" / f"{CARD_A}.html")
        if c["table"] == "sweep_accounting"
    }
    assert marked == {"copied": "40", "repeats": "5", "field_errors": "2", "conflicting_ids": "1"}
    document = json.loads((out / "data" / "cards" / f"{CARD_A}.json").read_text())
    assert document["format"] == "COLOSSEUM-BOARD-3"
    assert document["tables"]["sweep_accounting"] == {
        "columns": ["id", "count"],
        "rows": [["copied", 40], ["repeats", 5], ["field_errors", 2], ["conflicting_ids", 1]],
    }
    # A card whose record lacks the copy's tables says what the counts mean, and claims no numbers.
    assert (
        "sweep_accounting"
        not in json.loads((out / "data" / "cards" / f"{CARD_C}.json").read_text())["tables"]
    )
    general = _listings_note(out / "cards" / f"{CARD_C}.html")
    assert "Market listings counts every market" in general and "were copied" not in general


def test_boundary_repeats_alone_are_told_as_repeats(tables: RecordTables, tmp_path: Path) -> None:
    _account(tables, CARD_A, listed=43, copied=40, errors=[])
    build_site(tables, tmp_path / "out", seats=SEATS, built_at=BUILT_AT)
    note = _listings_note(tmp_path / "out" / "cards" / f"{CARD_A}.html")
    assert (
        "The other 3 repeat a market already copied" in note and "identical listings are copied once" in note
    )
    assert "quarantined" not in note
    assert site_problems(tmp_path / "out", tables, SEATS) == []


def test_a_hand_edited_or_dropped_sweep_count_is_named(tables: RecordTables, tmp_path: Path) -> None:
    out = _accounted_site(tables, tmp_path)
    page = out / "cards" / f"{CARD_A}.html"
    mark = 'data-table="sweep_accounting" data-id="repeats" data-field="count">'
    edit(page, lambda html: html.replace(f"{mark}5<", f"{mark}3<"))
    assert site_problems(out, tables, SEATS) == [
        f"cards/{CARD_A}.html: sweep_accounting row repeats field count: published '3', record '5'"
    ]
    edit(
        page,
        lambda html: re.sub(
            r'<span data-table="sweep_accounting" data-id="conflicting_ids"[^>]*>1</span>', "1", html
        ),
    )
    assert site_problems(out, tables, SEATS) == [
        f"cards/{CARD_A}.html: sweep_accounting row repeats field count: published '3', record '5'",
        f"cards/{CARD_A}.html: sweep_accounting row conflicting_ids of the record is missing",
    ]
