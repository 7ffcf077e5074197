"""The forecast's checks of a record, run in verify's worker processes: a batch of cards, and the boards.

A batch of cards reads each table's files of the whole batch in one Parquet call (bytes checked
against the ledger first, identifiers computed in one pass), then checks each card: what its seal
or missed record means (its status, its packet, what overtook it; the documents and the tables they
name are the runner's seal check's), the receipts its rows name, its signatures, its replies read
again and replayed against its answers journal (whose chain is the runner's journal check's), its
settlements, scores and verdicts re-derived (``rederive``).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from colosseum_core.forecast.answering.answers import ANSWER_SIGNING
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.audit.board_reference import reference_problems
from colosseum_core.forecast.audit.rederive import (
    HISTORY_COLUMNS,
    answer_problems,
    board_problems,
    score_problems,
    settlement_problems,
    verdict_problems,
)
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sealing.seal_step import MISSED, SEALED
from colosseum_core.record import ReceiptStore, RecordTables
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.journal import JournalError, read_journal
from colosseum_core.record.layout import Record
from colosseum_core.record.storage import read_parquet, record_path
from colosseum_core.record.tables import PARQUET_NAME
from colosseum_core.trust.keys import ARENA
from colosseum_core.trust.signing import SIGNATURE_COLUMNS
from colosseum_core.verify.canonical import content_ids
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.seals import seal_document
from colosseum_core.verify.signatures import KeyIndex, parse_public_keys, partition_signature_problems
from colosseum_core.verify.workers import (
    CONTENT_ID,
    DECODE_ERRORS,
    HELPER_COLUMNS,
    concat_readable,
    guarded,
    load,
    plain,
    read_checked,
    reading,
    recorded,
    relative,
    worker_state,
)


def card_date(key: str, answers: pl.DataFrame) -> dt.date:
    try:
        return card_from_key(key).new_york_date
    except ValueError:
        return dt.date.fromisoformat(str(answers["card_date"][0]))


def answer_signature_problems(
    key: str,
    answers: pl.DataFrame,
    record_ids: Sequence[str | None],
    signatures: pl.DataFrame | None,
    keys_frame: pl.DataFrame,
    keys: KeyIndex,
    *,
    every_seat: bool = True,
) -> tuple[list[str], int]:
    """``partition_signature_problems`` of a card's answers: signed as ``ANSWER_SIGNING`` says, by the
    keys in force on the card's date (with ``every_seat``, every seat key there has signed), the verify
    workers' helper columns left out."""
    expected = sorted({k.name for k in keys.keys} - {ARENA}) if every_seat else None
    on = card_date(key, answers)
    return partition_signature_problems(
        key,
        answers,
        record_ids,
        signatures,
        keys_frame,
        keys,
        on,
        expected,
        ANSWER_SIGNING,
        extra_columns=HELPER_COLUMNS,
    )


def _history(base: Path, tables: RecordTables) -> pl.DataFrame | None:
    """Every sealed card's questions, once per process: the "one question, one card, ever" history.

    Files that are not as recorded are left out here (their own card names them).
    """
    if not worker_state().history_loaded:
        seals = _seals_dir(base)
        paths = [
            tables.path("card_questions", k)
            for k in tables.partitions("card_questions")
            if (seals / f"card={k}.json").exists()
        ]
        loaded = load(list(recorded(paths, base, Outcome())))
        frames = [g.select(HISTORY_COLUMNS) for g in loaded.groups if set(HISTORY_COLUMNS) <= set(g.columns)]
        worker_state().history = pl.concat(frames, how="vertical_relaxed") if frames else None
        worker_state().history_loaded = True
    return worker_state().history


def _seals_dir(root: Path) -> Path:
    return Record(root).seals(FORECAST).root


