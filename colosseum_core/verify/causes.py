"""Causes first: the problems that follow from one broken receipt or file, listed under it.

One flipped byte in one sweep page's receipt makes its card's copy, verdicts, questions and packet
re-derive differently: seventy problems, and the one that explains them is among them. So the
checks that can find a cause (a receipt whose bytes do not hash to its name, a file whose bytes are
not the ones its ledger records or that no decoder reads, a journal whose chain is broken) record
it as one (``Outcome.cause``), and the report groups under each cause every other problem that
names it (its receipt id or its path) or that is about a partition that reads it (``card
2026-11-20-1000``, ``epoch 0000060``). Nothing is dropped: a problem that follows from no cause is
listed on its own, and every problem stays in the report's list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import polars as pl

from colosseum_core.record.layout import JOURNAL, ArenaRecord, Record
from colosseum_core.record.ledger import check_file
from colosseum_core.verify.report import Cause, CauseGroup

_PARTITION = re.compile(r"^([a-z][a-z0-9_]*)=([0-9A-Za-z][0-9A-Za-z_.-]*?)(?:\.missed)?(?:\.jsonl?|)$")
_ID = re.compile(r"\b[0-9a-f]{64}\b")


def partition_of(relative: str) -> tuple[str, str] | None:
    """The (noun, key) of a record file's partition, from its path (``warehouse/forecast/answers/
    card=2026-11-20-1000/data.parquet``, ``seals/debate/epoch=0000060.json``,
    ``journal/events/soo_replies/event=soo-1.jsonl``); None for a file of no partition."""
    for part in reversed(Path(relative).parts):
        found = _PARTITION.match(part)
        if found:
            return found.group(1), found.group(2)
    return None


def _mentions(noun: str, key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.=-]){re.escape(noun)} {re.escape(key)}(?![\w.-])")


def _merged(causes: Iterable[Cause], problems: set[str]) -> list[Cause]:
    """One cause per problem line (two tasks may find the same), in the order first found."""
    by_problem: dict[str, Cause] = {}
    for cause in causes:
        if cause.problem not in problems:
            continue
        known = by_problem.get(cause.problem)
        if known is None:
            by_problem[cause.problem] = cause
        else:
            by_problem[cause.problem] = Cause(
                cause.problem,
                tuple(dict.fromkeys([*known.names, *cause.names])),
                tuple(dict.fromkeys([*known.partitions, *cause.partitions])),
            )
    return sorted(by_problem.values(), key=lambda c: c.problem)


def grouped(problems: Sequence[str], causes: Iterable[Cause]) -> tuple[list[str], list[CauseGroup]]:
    """Every problem once, causes first (each followed, in ``CauseGroup``, by what follows from it),
    then the problems that follow from no cause, then those that do, each sorted."""
    unique = sorted(set(problems))
    found = _merged(causes, set(unique))
    roots = {c.problem for c in found}
    tests = [
        (cause, [n for n in cause.names if n], [_mentions(noun, key) for noun, key in cause.partitions])
        for cause in found
    ]
    downstream: dict[str, list[str]] = {c.problem: [] for c in found}
    alone: list[str] = []
    for line in unique:
        if line in roots:
            continue
        owner = next(
            (
                cause.problem
                for cause, names, patterns in tests
                if any(n in line for n in names) or any(p.search(line) for p in patterns)
            ),
            None,
        )
        if owner is None:
            alone.append(line)
        else:
            downstream[owner].append(line)
    groups = [
        CauseGroup(c.problem, tuple(downstream[c.problem]), tuple(f"{n} {k}" for n, k in c.partitions))
        for c in found
    ]
    ordered = [c.problem for c in found] + alone + [line for g in groups for line in g.downstream]
    return ordered, groups


def receipt_ids_in(cause: Cause) -> list[str]:
    return [n for n in cause.names if _ID.fullmatch(n)]


def partitions_naming(
    root: Path, arenas: Sequence[ArenaRecord], receipt_ids: set[str]
) -> Mapping[str, list[tuple[str, str]]]:
    """For each of ``receipt_ids``, the partitions whose tables or journals name it.

    Run only when a receipt is broken, so it reads every string column of every partition's files
    (those whose bytes are as recorded: the others are causes of their own) without slowing a clean
    record's audit.
    """
    record = Record(root)
    found: dict[str, list[tuple[str, str]]] = {r: [] for r in receipt_ids}
    for arena in arenas:
        prefix = f"{arena.partition}="
        for path in sorted(record.tables(arena).root.glob(f"*/{prefix}*/*.parquet")):
            key = path.parent.name.removeprefix(prefix)
            if not check_file(path).ok:
                continue
            try:
                schema = pl.read_parquet_schema(path)
                columns = [
                    name
                    for name, dtype in schema.items()
                    if dtype == pl.String or (isinstance(dtype, pl.List) and dtype.inner == pl.String)
                ]
                if not columns:
                    continue
                frame = pl.read_parquet(path, columns=columns)
            except Exception:
                continue
            named = set()
            for column in columns:
                values = frame[column].explode() if frame[column].dtype != pl.String else frame[column]
                named |= set(values.drop_nulls().to_list()) & receipt_ids
            for receipt_id in named:
                found[receipt_id].append((arena.partition, key))
        journals = record.root / JOURNAL / arena.name
        for path in sorted(journals.rglob(f"{prefix}*.jsonl")) if journals.is_dir() else []:
            text = path.read_text(errors="replace")
            key = path.name.removeprefix(prefix).removesuffix(".jsonl")
            for receipt_id in receipt_ids:
                if receipt_id in text:
                    found[receipt_id].append((arena.partition, key))
    return {r: list(dict.fromkeys(p)) for r, p in found.items()}
