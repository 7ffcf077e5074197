"""The units of an audit, run in worker processes (or in this process when ``workers=1``).

Work is cut so that what crosses a process boundary is small: a task names files, cards or
receipts, the worker reads them itself, and only counts and problem lines come back. A batch of
cards reads each table's files of the whole batch in one Parquet call and computes the batch's
identifiers in one pass, which is where a large record's time goes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import multiprocessing
import os
import re
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import polars as pl
from polars.exceptions import PanicException

from colosseum_core.forecast.answering import unsigned_lines
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.leaderboard import build_boards
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sealing import MISSED, SEALED
from colosseum_core.record import ReceiptStore, RecordTables
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.journal import JournalError, read_journal
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import check_file
from colosseum_core.record.receipts import ReceiptError
from colosseum_core.record.seals import MISSED_FORMAT, SEAL_FORMAT
from colosseum_core.record.tables import PARQUET_NAME
from colosseum_core.trust.signing import ARENA, SIGNATURE_COLUMNS
from colosseum_core.verify.canonical import content_ids
from colosseum_core.verify.rederive import (
    HISTORY_COLUMNS,
    answer_problems,
    board_problems,
    score_problems,
    settlement_problems,
    verdict_problems,
)
from colosseum_core.verify.report import Outcome, capped
from colosseum_core.verify.signatures import KeyIndex, card_signature_problems, parse_public_keys

FILE_COLUMN = "__verify_file"
CONTENT_ID = "__verify_content_id"
HELPER_COLUMNS = (FILE_COLUMN, CONTENT_ID)
# Columns that help a reader find a row named by its id.
HINT_COLUMNS = (
    "seat",
    "label",
    "market_id",
    "kind",
    "entrant_type",
    "entrant",
    "confidence",
    "name",
    "receipt_id",
)

Progress = Callable[[str, int, int], None]
# A decoder that meets bytes it cannot handle may panic (a BaseException in polars) instead of raising.
DECODE_ERRORS = (Exception, PanicException)
# Distinct files whose rows are kept for reuse, per process (each is small: a card's key list).
CLEAN_FILES_KEPT = 64


# --------------------------------------------------------------------------------------------
# Per-process state


@dataclasses.dataclass
class _State:
    root: Path | None = None
    breadcrumbs: Path | None = None
    task: int | None = None
    one_by_one: bool = False
    history: pl.DataFrame | None = None
    history_loaded: bool = False
    keys: dict[tuple[str | None, ...], tuple[KeyIndex, list[str]]] = dataclasses.field(default_factory=dict)
    clean_files: dict[str, pl.DataFrame] = dataclasses.field(default_factory=dict)  # by SHA-256


_STATE = _State()


def init_worker(root: str | None = None, breadcrumbs: str | None = None, one_by_one: bool = False) -> None:
    """Fresh caches for one audit (each worker process, or this process when running in-process).

    ``one_by_one``: decode every file alone, so a worker that dies is known to have died on one file
    (a task whose worker died is run again so).
    """
    global _STATE
    _STATE = _State(
        root=Path(root) if root else None,
        breadcrumbs=Path(breadcrumbs) if breadcrumbs else None,
        one_by_one=one_by_one,
    )


def _reading(paths: Sequence[Path | str]) -> None:
    """Leave word of the files about to be decoded, so a worker that dies on one is not a mystery."""
    if _STATE.breadcrumbs is None:
        return
    note = json.dumps({"task": _STATE.task, "files": [str(p) for p in paths]})
    (_STATE.breadcrumbs / str(os.getpid())).write_text(note)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------------------------
# Reading Parquet and checking identifiers


@dataclasses.dataclass
class Loaded:
    """Files read together: frames of one schema each (with ``FILE_COLUMN``), and the unreadable."""

    groups: list[pl.DataFrame]
    errors: dict[Path, str]
    empty: dict[Path, pl.DataFrame]


def _read_one(path: Path) -> pl.DataFrame:
    frame = pl.read_parquet(path, hive_partitioning=False)
    if FILE_COLUMN in frame.columns or CONTENT_ID in frame.columns:
        raise ValueError(f"the file has a column named {FILE_COLUMN} or {CONTENT_ID}")
    return frame.with_columns(pl.lit(str(path)).alias(FILE_COLUMN))


def _read_each(paths: Sequence[Path]) -> tuple[list[pl.DataFrame], dict[Path, str]]:
    groups: list[pl.DataFrame] = []
    errors: dict[Path, str] = {}
    for path in paths:
        _reading([path])
        try:
            groups.append(_read_one(path))
        except DECODE_ERRORS as exc:
            errors[path] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return groups, errors


def load(paths: Sequence[Path]) -> Loaded:
    """Read ``paths`` in one call when their schemas agree, else one by one (naming the unreadable)."""
    if not paths:
        return Loaded([], {}, {})
    if _STATE.one_by_one:
        groups, errors = _read_each(paths)
    else:
        _reading(paths)
        try:
            groups = [pl.read_parquet(list(paths), include_file_paths=FILE_COLUMN, hive_partitioning=False)]
            errors = {}
        except DECODE_ERRORS:  # a damaged or different file spoils the batch: read each alone to name it
            groups, errors = _read_each(paths)
    present = {p for g in groups for p in g[FILE_COLUMN].unique().to_list()}
    empty: dict[Path, pl.DataFrame] = {}
    for path in paths:
        if path not in errors and str(path) not in present:
            template = groups[0] if len(groups) == 1 else _read_one(path)
            empty[path] = template.head(0).drop(FILE_COLUMN)
    return Loaded(groups, errors, empty)


def _hints(row: Mapping[str, Any]) -> str:
    found = [f"{c} {row[c]}" for c in HINT_COLUMNS if c in row and row[c] is not None]
    return f" ({', '.join(found[:3])})" if found else ""


def check_ids(
    group: pl.DataFrame, describe: Callable[[str], str], drop: tuple[str, ...] = ()
) -> tuple[pl.DataFrame, list[str]]:
    """``group`` with each row's content id added, and a line for every row whose ``id`` is not it.

    ``describe(file)`` names the file's rows, e.g. "answers card 2026-11-20-1000".
    """
    ids, errors = content_ids(group, drop=(ID_FIELD, *HELPER_COLUMNS, *drop))
    files = group[FILE_COLUMN].to_list()
    problems: list[str] = []
    if ID_FIELD not in group.columns:
        for file in dict.fromkeys(files):
            problems.append(f"{describe(file)}: the table has no {ID_FIELD} column")
        return group.with_columns(pl.Series(CONTENT_ID, ids, dtype=pl.String)), problems
    stored = group[ID_FIELD].to_list()
    for index, (mine, theirs) in enumerate(zip(stored, ids, strict=True)):
        if mine == theirs and mine is not None:
            continue
        row = group.row(index, named=True)
        where = f"{describe(files[index])} row {mine}{_hints(row)}"
        if index in errors:
            problems.append(f"{where}: {errors[index]}")
        else:
            problems.append(f"{where}: id does not match its content (the content's id is {theirs})")
    return group.with_columns(pl.Series(CONTENT_ID, ids, dtype=pl.String)), problems


def by_file(loaded: Loaded, checked: Iterable[pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Each readable file's rows (with their content ids), empty files included."""
    frames: dict[str, pl.DataFrame] = {}
    for group in checked:
        runs = group[FILE_COLUMN].rle()
        lengths, files = runs.struct.field("len").to_list(), runs.struct.field("value").to_list()
        if len(set(files)) == len(files):
            # Files come back in the order read, each in one run: slices are views, no copies.
            start = 0
            for length, file in zip(lengths, files, strict=True):
                frames[str(file)] = group.slice(start, length)
                start += length
            continue
        for (file,), part in group.partition_by(FILE_COLUMN, as_dict=True).items():
            frames[str(file)] = part
    for path, frame in loaded.empty.items():
        frames[str(path)] = frame.with_columns(
            pl.lit(None, pl.String).alias(FILE_COLUMN), pl.lit(None, pl.String).alias(CONTENT_ID)
        )
    return frames


