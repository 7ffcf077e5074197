"""The static public board, built from the record: HTML, JSON and Parquet, with the release rule enforced.

``build_site`` refuses, before writing anything, while any card carries an answer that may not be
published yet (``release.release_problems``). Otherwise it writes into a fresh directory beside
``out`` and renames it into place, so a half-built site is never seen under ``out``. The same record
and ``built_at`` give byte-identical files: everything is sorted, JSON keys are sorted, Parquet is
written by the record's own deterministic writer, and nothing reads the clock.

The site:

* ``index.html`` (the boards), ``calibration.html``, ``seats.html``, ``keys.html``, ``rules.html``,
  ``downloads.html``, ``plots/*.svg``, ``style.css``;
* ``cards/index.html`` (the sealed cards, then the missed ones); per sealed card ``cards/<key>.html``
  (a key to its numbers, packet, questions, how the sweep's listings add up to the markets copied,
  verdict counts, the ranked list around the cut, answers, settlements, scores)
  and ``cards/<key>/ranked.html`` (every verdict); per missed card ``cards/<key>.html`` (that it never
  sealed, the card that overtook it and why, its sweep);
* ``data/<table>.parquet``: the record's rows over the board's cards, ids unchanged (``card_status``
  and ``sweeps`` over the missed cards too); per sealed card ``data/ranked/<key>.parquet`` and
  ``data/scores/<key>.parquet`` (the record's own file of the card);
* ``data/cards/<key>.json`` (the card page's rows, each table as columns and rows) and ``data/*.json``.

A card is on the board once it is sealed (it has a ``packet``, ``release.py``) or once it is recorded
missed (its ``card_status`` row says so, and it has no packet): a later card of its kind sealed first,
so it never seals and has no answers. It is read from the record's ``card_status`` table alone.

Long tables are compact (``pages.table_html``): the card page stays the same size however many
questions were swept, and the full ranked list costs about 320 bytes a verdict.

The shared engine (``colosseum_core.site``) writes the files (``SiteWriter``, which keeps the signer's names
free), and adds the signed manifest (``colosseum_core.trust.bundle``) afterwards (``site.publish``).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.forecast.answering.seats import Seat
from colosseum_core.forecast.rules import COLOSSEUM_SCORING, SLATE_LAWS
from colosseum_core.forecast.site import names, pages
from colosseum_core.forecast.site.documents import (
    ACCOUNTING_SOURCES,
    BOARD_FORMAT,
    CUT_CONTEXT,
    SWEEP_ACCOUNTING,
    VERDICT_SUMMARY,
    around_the_cut,
    rules_document,
    seats_document,
    site_document,
    sweep_accounting,
    verdict_summary,
)
from colosseum_core.forecast.site.fields import MISSED
from colosseum_core.forecast.site.plots import Standing, calibration_svg, standing_size, standing_svg
from colosseum_core.forecast.site.release import ANSWER_TABLES, ReleaseError, release_state
from colosseum_core.record import RecordTables
from colosseum_core.record.storage import read_parquet, scan_parquet
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.site.formats import plain
from colosseum_core.site.shell import STYLESHEET, stylesheet
from colosseum_core.site.writer import SiteWriter, json_bytes, table_json_bytes

# ``data/cards/<key>.json`` holds every card table but scores (which have their own per-card
# download) and, of ranked_candidates, only the rows around the cut; plus the verdict summary and
# the sweep's accounting.
CARD_JSON_TABLES: Final = (
    "packet",
    "card_status",
    "sweeps",
    SWEEP_ACCOUNTING,
    "card_questions",
    VERDICT_SUMMARY,
    "ranked_candidates",
    "answers",
    "answer_lines",
    "answer_signatures",
    "settlements",
    "settlement_reviews",
)
# The card's own tables, in the order its JSON and page show them: the JSON's but the two the board
# derives, then scores.
CARD_TABLES: Final = (
    *(t for t in CARD_JSON_TABLES if t not in (SWEEP_ACCOUNTING, VERDICT_SUMMARY)),
    "scores",
)
# Per-card Parquet downloads, ``data/<dir>/<key>.parquet``: the record's own file of the card.
PER_CARD_DOWNLOADS: Final[dict[str, str]] = {"ranked": "ranked_candidates", "scores": "scores"}
UNPARTITIONED: Final = ("leaderboard", "calibration")
# All that a missed card has on the board: its status and its sweep (it never got any other card table).
MISSED_CARD_TABLES: Final = ("card_status", "sweeps")
DOWNLOADS: Final[dict[str, str]] = {
    "card_status": "One row per card: sealed (its packet id), or missed (the later card that sealed "
    "first, and why).",
    "packet": "One row per sealed card: the packet text every seat received, its SHA-256, doubt, sweep.",
    "card_questions": "The sealed questions, labelled M01…, with seal price and price source.",
    "ranked_candidates": "A verdict for every swept question: selected with rank and place, or the rule.",
    "sweeps": "Each card's sweep, sealed or missed: complete or partial and why, pages, requests, markets.",
    "answers": "Per seat and released card: gladiator, status, settings record, format record.",
    "answer_lines": "Per seat and question of released cards: call, confidence, binding, recovery step.",
    "answer_signatures": "The seat's signature and the arena's countersignature over each answers row id.",
    "public_keys": "The public keys that signed the answers, with the date each became valid.",
    "settlements": "Settled and void questions: outcome, published prices, the receipt read.",
    "settlement_reviews": "Observations contradicting a recorded settlement, flagged for review.",
    "scores": "Every scored answer of released cards (COLOSSEUM-SCORING-2.1); voids unscored.",
    "leaderboard": "The boards: per seat and gladiator, FIGHT and CALIBRATION apart, with intervals.",
    "calibration": "Per seat and gladiator and confidence 1–10: answers, hits, hit rate, stated.",
}
JSON_FILES: Final[dict[str, str]] = {
    "data/leaderboard.json": "The leaderboard rows, as in the record.",
    "data/calibration.json": "The calibration board rows, as in the record.",
    "data/seats.json": "The seat registry: seats and the gladiators that took them, with dates.",
    "data/rules.json": "Every rule and formula version and where it is defined.",
    "data/site.json": "When this site was built, its cards, which are released, which missed, the versions.",
}
PER_CARD_FILES: Final[dict[str, str]] = {
    "cards/<key>.html": "The card: packet, questions, how the sweep's listings add up, verdict counts, the "
    "ranked list around the cut, answers, settlements, scores. A missed card's: that it never sealed, what "
    "overtook it, why, its sweep.",
    "cards/<key>/ranked.html": "The full ranked list: every swept question's verdict, rule and number.",
    "data/cards/<key>.json": "Every row the card page shows, by table, as columns and rows (scores: below); "
    "a missed card's holds its card_status and sweeps rows.",
    "data/ranked/<key>.parquet": "The card's ranked_candidates: every verdict, as the record holds it.",
    "data/scores/<key>.parquet": "The card's scores, once released, as the record holds them.",
}
# Written by colosseum_core.trust.bundle after the build; never by the builder.
KIND_SLUG: Final = {"FIGHT": "fight", "CALIBRATION": "calibration"}


@dataclasses.dataclass(frozen=True)
class SiteReport:
    cards: int  # sealed cards
    released: int
    awaiting_answers: list[str]
    files: int
    bytes: int
    missed: list[str] = dataclasses.field(default_factory=list)


def calibration_plot(kind: str, seat: str) -> str:
    return f"plots/calibration-{KIND_SLUG[kind]}-{seat}.svg"


def standing_plot(kind: str) -> str:
    return f"plots/standing-{KIND_SLUG[kind]}.svg"


def rows_of(frame: pl.DataFrame | None) -> list[dict[str, Any]]:
    return [] if frame is None else list(frame.iter_rows(named=True))


def plain_rows(frame: pl.DataFrame | None) -> list[dict[str, Any]]:
    return [plain(row) for row in rows_of(frame)]


def empty_frame(table: str) -> pl.DataFrame:
    """A table with no file yet, in its record schema where the code that writes it publishes one."""
    from colosseum_core.forecast.answering.answers import LINE_SCHEMA, SEAT_SCHEMA
    from colosseum_core.forecast.board.leaderboard import CALIBRATION_SCHEMA, LEADERBOARD_SCHEMA
    from colosseum_core.forecast.settlement.resolution import REVIEW_SCHEMA, SETTLEMENT_SCHEMA
    from colosseum_core.forecast.settlement.scoring import SCORES_SCHEMA

    known: dict[str, dict[str, pl.DataType]] = {
        "answers": SEAT_SCHEMA,
        "answer_lines": LINE_SCHEMA,
        "settlements": SETTLEMENT_SCHEMA,
        "settlement_reviews": REVIEW_SCHEMA,
        "scores": SCORES_SCHEMA,
        "leaderboard": LEADERBOARD_SCHEMA,
        "calibration": CALIBRATION_SCHEMA,
    }
    return pl.DataFrame(schema={"id": pl.String(), **known.get(table, {})})


def published_cards(
    table: str, cards: Sequence[str], released: Iterable[str], missed: Iterable[str] = ()
) -> list[str]:
    """The cards whose rows of ``table`` the board publishes, in card order: answers only once
    released; a missed card's only of its status and sweep."""
    if table in MISSED_CARD_TABLES:
        return sorted({*cards, *missed})
    done = set(released)
    return [c for c in cards if table not in ANSWER_TABLES or c in done]


