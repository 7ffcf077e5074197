"""The units of an audit, run in worker processes (or in this process when ``workers=1``).

Work is cut so that what crosses a process boundary is small: a task names files, cards or
receipts, the worker reads them itself, and only counts and problem lines come back. A batch of
cards reads each table's files of the whole batch in one Parquet call and computes the batch's
identifiers in one pass, which is where a large record's time goes.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import polars as pl

from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import check_file
from colosseum_core.record.receipts import ReceiptError
from colosseum_core.record.storage import read_parquet, record_path, scan_parquet
from colosseum_core.verify.canonical import content_ids
from colosseum_core.verify.causes import partition_of
from colosseum_core.verify.reading import DECODE_ERRORS, UnreadableTable
from colosseum_core.verify.report import Outcome, capped
from colosseum_core.verify.signatures import KeyIndex

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


def worker_state() -> _State:
    """This process's caches for the audit under way (``init_worker`` replaces them)."""
    return _STATE


def init_worker(
    root: str | None = None,
    breadcrumbs: str | None = None,
    one_by_one: bool = False,
    environ: dict[str, str] | None = None,
) -> None:
    """Fresh caches for one audit (each worker process, or this process when running in-process).

    ``one_by_one``: decode every file alone, so a worker that dies is known to have died on one file
    (a task whose worker died is run again so). ``environ``: the auditing process's environment as it
    is now. A worker is forked from the forkserver, which kept the environment of the moment it
    started (the process's first audit): a record's bucket credentials set since then would be
    missing, and its reads would go looking for an instance's metadata server instead.
    """
    if environ is not None:
        os.environ.clear()
        os.environ.update(environ)
    global _STATE
    _STATE = _State(
        root=record_path(root) if root else None,
        breadcrumbs=Path(breadcrumbs) if breadcrumbs else None,
        one_by_one=one_by_one,
    )


def reading(paths: Sequence[Path | str]) -> None:
    """Leave word of the files about to be decoded, so a worker that dies on one is not a mystery."""
    if _STATE.breadcrumbs is None:
        return
    note = json.dumps({"task": _STATE.task, "files": [str(p) for p in paths]})
    (_STATE.breadcrumbs / str(os.getpid())).write_text(note)


def relative(path: Path, root: Path) -> str:
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
    frame = read_parquet(path, hive_partitioning=False)
    if FILE_COLUMN in frame.columns or CONTENT_ID in frame.columns:
        raise ValueError(f"the file has a column named {FILE_COLUMN} or {CONTENT_ID}")
    return frame.with_columns(pl.lit(str(path)).alias(FILE_COLUMN))


def _read_each(paths: Sequence[Path]) -> tuple[list[pl.DataFrame], dict[Path, str]]:
    groups: list[pl.DataFrame] = []
    errors: dict[Path, str] = {}
    for path in paths:
        reading([path])
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
        reading(paths)
        try:
            groups = [read_parquet(list(paths), include_file_paths=FILE_COLUMN, hive_partitioning=False)]
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


_RECEIPT = re.compile(r"receipt ([0-9a-f]{64})")


def guarded(out: Outcome, what: str, run: Callable[[], None]) -> None:
    """Run one check; if it cannot finish, say so in one line. A check stopped by a table file or a
    receipt that cannot be read names it (the file's or the receipt's own problem is the cause)."""
    try:
        run()
    except UnreadableTable as exc:
        out.problems.append(
            f"{what}: not checked, because it reads {exc.what} ({exc.path}), which cannot be read"
        )
    except ReceiptError as exc:
        named = _RECEIPT.search(str(exc))
        if named is None:
            out.problems.append(f"{what}: could not be checked (ReceiptError: {exc})")
        else:
            out.problems.append(
                f"{what}: not checked, because it reads receipt {named.group(1)}, which cannot be read"
            )
    except Exception as exc:  # an audit reports what it could not check; it never stops at one card
        out.problems.append(f"{what}: could not be checked ({type(exc).__name__}: {exc})")


def _partitions(relative_path: str) -> list[tuple[str, str]]:
    found = partition_of(relative_path)
    return [found] if found else []


def describe_file(relative_path: str) -> str:
    """How a problem names a table file: its path, and its table and partition when it has them
    (``warehouse/debate/motions/… (motions rotation 2026-01-04T00Z)``)."""
    parts = Path(relative_path).parts
    found = partition_of(relative_path)
    if len(parts) >= 4 and parts[0] == "warehouse":
        table = parts[2]
        return f"{relative_path} ({table} {found[0]} {found[1]})" if found else f"{relative_path} ({table})"
    return relative_path


def recorded(paths: Sequence[Path], base: Path, out: Outcome) -> dict[Path, str]:
    """The paths whose bytes are the ones the ledger records, with their SHA-256.

    Every other path gets a line and is never handed to a decoder: bytes the writer did not write
    are not trusted to be safe to decode.
    """
    good: dict[Path, str] = {}
    for path in paths:
        rel = relative(path, base)
        check = check_file(path, rel)
        if check.problem is not None:
            out.cause(check.problem, [rel], _partitions(rel))
        elif check.sha256 is not None:
            good[path] = check.sha256
        if check.note is not None:
            out.notes.append(check.note)
    return good