def plain(frame: pl.DataFrame) -> pl.DataFrame:
    # Not DataFrame.drop: it goes through a lazy query, ~0.3 ms a call, on the hot path.
    out = frame.clone()
    for column in HELPER_COLUMNS:
        if column in out.columns:
            out.drop_in_place(column)
    return out


# --------------------------------------------------------------------------------------------
# The record: a batch of cards


def _card_date(key: str, answers: pl.DataFrame) -> dt.date:
    try:
        return card_from_key(key).new_york_date
    except ValueError:
        return dt.date.fromisoformat(str(answers["card_date"][0]))


def _history(base: Path, tables: RecordTables) -> pl.DataFrame | None:
    """Every sealed card's questions, once per process: the "one question, one card, ever" history.

    Files that are not as recorded are left out here (their own card names them).
    """
    if not _STATE.history_loaded:
        seals = _seals_dir(base)
        paths = [
            tables.path("card_questions", k)
            for k in tables.partitions("card_questions")
            if (seals / f"card={k}.json").exists()
        ]
        loaded = load(list(recorded(paths, base, Outcome())))
        frames = [g.select(HISTORY_COLUMNS) for g in loaded.groups if set(HISTORY_COLUMNS) <= set(g.columns)]
        _STATE.history = pl.concat(frames, how="vertical_relaxed") if frames else None
        _STATE.history_loaded = True
    return _STATE.history


