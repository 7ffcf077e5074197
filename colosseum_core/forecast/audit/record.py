"""The forecast's checks of a record, run in verify's worker processes: a batch of cards, and the boards.

A batch of cards reads each table's files of the whole batch in one Parquet call (bytes checked
against the ledger first, identifiers computed in one pass), then checks each card: its seal or
missed record, the receipts its rows name, its signatures, its replies read again, its settlements,
scores and verdicts re-derived (``rederive``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from colosseum_core.forecast.answering import ANSWER_SIGNING
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
from colosseum_core.forecast.sealing import MISSED, SEALED
from colosseum_core.record import ReceiptStore, RecordTables
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.journal import JournalError, read_journal
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import check_file
from colosseum_core.record.seals import MISSED_FORMAT, SEAL_FORMAT
from colosseum_core.record.storage import read_parquet, record_path
from colosseum_core.record.tables import PARQUET_NAME
from colosseum_core.trust.keys import ARENA
from colosseum_core.trust.signing import SIGNATURE_COLUMNS
from colosseum_core.verify.canonical import content_ids
from colosseum_core.verify.report import Outcome
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
    read_document,
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
    """The card's state: sealed (its tables as sealed), missed (never sealed), or neither."""
    registry = Record(root).seals(FORECAST)
    path, missed_path = registry.path(key), registry.missed_path(key)
    rel = relative(path, root)
    doc = read_document(path, SEAL_FORMAT, root, out)
    missed = read_document(missed_path, MISSED_FORMAT, root, out)
    if doc is None and missed is None and not path.exists() and not missed_path.exists():
        for table in FORECAST.sealing.selection_tables:
            if tables.exists(table, key):
                out.problems.append(
                    f"{table} card {key}: written, but the card has no seal ({rel}); only its seal writes it"
                )
    status = card.get("card_status")
    status_row = status.row(0, named=True) if status is not None and status.height == 1 else None
    if status is not None and status_row is None:
        out.problems.append(f"card_status card {key}: has {status.height} rows, not one")
    if missed is not None:
        out.count("missed")
        _missed_problems(root, key, missed, doc is not None, status_row, out)
    if doc is None:
        if status_row is not None and status_row.get("status") == SEALED and not path.exists():
            out.problems.append(f"card_status card {key}: says sealed, but the card has no seal ({rel})")
        return
    out.count("seals")
    try:
        sealed: dict[str, str] = dict(doc["tables"])
    except (KeyError, TypeError, ValueError) as exc:
        out.problems.append(f"{rel}: not a readable seal ({exc})")
        return
    if doc.get("card") != key:
        out.problems.append(f"{rel}: names card {doc.get('card')!r}, not {key}")
    if status_row is not None and (status_row.get("status"), status_row.get("packet_id")) != (
        SEALED,
        doc.get("packet_id"),
    ):
        out.problems.append(
            f"card_status card {key}: says {status_row.get('status')} with packet "
            f"{status_row.get('packet_id')}, the seal says sealed with packet {doc.get('packet_id')}"
        )
    for table in sorted(set(sealed) | set(FORECAST.sealing.sealed_tables)):
        file = tables.path(table, key)
        there = file.exists()
        if table not in sealed:
            if there and table in (*FORECAST.sealing.selection_tables, "card_status"):
                out.problems.append(
                    f"{relative(file, root)}: {table} of card {key} was written but is not in its seal"
                )
            continue
        if not there:
            out.problems.append(
                f"{rel}: sealed table {table} of card {key} is missing ({relative(file, root)})"
            )
            continue
        entry = check_file(file, relative(file, root))
        if entry.sha256 is not None and entry.sha256 != sealed[table]:
            out.problems.append(
                f"{relative(file, root)}: SHA-256 {entry.sha256} does not match the seal {rel} "
                f"({sealed[table]}): {table} of card {key} changed after its seal"
            )


def _missed_problems(
    root: Path,
    key: str,
    missed: Mapping[str, Any],
    sealed: bool,
    status_row: Mapping[str, Any] | None,
    out: Outcome,
) -> None:
    where = Record(root).seals(FORECAST).missed_path(key).relative_to(root).as_posix()
    if missed.get("card") != key:
        out.problems.append(f"{where}: names card {missed.get('card')!r}, not {key}")
    if sealed:
        out.problems.append(f"{where}: the card is sealed too; a sealed card is never missed")
    later = str(missed.get("overtaken_by"))
    seal_path = Record(root).seals(FORECAST).path(later)
    try:
        overtaking = json.loads(seal_path.read_bytes()) if seal_path.exists() else None
    except (OSError, ValueError):
        overtaking = None  # named by that card's own check
    if overtaking is None:
        out.problems.append(f"{where}: overtaken by card {later}, which is not sealed")
    elif later <= key or overtaking.get("kind") != missed.get("kind"):
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
    expected = sorted({k.name for k in keys.keys} - {ARENA})
    problems, checked = partition_signature_problems(
        key,
        answers,
        record_ids,
        signatures,
        keys_frame,
        keys,
        card_date(key, answers),
        expected,
        ANSWER_SIGNING,
        extra_columns=HELPER_COLUMNS,
    )
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


def answers_journal(root: Path, key: str) -> Path:
    return Record(root).journal_path(FORECAST, "answers", key)


def _read_answers_journal(root: Path, key: str, out: Outcome) -> list[dict[str, Any]] | bool | None:
    """The card's answers journal, every line checked; None if it has none, False if it is not as
    written (named here)."""
    path = answers_journal(root, key)
    if not path.exists():
        return None
    try:
        journal, torn = read_journal(path, relative(path, root))
    except JournalError as exc:
        out.problems.append(str(exc))
        return False
    if torn:
        out.notes.append(f"{relative(path, root)}: a last line cut short by a crash was ignored")
    out.count("journal_entries", len(journal))
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