def _seal_problems(
    root: Path, tables: RecordTables, key: str, card: Mapping[str, pl.DataFrame], out: Outcome
) -> None:
    """What the card's seal or missed record means for the forecast: its ``card_status`` agrees, its
    packet is the one the seal vouches for, and a missed card was overtaken by a later card of its
    kind. (The documents themselves, and the tables a seal names, are the runner's seal check's.)"""
    registry = Record(root).seals(FORECAST)
    path, missed_path = registry.path(key), registry.missed_path(key)
    rel = relative(path, root)
    doc = seal_document(path)
    missed = seal_document(missed_path)
    status = card.get("card_status")
    status_row = status.row(0, named=True) if status is not None and status.height == 1 else None
    if status is not None and status_row is None:
        out.problems.append(f"card_status card {key}: has {status.height} rows, not one")
    if missed is not None:
        _missed_problems(root, key, missed, status_row, out)
    if doc is None:
        if status_row is not None and status_row.get("status") == SEALED and not path.exists():
            out.problems.append(f"card_status card {key}: says sealed, but the card has no seal ({rel})")
        return
    if status_row is not None and (status_row.get("status"), status_row.get("packet_id")) != (
        SEALED,
        doc.get("packet_id"),
    ):
        out.problems.append(
            f"card_status card {key}: says {status_row.get('status')} with packet "
            f"{status_row.get('packet_id')}, the seal says sealed with packet {doc.get('packet_id')}"
        )
    packet = card.get("packet")
    if packet is not None and "packet_id" in packet.columns:
        vouched = set(packet["packet_id"].to_list())
        if vouched != {doc.get("packet_id")}:
            out.problems.append(
                f"packet card {key} field packet_id: {sorted(map(str, vouched))}, but its seal {rel} vouches "
                f"for packet {doc.get('packet_id')}"
            )


def _missed_problems(
    root: Path,
    key: str,
    missed: Mapping[str, Any],
    status_row: Mapping[str, Any] | None,
    out: Outcome,
) -> None:
    where = Record(root).seals(FORECAST).missed_path(key).relative_to(root).as_posix()
    later = str(missed.get("overtaken_by"))
    overtaking = seal_document(Record(root).seals(FORECAST).path(later)) if later else None
    if overtaking is not None and (later <= key or overtaking.get("kind") != missed.get("kind")):
        out.problems.append(
            f"{where}: card {later} ({overtaking.get('kind')}) cannot overtake card {key} "
            f"({missed.get('kind')}): only a later card of the same kind does"
        )
    if status_row is not None and (status_row.get("status"), status_row.get("overtaken_by")) != (
        MISSED,
        later,
    ):
        out.problems.append(
            f"card_status card {key}: says {status_row.get('status')} (overtaken by "
            f"{status_row.get('overtaken_by')}), {where} says missed, overtaken by {later}"
        )


def _signature_check(key: str, card: Mapping[str, pl.DataFrame], out: Outcome) -> None:
    answers = card["answers"]
    keys_frame = card.get("public_keys")
    if keys_frame is None:
        out.problems.append(f"public_keys card {key}: missing, so no signature of the card can be verified")
        return
    signatures = card.get("answer_signatures")
    if all(c in answers.columns for c in SIGNATURE_COLUMNS):
        record_ids, _ = content_ids(answers, drop=(ID_FIELD, *HELPER_COLUMNS, *SIGNATURE_COLUMNS))
    else:
        record_ids = answers[CONTENT_ID].to_list()
    # Content ids name the key rows' content exactly, so equal tuples are equal key sets.
    cache_key = tuple(keys_frame[CONTENT_ID].to_list())
    cached = worker_state().keys.get(cache_key)
    if cached is None:
        records, record_problems = parse_public_keys(plain(keys_frame))
        cached = (KeyIndex(records), record_problems)
        if None not in cache_key:  # a row without a content id names nothing; never share its parse
            worker_state().keys[cache_key] = cached
    keys, key_problems = cached
    out.problems += [f"public_keys card {key}: {p}" for p in key_problems]
    problems, checked = answer_signature_problems(key, answers, record_ids, signatures, keys_frame, keys)
    out.count("signatures", checked)
    out.problems += [p if p.startswith("answer") else f"answers {p}" for p in problems]