def _document(path: Path, fmt: str, root: Path, out: Outcome) -> dict[str, Any] | None:
    """A seal or missed-card document, its bytes checked against the ledger before it is parsed."""
    if not path.exists():
        return None
    rel = _relative(path, root)
    check = check_file(path, rel)
    if check.note:
        out.notes.append(check.note)
    if check.problem:
        out.problems.append(check.problem)
        return None
    try:
        doc = json.loads(path.read_bytes())
        if not isinstance(doc, dict) or doc.get("format") != fmt:
            raise ValueError(f"format {doc.get('format') if isinstance(doc, dict) else doc!r} is not {fmt!r}")
    except (OSError, ValueError) as exc:
        out.problems.append(f"{rel}: not a readable {fmt} document ({exc})")
        return None
    return doc


def _seals_dir(root: Path) -> Path:
    return Record(root).seals(FORECAST).root


def _seal_problems(
    root: Path, tables: RecordTables, key: str, card: Mapping[str, pl.DataFrame], out: Outcome
) -> None:
    """The card's state: sealed (its tables as sealed), missed (never sealed), or neither."""
    registry = Record(root).seals(FORECAST)
    path, missed_path = registry.path(key), registry.missed_path(key)
    rel = _relative(path, root)
    doc = _document(path, SEAL_FORMAT, root, out)
    missed = _document(missed_path, MISSED_FORMAT, root, out)
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
                    f"{_relative(file, root)}: {table} of card {key} was written but is not in its seal"
                )
            continue
        if not there:
            out.problems.append(
                f"{rel}: sealed table {table} of card {key} is missing ({_relative(file, root)})"
            )
            continue
        entry = check_file(file, _relative(file, root))
        if entry.sha256 is not None and entry.sha256 != sealed[table]:
            out.problems.append(
                f"{_relative(file, root)}: SHA-256 {entry.sha256} does not match the seal {rel} "
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
    cached = _STATE.keys.get(cache_key)
    if cached is None:
        records, record_problems = parse_public_keys(plain(keys_frame))
        cached = (KeyIndex(records), record_problems)
        if None not in cache_key:  # a row without a content id names nothing; never share its parse
            _STATE.keys[cache_key] = cached
    keys, key_problems = cached
    out.problems += [f"public_keys card {key}: {p}" for p in key_problems]
    expected = sorted({k.name for k in keys.keys} - {ARENA})
    problems, checked = card_signature_problems(
        key,
        answers,
        record_ids,
        signatures,
        keys_frame,
        keys,
        _card_date(key, answers),
        expected,
        extra_columns=HELPER_COLUMNS,
    )
    out.count("signatures", checked)
    out.problems += [p if p.startswith("answer") else f"answers {p}" for p in problems]


def _guarded(out: Outcome, what: str, run: Callable[[], None]) -> None:
    try:
        run()
    except Exception as exc:  # an audit reports what it could not check; it never stops at one card
        out.problems.append(f"{what}: could not be checked ({type(exc).__name__}: {exc})")


def check_cards(
    root: str, keys: Sequence[str], table_names: Sequence[str], check_references: bool = True
) -> Outcome:
    """Everything about a batch of cards: identifiers, seal, signatures, settlements, scores, verdicts.

    ``check_references``: also check that every receipt a row names is in the store.
    """
    base = Path(root)
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
            for key, frame in _read_checked(table, paths, card_of, base, out):
                cards[key][table] = frame
    for key in keys:
        card = cards[key]
        out.count("cards")
        _guarded(out, f"seal of card {key}", lambda k=key, c=card: _seal_problems(base, tables, k, c, out))
        if check_references:
            _guarded(
                out, f"receipts named by card {key}", lambda k=key, c=card: _references(k, c, receipts, out)
            )
        journal = _read_answers_journal(base, key, out)
        if "answers" in card:
            _guarded(out, f"signatures of card {key}", lambda k=key, c=card: _signature_check(k, c, out))
            if check_references and journal is not False:
                _guarded(
                    out,
                    f"answers of card {key}",
                    lambda k=key, c=card, j=journal: _answer_check(k, c, j, receipts, out),
                )
        if "settlements" in card:
            _guarded(
                out,
                f"settlements of card {key}",
                lambda k=key, c=card: out.problems.extend(
                    settlement_problems(k, plain(c["settlements"]), _optional(c, "card_questions"), receipts)
                ),
            )
            out.count("settlements", card["settlements"].height)
        if "scores" in card:
            _guarded(out, f"scores of card {key}", lambda k=key, c=card: _score_check(k, c, out))
        if "raw_sweep" in card:
            _guarded(
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


def recorded(paths: Sequence[Path], base: Path, out: Outcome) -> dict[Path, str]:
    """The paths whose bytes are the ones the ledger records, with their SHA-256.

    Every other path gets a line and is never handed to a decoder: bytes the writer did not write
    are not trusted to be safe to decode.
    """
    good: dict[Path, str] = {}
    for path in paths:
        check = check_file(path, _relative(path, base))
        if check.problem is not None:
            out.problems.append(check.problem)
        elif check.sha256 is not None:
            good[path] = check.sha256
        if check.note is not None:
            out.notes.append(check.note)
    return good


def _read_checked(
    table: str, paths: Sequence[Path], card_of: Mapping[str, str], base: Path, out: Outcome
) -> list[tuple[str, pl.DataFrame]]:
    """Each card's rows of ``table`` (with their content ids), every row's identifier checked.

    A file's bytes are checked against its ledger entry first. Files with identical bytes hold
    identical rows, so each distinct file is read and checked once: a card's ``public_keys`` is
    usually, byte for byte, every other card's.
    """
    out.count("files", len(paths))
    copies: dict[str, list[Path]] = {}
    for path, digest in recorded(paths, base, out).items():
        copies.setdefault(digest, []).append(path)
    todo = {digest: same[0] for digest, same in copies.items() if digest not in _STATE.clean_files}
    loaded = load(list(todo.values()))

    def describe(file: str) -> str:
        return f"{table} card {card_of.get(file, file)}"

    checked = []
    for group in loaded.groups:
        with_ids, problems = check_ids(group, describe)
        out.problems += problems
        checked.append(with_ids)
    frames = by_file(loaded, checked)
    found: list[tuple[str, pl.DataFrame]] = []
    for digest, same in copies.items():
        first = todo.get(digest)
        if first is not None and first in loaded.errors:
            out.problems += [
                f"{_relative(p, base)}: cannot be read as Parquet ({loaded.errors[first]})" for p in same
            ]
            continue
        frame = _STATE.clean_files[digest] if first is None else frames[str(first)]
        clean = ID_FIELD in frame.columns and frame[ID_FIELD].to_list() == frame[CONTENT_ID].to_list()
        if clean and len(same) > 1 and len(_STATE.clean_files) < CLEAN_FILES_KEPT:
            _STATE.clean_files[digest] = frame
        for path in same:
            out.count("rows", frame.height)
            if path != first and not clean:
                # The same bytes as a file with problems: the same problems, named for this card.
                copy = frame.drop(CONTENT_ID).with_columns(pl.lit(str(path)).alias(FILE_COLUMN))
                out.problems += check_ids(copy, describe)[1]
            found.append((card_of[str(path)], frame))
    return found


def answers_journal(root: Path, key: str) -> Path:
    return Record(root).journal_path(FORECAST, "answers", key)


def _read_answers_journal(root: Path, key: str, out: Outcome) -> list[dict[str, Any]] | bool | None:
    """The card's answers journal, every line checked; None if it has none, False if it is not as
    written (named here)."""
    path = answers_journal(root, key)
    if not path.exists():
        return None
    try:
        journal, torn = read_journal(path, _relative(path, root))
    except JournalError as exc:
        out.problems.append(str(exc))
        return False
    if torn:
        out.notes.append(f"{_relative(path, root)}: a last line cut short by a crash was ignored")
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
        _card_date(key, answers),
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


# --------------------------------------------------------------------------------------------
# The record: receipts, tables that are not per card, the boards


def check_receipts(root: str, receipt_ids: Sequence[str]) -> Outcome:
    store = Record(Path(root)).receipts
    out = Outcome()
    for receipt_id in receipt_ids:
        out.count("receipts")
        try:
            store.get(receipt_id)
            if not store.written_as_here(receipt_id):
                out.notes.append(
                    f"receipt {receipt_id}: its content, header and trailer are intact, but its deflate "
                    "stream is not the one this machine's zlib writes (another zlib, or a changed unused bit)"
                )
        except ReceiptError as exc:
            out.problems.append(str(exc))
        except Exception as exc:  # bytes that hash right but are not a receipt document
            out.problems.append(f"receipt {receipt_id}: not a receipt document ({type(exc).__name__}: {exc})")
    return out


def check_files(root: str, files: Sequence[str], prefix: str = "") -> Outcome:
    """Identifiers of whole files that are not per card (the boards), each read alone."""
    base = Path(root)
    out = Outcome()
    for file in files:
        path = base / file
        out.count("files")
        if not recorded([path], base, out):
            continue
        loaded = load([path])
        for bad, error in loaded.errors.items():
            out.problems.append(f"{prefix}{_relative(bad, base)}: cannot be read as Parquet ({error})")
        for group in loaded.groups:
            out.count("rows", group.height)
            out.problems += check_ids(group, lambda f: f"{prefix}{_relative(Path(f), base)}")[1]
    return out


def _concat_readable(paths: Sequence[Path], base: Path) -> tuple[pl.DataFrame | None, list[Path]]:
    """The rows of every path whose bytes are as recorded; the paths that are not, or do not decode."""
    good = recorded(paths, base, Outcome())  # each file's own check names its problems
    loaded = load(list(good))
    frames = [g.drop(FILE_COLUMN) for g in loaded.groups] + list(loaded.empty.values())
    bad = [p for p in paths if p not in good] + list(loaded.errors)
    if not frames:
        return None, bad
    return pl.concat(frames, how="diagonal_relaxed"), bad


def check_board(root: str) -> Outcome:
    """The leaderboard and calibration board rebuilt from every card's scores, value by value."""
    base = Path(root)
    tables = Record(base).tables(FORECAST)
    out = Outcome()
    scores, unreadable = _concat_readable(
        [tables.path("scores", k) for k in tables.partitions("scores")], base
    )
    if unreadable:
        names = ", ".join(_relative(p, base) for p in unreadable)
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
            _reading([path])
            boards[table] = pl.read_parquet(path)
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
    return out


# --------------------------------------------------------------------------------------------
# The published site


SITE_CARD_TABLES = ("answers", "answer_lines", "card_questions", "settlements", "scores")


def _site_frame(
    data: Path, table: str, cards: Sequence[str], verified: Collection[str]
) -> pl.DataFrame | None:
    path = data / f"{table}.parquet"
    if f"data/{table}.parquet" not in verified:
        return None  # missing, or bytes the signed manifest does not vouch for: named by the bundle check
    try:
        scan = pl.scan_parquet(path, hive_partitioning=False)
        if "card" in scan.collect_schema():
            scan = scan.filter(pl.col("card").is_in(list(cards)))
        return scan.collect()
    except DECODE_ERRORS:  # the parent names an unreadable download; without it, nothing here is checkable
        return None


def check_site_cards(site: str, cards: Sequence[str], verified: Collection[str]) -> Outcome:
    """A batch of the site's cards: answers' identifiers and signatures, and scores re-derived.

    ``verified``: the site's files whose bytes its signed manifest vouches for; no other is read.
    """
    base = Path(site)
    data = base / "data"
    out = Outcome()
    frames = {t: _site_frame(data, t, cards, verified) for t in SITE_CARD_TABLES}
    answers = frames["answers"]
    if answers is not None:
        answers = answers.with_columns(pl.lit("data/answers.parquet").alias(FILE_COLUMN))
        answers, problems = check_ids(answers, lambda f: f)
        out.count("rows", answers.height)
        out.problems += problems
        record_ids = answers[CONTENT_ID].unique().to_list()
        stored_ids = answers[ID_FIELD].unique().to_list() if ID_FIELD in answers.columns else []
        signatures = None
        if "data/answer_signatures.parquet" in verified:
            signatures = (
                pl.scan_parquet(data / "answer_signatures.parquet", hive_partitioning=False)
                .filter(pl.col("record_id").is_in(record_ids + stored_ids))
                .collect()
            )
        keys_all = (
            pl.read_parquet(data / "public_keys.parquet") if "data/public_keys.parquet" in verified else None
        )
        for (key,), card in answers.partition_by("card", as_dict=True).items():
            out.count("cards")
            _guarded(
                out,
                f"data/answers.parquet card {key} signatures",
                lambda k=key, c=card: _site_signatures(str(k), c, signatures, keys_all, out),
            )
    lines = frames["answer_lines"]
    if frames["answers"] is not None and lines is not None:
        out.problems += unsigned_lines(frames["answers"], lines, "data/answer_lines.parquet")
    scores = frames["scores"]
    if scores is not None:
        for (key,), card_scores in scores.partition_by("card", as_dict=True).items():
            out.count("scores", card_scores.height)
            _guarded(
                out,
                f"data/scores.parquet card {key}",
                lambda k=key, s=card_scores: _site_scores(str(k), s, frames, out),
            )
    return out


def _site_signatures(
    key: str, card: pl.DataFrame, signatures: pl.DataFrame | None, keys_all: pl.DataFrame | None, out: Outcome
) -> None:
    if keys_all is None:
        out.problems.append(
            f"data/public_keys.parquet: missing, so card {key}'s signatures cannot be verified"
        )
        return
    # A site's keys may be per card (a card column) or one list for every card.
    per_card = "card" in keys_all.columns
    keys_frame = (
        keys_all.filter(pl.col("card") == key).drop("card")
        if per_card
        else keys_all.unique(maintain_order=True)
    )
    records, key_problems = parse_public_keys(keys_frame)
    keys = KeyIndex(records)
    out.problems += [f"data/public_keys.parquet: {p}" for p in key_problems]
    expected = sorted({k.name for k in records} - {ARENA}) if per_card else None
    record_ids = set(card[CONTENT_ID].to_list()) | set(
        card[ID_FIELD].to_list() if ID_FIELD in card.columns else []
    )
    mine = None if signatures is None else signatures.filter(pl.col("record_id").is_in(list(record_ids)))
    problems, checked = card_signature_problems(
        key,
        card,
        card[CONTENT_ID].to_list(),
        mine,
        keys_frame,
        keys,
        _card_date(key, card),
        expected,
        extra_columns=HELPER_COLUMNS,
    )
    out.count("signatures", checked)
    out.problems += [f"data/answers.parquet: {p}" for p in problems]


def _site_scores(
    key: str, scores: pl.DataFrame, frames: Mapping[str, pl.DataFrame | None], out: Outcome
) -> None:
    needed = ("answer_lines", "answers", "card_questions", "settlements")
    parts = {}
    for table in needed:
        frame = frames[table]
        if frame is None:
            out.problems.append(
                f"data/scores.parquet card {key}: cannot be re-derived without data/{table}.parquet"
            )
            return
        parts[table] = frame.filter(pl.col("card") == key)
    problems = score_problems(key, scores, *(parts[t] for t in needed))
    out.problems += [f"data/scores.parquet: {p}" for p in problems]


def check_site_slice(site: str, file: str, offset: int, length: int) -> Outcome:
    """Identifiers of rows ``offset``…``offset + length`` of one download."""
    path = Path(site) / file
    out = Outcome()
    frame = pl.scan_parquet(path, hive_partitioning=False).slice(offset, length).collect()
    frame = frame.with_columns(pl.lit(file).alias(FILE_COLUMN))
    out.count("rows", frame.height)
    out.problems += check_ids(frame, lambda f: f)[1]
    return out


def check_site_board(site: str, verified: Collection[str]) -> Outcome:
    """The site's boards rebuilt from its scores; only files the signed manifest vouches for are read."""
    base = Path(site)
    data = base / "data"
    out = Outcome()
    recorded: dict[str, Any] = {}
    source = {"leaderboard": "data/leaderboard.parquet", "calibration": "data/calibration.parquet"}
    for table, file in source.items():
        try:
            recorded[table] = pl.read_parquet(base / file) if file in verified else None
        except DECODE_ERRORS:
            return out  # named by the identifier check
    if "data/scores.parquet" not in verified:
        out.problems.append("data/scores.parquet: missing, so the board cannot be re-derived")
        return out
    scores = pl.read_parquet(data / "scores.parquet")
    built = build_boards(scores)
    problems, notes, rows = board_problems(None, recorded, source=source, built=built)
    out.count("board_rows", rows)
    out.problems += problems
    out.notes += notes
    published = data / "leaderboard.json"
    if "data/leaderboard.json" not in verified:
        out.problems.append("data/leaderboard.json: missing")
        return out
    try:
        document = json.loads(published.read_bytes())
        # The board publishes {"format", "formula", "rows": [...]}; a bare array of rows reads the same.
        rows_json = document.get("rows") if isinstance(document, dict) else document
        if not isinstance(rows_json, list) or not all(isinstance(r, dict) for r in rows_json):
            raise ValueError('neither {"rows": [...]} nor a JSON array of row objects')
        as_frame = pl.DataFrame(rows_json, infer_schema_length=None)
    except Exception as exc:
        out.problems.append(f"data/leaderboard.json: unreadable ({exc})")
        return out
    problems, _, rows = board_problems(
        None, {"leaderboard": as_frame}, source={"leaderboard": "data/leaderboard.json"}, built=built
    )
    out.count("board_rows", rows)
    out.problems += problems
    return out


# --------------------------------------------------------------------------------------------
# Running the tasks


@dataclasses.dataclass(frozen=True)
class Task:
    stage: str
    units: int
    function: Callable[..., Outcome]
    args: tuple[Any, ...]


def timed(function: Callable[..., Outcome], *args: Any) -> Outcome:
    """Run one task, adding the processor time it took (all of its process's threads) to its outcome."""
    started = time.process_time()
    outcome = function(*args)
    outcome.cpu_seconds += time.process_time() - started
    return outcome


def _mp_context() -> multiprocessing.context.BaseContext:
    # Polars runs its own thread pool; a forked child of a process that used it can deadlock.
    return multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")


def _timed_task(index: int, function: Callable[..., Outcome], *args: Any) -> Outcome:
    """A task in a worker, leaving word that it runs (and what it decodes) until it returns."""
    _STATE.task = index
    _reading([])
    try:
        return timed(function, *args)
    finally:
        if _STATE.breadcrumbs is not None:
            (_STATE.breadcrumbs / str(os.getpid())).unlink(missing_ok=True)
        _STATE.task = None


def _in_flight(breadcrumbs: Path) -> dict[int, list[str]]:
    """Tasks that had started and not returned when their pool broke, with what each was decoding."""
    found: dict[int, list[str]] = {}
    for note in breadcrumbs.iterdir():
        try:
            doc = json.loads(note.read_text())
        except (OSError, ValueError):
            doc = {}
        note.unlink(missing_ok=True)
        if isinstance(doc, dict) and isinstance(doc.get("task"), int):
            found[doc["task"]] = [str(f) for f in doc.get("files", [])]
    return found


def run_tasks(
    tasks: Sequence[Task], *, workers: int, root: str, progress: Progress | None
) -> tuple[Outcome, float]:
    """Run ``tasks`` (in this process when ``workers`` is 1), report progress per stage, merge outcomes.

    A worker process that dies (a decoder's crash, the OOM killer) breaks its pool. The tasks that
    were running are then each run again alone: the one that kills its worker again is reported
    with the files it was decoding, and every other task is run to its end on fresh workers.
    """
    started = time.perf_counter()
    total: dict[str, int] = {}
    for task in tasks:
        total[task.stage] = total.get(task.stage, 0) + task.units
    done = dict.fromkeys(total, 0)
    merged = Outcome()

    def finished(task: Task, outcome: Outcome | None, error: str | None) -> None:
        if error is not None:
            merged.problems.append(f"{task.stage}: a verification task failed ({error})")
        elif outcome is not None:
            merged.merge(outcome)
        done[task.stage] += task.units
        if progress is not None:
            progress(task.stage, done[task.stage], total[task.stage])

    if workers <= 1:
        init_worker(root)
        for task in tasks:
            try:
                finished(task, timed(task.function, *task.args), None)
            except DECODE_ERRORS as exc:
                finished(task, None, f"{type(exc).__name__}: {exc}")
        return merged, time.perf_counter() - started
    remaining = dict(enumerate(tasks))
    with tempfile.TemporaryDirectory(prefix="colosseum-verify-") as crumbs:
        breadcrumbs = Path(crumbs)
        while remaining:
            suspects = _run_pool(remaining, workers, root, breadcrumbs, finished)
            for index, files in sorted(suspects.items()):
                if index not in remaining:
                    continue
                alone = _run_pool({index: remaining[index]}, 1, root, breadcrumbs, finished, one_by_one=True)
                if index in alone:
                    files = alone[index] or files
                    names = ", ".join(_relative(Path(f), Path(root)) for f in files) or "no file yet"
                    finished(remaining.pop(index), None, f"its worker process died while decoding {names}")
                else:
                    remaining.pop(index, None)
    return merged, time.perf_counter() - started


def _run_pool(
    remaining: dict[int, Task],
    workers: int,
    root: str,
    breadcrumbs: Path,
    finished: Callable[[Task, Outcome | None, str | None], None],
    *,
    one_by_one: bool = False,
) -> dict[int, list[str]]:
    """Run ``remaining`` (popping each task as it ends) until done or the pool breaks; then return
    the tasks that were running, with the files each was decoding."""
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(remaining)),
        mp_context=_mp_context(),
        initializer=init_worker,
        initargs=(root, str(breadcrumbs), one_by_one),
    )
    try:
        pending: dict[Future[Outcome], int] = {
            pool.submit(_timed_task, i, t.function, *t.args): i for i, t in remaining.items()
        }
        while pending:
            complete, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in complete:
                index = pending.pop(future)
                error = future.exception()
                if isinstance(error, BrokenProcessPool):
                    return _in_flight(breadcrumbs) or {index: []}
                finished(remaining.pop(index), None if error else future.result(), _describe(error))
        return {}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _describe(error: BaseException | None) -> str | None:
    return None if error is None else f"{type(error).__name__}: {error}"


def batches(
    items: Sequence[str], size: int, heavy: Callable[[str], bool] | None = None, heavy_limit: int = 4
) -> list[list[str]]:
    """Consecutive batches of at most ``size`` items, and at most ``heavy_limit`` heavy ones each."""
    out: list[list[str]] = []
    current: list[str] = []
    heavy_count = 0
    for item in items:
        is_heavy = bool(heavy and heavy(item))
        if current and (len(current) >= size or (is_heavy and heavy_count >= heavy_limit)):
            out.append(current)
            current, heavy_count = [], 0
        current.append(item)
        heavy_count += is_heavy
    if current:
        out.append(current)
    return out


__all__ = ["Task", "batches", "capped", "run_tasks"]