def missed_cards(tables: RecordTables, sealed: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """Every missed card's card_status rows, by card in card order.

    A card is missed when its card_status says so; one that has a packet all the same is sealed (the
    release rule reads the packet), and ``colosseum verify`` names the contradiction.
    """
    done = set(sealed)
    found: dict[str, list[dict[str, Any]]] = {}
    for card in tables.partitions("card_status"):
        if card in done:
            continue
        rows = rows_of(tables.read("card_status", card))
        if any(row.get("status") == MISSED for row in rows):
            found[card] = rows
    return found


def download_frame(
    tables: RecordTables,
    table: str,
    cards: Sequence[str],
    released: Iterable[str],
    missed: Iterable[str] = (),
) -> pl.DataFrame:
    """The published download of ``table``: its record rows over the board's cards, in card order."""
    if table in UNPARTITIONED:
        return tables.read(table) if tables.exists(table) else empty_frame(table)
    scans = [
        scan_parquet(tables.path(table, card))
        for card in published_cards(table, cards, released, missed)
        if tables.exists(table, card)
    ]
    if not scans:
        return empty_frame(table)
    # Cards written under an older schema keep their own columns; "relaxed" only unifies types.
    frame = pl.concat(scans, how="diagonal_relaxed").collect()
    if table == "public_keys":
        frame = frame.unique(subset="id", keep="first", maintain_order=True).sort(
            "name", "valid_from", "key_id"
        )
    return frame


def _standing(
    scores: pl.DataFrame, kind: str, seat_order: Sequence[str]
) -> tuple[list[str], dict[str, list[int]]]:
    """Cumulative CROWN per seat after each settled card of ``kind``, in card order."""
    if scores.is_empty():
        return [], {}
    per_card = (
        scores.lazy()
        .filter(
            (pl.col("kind") == kind) & (pl.col("result") != "void") & (pl.col("formula") == COLOSSEUM_SCORING)
        )
        .group_by("card", "seat")
        .agg(pl.col("crown").sum())
        .collect()
    )
    cards = sorted(per_card["card"].unique().to_list())
    crown = {(c, s): int(v) for c, s, v in per_card.select("card", "seat", "crown").iter_rows()}
    present = set(per_card["seat"].to_list())
    order = [s for s in seat_order if s in present] + sorted(present - set(seat_order))
    series: dict[str, list[int]] = {}
    for seat in order:
        total, line = 0, []
        for card in cards:
            total += crown.get((card, seat), 0)
            line.append(total)
        series[seat] = line
    return cards, series


def _gladiators(scores: pl.DataFrame, kind: str) -> dict[str, str]:
    """Per seat, the readable names of the gladiators that answered its scored ``kind`` questions,
    in the order they first did."""
    if scores.is_empty() or "gladiator" not in scores.columns:
        return {}
    rows = (
        scores.filter((pl.col("kind") == kind) & (pl.col("result") != "void"))
        .sort("card", "seat")
        .select("seat", "gladiator")
        .unique(maintain_order=True)
    )
    found: dict[str, list[str]] = {}
    for seat, gladiator in rows.iter_rows():
        name = names.gladiator_name(str(gladiator))
        if name not in found.setdefault(seat, []):
            found[seat].append(name)
    return {seat: " → ".join(line) for seat, line in found.items()}


def standing_lines(
    scores: pl.DataFrame, board: Sequence[dict[str, Any]], kind: str, seats: Sequence[Seat]
) -> tuple[list[str], list[Standing]]:
    """The standing chart of ``kind``: its cards, and per seat its line, names and leaderboard row."""
    cards, series = _standing(scores, kind, [s.id for s in seats])
    seat_names = {s.id: names.seat_name(s.company, s.line) for s in seats}
    answered = _gladiators(scores, kind)
    rows = {
        r["entrant"]: r
        for r in board
        if r["kind"] == kind and r["entrant_type"] == "seat" and r["formula"] == COLOSSEUM_SCORING
    }
    lines = [
        Standing(seat, seat_names.get(seat, seat), answered.get(seat, ""), values, rows.get(seat))
        for seat, values in series.items()
    ]
    # The board's own order (pages._board_order: CROWN, then SHARP, then name), so the panels read
    # like the table above them; the chart keeps it among equal final scores.
    sharp = {seat: row["sharp"] for seat, row in rows.items() if row.get("sharp") is not None}
    lines.sort(
        key=lambda line: (-(line.values[-1] if line.values else 0), -sharp.get(line.seat, -1e9), line.seat)
    )
    return cards, lines


def card_accounting(
    tables: RecordTables, card: str, sweeps: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The card's sweep_accounting rows, counted from its record tables ([] if one is missing)."""
    if not all(tables.exists(table, card) for table in ACCOUNTING_SOURCES):
        return []
    copied = scan_parquet(tables.path("verbatim_markets", card)).select(pl.len()).collect().item()
    errors = read_parquet(tables.path("copy_errors", card), columns=["field", "error"])
    return sweep_accounting(sweeps, int(copied), errors.iter_rows(named=True))


def card_page(card: str) -> str:
    return f"cards/{card}.html"


def ranked_page(card: str) -> str:
    return f"cards/{pages.ranked_href(card)}"


def card_json(card: str) -> str:
    return f"data/cards/{card}.json"


def card_download(directory: str, card: str) -> str:
    return f"data/{directory}/{card}.parquet"


def card_downloads(tables: RecordTables, card: str, released: bool) -> list[tuple[str, str]]:
    """The per-card Parquet files of ``card``: (file, table); scores only once released."""
    return [
        (card_download(directory, card), table)
        for directory, table in PER_CARD_DOWNLOADS.items()
        if (released or table not in ANSWER_TABLES) and tables.exists(table, card)
    ]


def _card_view(
    tables: RecordTables, card: str, released: bool
) -> tuple[pages.CardView, dict[str, Any], list[dict[str, Any]]]:
    """The card page's view, its JSON document, and its full ranked list."""
    frames = {
        table: tables.read_if_present(table, card)
        for table in CARD_TABLES
        if released or table not in ANSWER_TABLES
    }
    rows = {table: rows_of(frame) for table, frame in frames.items()}
    [packet] = rows["packet"]
    ranked = rows["ranked_candidates"]
    verdicts = verdict_summary(ranked)
    cut = around_the_cut(ranked)
    accounting = card_accounting(tables, card, rows["sweeps"])
    view = pages.CardView(
        key=card,
        released=released,
        packet=packet,
        sweeps=rows["sweeps"],
        questions=rows["card_questions"],
        verdicts=verdicts,
        ranked=cut,
        ranked_total=len(ranked),
        settlements=rows["settlements"],
        reviews=rows["settlement_reviews"],
        answers=rows.get("answers", []),
        lines=rows.get("answer_lines", []),
        signatures=rows.get("answer_signatures", []),
        scores=rows.get("scores", []),
        status=rows["card_status"],
        accounting=accounting,
        downloads=frozenset(
            directory
            for directory, table in PER_CARD_DOWNLOADS.items()
            if table in frames and frames[table] is not None
        ),
    )
    columns = {table: frame.columns for table, frame in frames.items() if frame is not None}
    shown = {**rows, VERDICT_SUMMARY: verdicts, "ranked_candidates": cut, SWEEP_ACCOUNTING: accounting}
    columns[VERDICT_SUMMARY] = ["id", "verdict", "rule", "count"]
    if accounting:
        columns[SWEEP_ACCOUNTING] = ["id", "count"]
    document = card_document(
        card,
        released,
        packet.get("kind"),
        {t: (columns[t], shown[t]) for t in CARD_JSON_TABLES if t in columns},
        elsewhere_document(
            card,
            None if frames["ranked_candidates"] is None else len(ranked),
            None if frames.get("scores") is None else len(rows["scores"]),
        ),
    )
    return view, document, ranked


def elsewhere_document(card: str, ranked: int | None, scores: int | None) -> dict[str, Any]:
    """Where the card's rows that its JSON leaves out are published, and how many there are (None:
    the card has no such table, or may not publish it yet)."""
    found: dict[str, Any] = {}
    if ranked is not None:
        found["ranked_candidates"] = {
            "rows": ranked,
            "here": f"the selected places and the {CUT_CONTEXT} best-ranked excluded questions",
            "page": ranked_page(card),
            "download": card_download("ranked", card),
        }
    if scores is not None:
        found["scores"] = {"rows": scores, "here": "none", "download": card_download("scores", card)}
    return found


def _missed_view(
    tables: RecordTables, card: str, status: list[dict[str, Any]], on_site: frozenset[str]
) -> tuple[pages.MissedView, dict[str, Any]]:
    """A missed card's page view and its JSON document: its card_status and sweeps rows, nothing else."""
    frames = {table: tables.read_if_present(table, card) for table in MISSED_CARD_TABLES}
    rows = {table: rows_of(frame) for table, frame in frames.items()}
    view = pages.MissedView(key=card, status=status, sweeps=rows["sweeps"], on_site=on_site)
    shown = {t: (frame.columns, rows[t]) for t, frame in frames.items() if frame is not None}
    kind = next((row.get("kind") for row in status), None)
    return view, card_document(card, False, kind, shown, {}, status=MISSED)


def card_document(
    card: str,
    released: bool,
    kind: str | None,
    shown: dict[str, tuple[Sequence[str], Sequence[dict[str, Any]]]],
    elsewhere: dict[str, Any],
    *,
    status: str | None = None,
) -> dict[str, Any]:
    """``data/cards/<key>.json``: the rows the card page shows, each table as columns and rows;
    ``status`` "missed" for a missed card (released, awaiting answers otherwise)."""
    return {
        "format": BOARD_FORMAT,
        "card": card,
        "kind": kind,
        "released": released,
        "status": status or pages.card_status(released),
        "tables": {
            table: {"columns": list(cols), "rows": [[plain(row[c]) for c in cols] for row in rows]}
            for table, (cols, rows) in shown.items()
        },
        "elsewhere": elsewhere,
    }


def build_site(
    tables: RecordTables,
    out: Path,
    *,
    seats: Sequence[Seat],
    built_at: str,
    arenas: Sequence[tuple[str, str]] = (),
) -> SiteReport:
    """Write the public board for the record in ``tables`` into ``out`` (new or empty); ``arenas``:
    the navigation between the site's arenas (``site.plugin.Neighbours.arenas``)."""
    state = release_state(tables, seats)
    if state.problems:
        raise ReleaseError(state.problems)
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(
            f"{out} exists and is not an empty directory; the board is built into a fresh one"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.building"
    if staging.exists():
        shutil.rmtree(staging)  # a build that died before its rename; the name is the builder's own
    site = SiteWriter(staging)
    cards, released = list(state.cards), set(state.released)
    missed = missed_cards(tables, cards)
    on_site = frozenset({*cards, *missed})
    seat_ids = [s.id for s in seats]
    seat_names = {s.id: names.seat_name(s.company, s.line) for s in seats}
    versions = f"{SLATE_LAWS} · {COLOSSEUM_SCORING}"

    page = pages.SHELL.page_writer(site, built_at=built_at, versions=versions, arenas=arenas)

    site.write(STYLESHEET, stylesheet())

    # Downloads first: the pages and plots read the same frames.
    frames = {table: download_frame(tables, table, cards, released, missed) for table in DOWNLOADS}
    for table, frame in frames.items():
        site.write(f"data/{table}.parquet", parquet_bytes(frame))

    board = rows_of(frames["leaderboard"])
    calibration = rows_of(frames["calibration"])
    site.write("data/leaderboard.json", json_bytes(board_document(board)))
    site.write("data/calibration.json", json_bytes(board_document(calibration)))
    seats_doc, rules_doc = seats_document(seats), rules_document()
    site.write("data/seats.json", json_bytes(seats_doc))
    site.write("data/rules.json", json_bytes(rules_doc))

    packets: list[dict[str, Any]] = []
    for card in cards:
        view, document, ranked = _card_view(tables, card, card in released)
        packets.append(dict(view.packet))
        site.write(card_json(card), table_json_bytes(document))
        page(card_page(card), f"Card {card}", pages.card_body(view))
        page(
            ranked_page(card),
            f"Card {card}: ranked list",
            pages.ranked_body(card, view.packet, ranked, view.downloads),
        )
        for file, table in card_downloads(tables, card, card in released):
            site.write(file, tables.path(table, card).read_bytes())
    for card, status in missed.items():
        missed_view, document = _missed_view(tables, card, status, on_site)
        site.write(card_json(card), table_json_bytes(document))
        page(card_page(card), f"Card {card} (missed)", pages.missed_card_body(missed_view))
    missed_rows = [row for status in missed.values() for row in status if row.get("status") == MISSED]
    page("cards/index.html", "Cards", pages.cards_index_body(packets, released, missed_rows, on_site))

    plots: dict[str, pages.Plot] = {}
    for kind in pages.KINDS:
        plot_cards, lines = standing_lines(frames["scores"], board, kind, seats)
        site.write(standing_plot(kind), standing_svg(kind, plot_cards, lines))
        plots[kind] = (standing_plot(kind), *standing_size(len(lines)))
        for seat in seat_ids:
            points = [
                r
                for r in calibration
                if r["kind"] == kind and r["entrant_type"] == "seat" and r["entrant"] == seat
            ]
            site.write(calibration_plot(kind, seat), calibration_svg(kind, seat, points))

    kinds_of = [(p["card"], p["kind"], p["card"] in released) for p in packets]
    page(
        "index.html",
        "The board",
        pages.index_body(
            board=board,
            cards=kinds_of,
            formula=COLOSSEUM_SCORING,
            plots=plots,
            missed=missed_rows,
            seat_names=seat_names,
        ),
    )
    page(
        "calibration.html",
        "Calibration",
        pages.calibration_body(calibration, seat_ids, calibration_plot, plots, seat_names),
    )
    page("seats.html", "Seats", pages.seats_body(seats_doc))
    page("keys.html", "Public keys", pages.keys_body(rows_of(frames["public_keys"])))
    page("rules.html", "Rules", pages.rules_body(rules_doc))
    page(
        "downloads.html",
        "Downloads",
        pages.downloads_body(
            [(f"data/{t}.parquet", d) for t, d in DOWNLOADS.items()],
            list(JSON_FILES.items()),
            list(PER_CARD_FILES.items()),
        ),
    )
    site.write("data/site.json", json_bytes(site_document(built_at, cards, released, list(missed))))

    if out.exists():
        out.rmdir()
    staging.rename(out)
    return SiteReport(
        cards=len(cards),
        released=len(released),
        awaiting_answers=state.awaiting,
        files=site.files,
        bytes=site.bytes,
        missed=list(missed),
    )


def board_document(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``data/leaderboard.json`` and ``data/calibration.json``: the record's rows, unchanged."""
    return {"format": BOARD_FORMAT, "formula": COLOSSEUM_SCORING, "rows": [plain(r) for r in rows]}