def check_cards(
    root: str, keys: Sequence[str], table_names: Sequence[str], check_references: bool = True
) -> Outcome:
    """Everything about a batch of cards: identifiers, seal, signatures, settlements, scores, verdicts.

    ``check_references``: also check that every receipt a row names is in the store.
    """
    base = record_path(root)
    tables = Record(base).tables(FORECAST)
    receipts = Record(base).receipts
    out = Outcome()
    cards: dict[str, dict[str, pl.DataFrame]] = {k: {} for k in keys}
    for table in table_names:
        # The layout of RecordTables.path, by string (names and keys were checked by the caller):
        # pathlib would cost more than the reading for a batch of small files.
        card_of = {f"{tables.root}/{table}/{tables.partition_column}={k}/{PARQUET_NAME}": k for k in keys}
        paths = [Path(file) for file in card_of if os.path.exists(file)]
        if paths:
            for key, frame in read_checked(table, paths, card_of, base, out):
                cards[key][table] = frame
    for key in keys:
        card = cards[key]
        out.count("cards")
        guarded(out, f"seal of card {key}", lambda k=key, c=card: _seal_problems(base, tables, k, c, out))
        if check_references:
            guarded(
                out, f"receipts named by card {key}", lambda k=key, c=card: _references(k, c, receipts, out)
            )
        journal = _read_answers_journal(base, key, out)
        if "answers" in card:
            guarded(out, f"signatures of card {key}", lambda k=key, c=card: _signature_check(k, c, out))
            if check_references and journal is not False:
                guarded(
                    out,
                    f"answers of card {key}",
                    lambda k=key, c=card, j=journal: _answer_check(k, c, j, receipts, out),
                )
        if "settlements" in card:
            guarded(
                out,
                f"settlements of card {key}",
                lambda k=key, c=card: out.problems.extend(
                    settlement_problems(k, plain(c["settlements"]), _optional(c, "card_questions"), receipts)
                ),
            )
            out.count("settlements", card["settlements"].height)
        if "scores" in card:
            guarded(out, f"scores of card {key}", lambda k=key, c=card: _score_check(k, c, out))
        if "raw_sweep" in card:
            guarded(
                out,
                f"verdicts of card {key}",
                lambda k=key, c=card: _verdict_check(k, c, tables, receipts, out),
            )
    return out


# Rows that name the receipts they were read from: the sweep's requests, the seats' replies, and
# the exchange's answers that settled (or contradicted) a question.
RECEIPT_COLUMNS = (
    ("raw_sweep", "receipt_id"),
    ("answers", "receipt_ids"),
    ("settlements", "receipt_id"),
    ("settlement_reviews", "receipt_id"),
)


_RECEIPT_ID = re.compile(r"^[0-9a-f]{64}$")


def _references(key: str, card: Mapping[str, pl.DataFrame], receipts: ReceiptStore, out: Outcome) -> None:
    store = str(receipts.root)
    for table, column in RECEIPT_COLUMNS:
        frame = card.get(table)
        if frame is None or column not in frame.columns:
            continue
        ids = frame[ID_FIELD].to_list() if ID_FIELD in frame.columns else [None] * frame.height
        for row_id, named in zip(ids, frame[column].to_list(), strict=True):
            for receipt_id in named if isinstance(named, list) else [named]:
                if receipt_id is None:
                    continue
                out.count("receipt_references")
                # ReceiptStore.path_for's layout, by string: pathlib costs more than the stat here.
                there = isinstance(receipt_id, str) and bool(_RECEIPT_ID.match(receipt_id))
                if there and not os.path.exists(f"{store}/sha256/{receipt_id[:2]}/{receipt_id[2:]}.json.gz"):
                    there = receipt_id in receipts  # the store's own answer, before naming a problem
                if not there:
                    where = f"{table} card {key} row {row_id}"
                    out.problems.append(f"{where}: names receipt {receipt_id}, which is not in receipts/")


# The answers journal (``answering.answers.AnswerJournal``): one call per seat of the card.
ANSWERS_JOURNAL = "answers"
ANSWERS_CALL = ("card", "packet_id", "seat")


def answers_journal(root: Path, key: str) -> Path:
    return Record(root).journal_path(FORECAST, ANSWERS_JOURNAL, key)