def read_checked(
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
            for path in same:
                rel = relative(path, base)
                out.cause(
                    f"{describe_file(rel)}: cannot be read as Parquet ({loaded.errors[first]})",
                    [rel],
                    _partitions(rel),
                )
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


# --------------------------------------------------------------------------------------------
# The record: receipts, tables that are not per card, the boards


def check_receipts(root: str, receipt_ids: Sequence[str]) -> Outcome:
    """Every receipt's bytes against its name; a receipt that is not as named is a cause: whatever
    was read from it is named under it."""
    base = record_path(root)
    store = Record(base).receipts
    out = Outcome()
    for receipt_id in receipt_ids:
        out.count("receipts")
        path = store.path_for(receipt_id)
        rel = relative(path, base)
        try:
            store.get(receipt_id)
            if not store.written_as_here(receipt_id):
                out.notes.append(
                    f"receipt {receipt_id}: its content, header and trailer are intact, but its deflate "
                    "stream is not the one this machine's zlib writes (another zlib, or a changed unused bit)"
                )
        except ReceiptError as exc:
            detail = str(exc).removeprefix(f"receipt {receipt_id} at {path}").lstrip(": ")
            out.cause(
                f"receipt {receipt_id} ({rel}): its bytes do not hash to its name: {detail}",
                [receipt_id, rel],
            )
        except Exception as exc:  # bytes that hash right but are not a receipt document
            out.cause(
                f"receipt {receipt_id} ({rel}): not a receipt document ({type(exc).__name__}: {exc})",
                [receipt_id, rel],
            )
    return out


def check_files(root: str, files: Sequence[str], prefix: str = "") -> Outcome:
    """Every row identifier of whole files, each read alone, after its bytes are checked against
    its ledger entry: the boards, and the partitioned tables of an arena whose audit leaves them to
    the runner. A file that is not as recorded, or cannot be decoded, is a cause."""
    base = record_path(root)
    out = Outcome()
    for file in files:
        path = base / file
        out.count("files")
        if not recorded([path], base, out):
            continue
        loaded = load([path])
        for bad, error in loaded.errors.items():
            rel = relative(bad, base)
            out.cause(
                f"{prefix}{describe_file(rel)}: cannot be read as Parquet ({error})", [rel], _partitions(rel)
            )
        found = partition_of(file)
        parts = Path(file).parts
        name = (
            f"{parts[2]} {found[0]} {found[1]}"
            if found and len(parts) >= 4 and parts[0] == "warehouse"
            else f"{prefix}{file}"
        )
        for group in loaded.groups:
            out.count("rows", group.height)
            out.problems += check_ids(group, lambda _, named=name: named)[1]
        for frame in loaded.empty.values():
            out.count("rows", frame.height)
    return out


def concat_readable(paths: Sequence[Path], base: Path) -> tuple[pl.DataFrame | None, list[Path]]:
    """The rows of every path whose bytes are as recorded; the paths that are not, or do not decode."""
    good = recorded(paths, base, Outcome())  # each file's own check names its problems
    loaded = load(list(good))
    frames = [g.drop(FILE_COLUMN) for g in loaded.groups] + list(loaded.empty.values())
    bad = [p for p in paths if p not in good] + list(loaded.errors)
    if not frames:
        return None, bad
    return pl.concat(frames, how="diagonal_relaxed"), bad


# --------------------------------------------------------------------------------------------
# The published site


def check_site_slice(site: str, file: str, offset: int, length: int) -> Outcome:
    """Identifiers of rows ``offset``…``offset + length`` of one download."""
    path = Path(site) / file
    out = Outcome()
    frame = scan_parquet(path, hive_partitioning=False).slice(offset, length).collect()
    frame = frame.with_columns(pl.lit(file).alias(FILE_COLUMN))
    out.count("rows", frame.height)
    out.problems += check_ids(frame, lambda f: f)[1]
    return out


def in_part(folder: str, function: Callable[..., Outcome], *args: Any) -> Outcome:
    """``function(*args)``, a task over the part of a site in ``folder`` (the part's files named from
    its own root), with its problems named from the site's root."""
    out = function(*args)
    if folder:
        out.problems = [f"{folder}/{problem}" for problem in out.problems]
    return out


def check_downloads(site: str, files: list[str], counted: str) -> Outcome:
    """Every row identifier of a board's Parquet downloads (the manifest vouches for their bytes), each
    file counted as ``counted``: an arena's site task."""
    out = Outcome()
    for file in files:
        try:
            rows = scan_parquet(Path(site) / file, hive_partitioning=False).select(pl.len()).collect().item()
        except DECODE_ERRORS as exc:
            out.problems.append(f"{file}: cannot be read as Parquet ({type(exc).__name__}: {exc})")
            continue
        out.merge(check_site_slice(site, file, 0, max(rows, 1)))
        out.count(counted)
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
    reading([])
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
                    names = (
                        ", ".join(relative(record_path(f), record_path(root)) for f in files) or "no file yet"
                    )
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
        initargs=(root, str(breadcrumbs), one_by_one, dict(os.environ)),
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