def published_arena_keys(root: Path) -> list[str]:
    """The arena keys every card's ``public_keys`` publishes (a file not as recorded is left out:
    the record's own check names it)."""
    tables = Record(record_path(root)).tables(FORECAST)
    found: set[str] = set()
    for key in tables.partitions("public_keys"):
        try:
            keys = tables.read_checked("public_keys", key)
        except DECODE_ERRORS:
            continue
        if {"name", "key_id"} <= set(keys.columns):
            found |= set(keys.filter(pl.col("name") == ARENA)["key_id"].drop_nulls().to_list())
    return sorted(found)


def _read_answers_journal(root: Path, key: str, out: Outcome) -> list[dict[str, Any]] | bool | None:
    """The card's answers journal; None if it has none, False if it is not as written (the runner's
    journal check names its line; the answers are then not replayed, and this says so)."""
    path = answers_journal(root, key)
    if not path.exists():
        return None
    try:
        journal, _ = read_journal(path, relative(path, root))
    except JournalError:
        out.problems.append(
            f"answers card {key}: not replayed, because its journal {relative(path, root)} is not as written"
        )
        return False
    return journal


def _answer_check(
    key: str,
    card: Mapping[str, pl.DataFrame],
    journal: list[dict[str, Any]] | None,
    receipts: ReceiptStore,
    out: Outcome,
) -> None:
    answers = plain(card["answers"])
    out.problems += answer_problems(
        key,
        answers,
        _optional(card, "answer_lines"),
        _optional(card, "card_questions"),
        _optional(card, "packet"),
        journal,
        receipts,
        card_date(key, answers),
    )
    out.count("replies_reread", answers.height)


def _optional(card: Mapping[str, pl.DataFrame], table: str) -> pl.DataFrame | None:
    return plain(card[table]) if table in card else None


def _score_check(key: str, card: Mapping[str, pl.DataFrame], out: Outcome) -> None:
    needed = ("answer_lines", "answers", "card_questions", "settlements")
    missing = [t for t in needed if t not in card]
    out.count("scores", card["scores"].height)
    if missing:
        out.problems.append(f"scores card {key}: cannot be re-derived without {', '.join(missing)}")
        return
    problems = score_problems(key, plain(card["scores"]), *(plain(card[t]) for t in needed))
    out.problems += [p if p.startswith("scores") else f"scores {p}" for p in problems]


def _verdict_check(
    key: str, card: Mapping[str, pl.DataFrame], tables: RecordTables, receipts: ReceiptStore, out: Outcome
) -> None:
    root = tables.root.parents[1]  # <root>/warehouse/forecast
    problems, verdicts = verdict_problems(
        key, {t: plain(f) for t, f in card.items()}, receipts, _history(root, tables)
    )
    out.count("verdicts", verdicts)
    out.problems += problems


def check_board(root: str) -> Outcome:
    """The leaderboard and calibration board rebuilt from every card's scores, value by value."""
    base = record_path(root)
    tables = Record(base).tables(FORECAST)
    out = Outcome()
    scores, unreadable = concat_readable(
        [tables.path("scores", k) for k in tables.partitions("scores")], base
    )
    if unreadable:
        names = ", ".join(relative(p, base) for p in unreadable)
        out.problems.append(f"leaderboard: not re-derived, because score file(s) cannot be read: {names}")
        return out
    boards: dict[str, pl.DataFrame | None] = {}
    for table in ("leaderboard", "calibration"):
        path = tables.path(table)
        if not path.exists():
            boards[table] = None
            continue
        if not recorded([path], base, Outcome()):
            return out  # named by the file check; there is nothing trustworthy to compare against
        try:
            reading([path])
            boards[table] = read_parquet(path)
        except DECODE_ERRORS:
            return out  # reported by the file check
    if scores is None:
        if any(f is not None and not f.is_empty() for f in boards.values()):
            out.problems.append("leaderboard: the record has boards but no scores to derive them from")
        return out
    problems, notes, rows = board_problems(scores, boards)
    out.count("board_rows", rows)
    out.problems += problems
    out.notes += notes
    if boards.get("leaderboard") is not None:
        out.problems += reference_problems(scores, boards["leaderboard"])
    return out
