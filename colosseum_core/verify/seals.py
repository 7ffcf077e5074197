"""Every seal and every missed record of every arena, checked the same way (``check_seals``).

A seal (``seals/<arena>/<noun>=<key>.json``, ``record.seals``) vouches for the exact bytes of its
partition's tables, so for each the runner checks, knowing no arena but what its ``ArenaRecord``
and ``SealingPolicy`` say:

- the document's bytes are the ones its ledger entry records (one that is not is still read, to
  name what it now says), and it parses as a seal of this partition (its format, its partition
  noun and key, the content identifier the policy names, a table -> SHA-256 map);
- it names at least one of the tables that seal a partition;
- every table it names has a file, and that file's bytes hash to exactly the named SHA-256 (the
  file is hashed here: a seal edited together with its ledger entry is still caught);
- every table of the partition that the policy seals and the partition has is named;
- a partition that has a table only its seal writes (a selection table) is sealed.

A missed record (``<noun>=<key>.missed.json``): its bytes and form the same way, it names its own
partition, the partition is not sealed too and has no selection table, and what overtook it is
sealed. What a seal's content identifier means (a forecast card's packet, a debate epoch's
manifest re-derived, an event's manifest) and what else a missed record must agree with are the
arena's, in its audit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colosseum_core.record.layout import ArenaRecord, Record
from colosseum_core.record.ledger import check_file, file_sha256
from colosseum_core.record.seals import MISSED_FORMAT, SEAL_FORMAT, SealingPolicy
from colosseum_core.record.storage import RecordPath, record_path
from colosseum_core.record.tables import RecordTables
from colosseum_core.verify.causes import partition_of
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import recorded, relative

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_TABLE = re.compile(r"^[a-z][a-z0-9_]*$")
_KEY = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_.-]*$")


def arena_of(name: str, partition: str, sealing: SealingPolicy) -> ArenaRecord:
    """The arena as a task carries it across a process boundary (an ``ArenaRecord``'s views do not
    pickle, and its paths need only these)."""
    return ArenaRecord(name=name, partition=partition, sealing=sealing)


def seal_document(path: RecordPath) -> dict[str, Any] | None:
    """A seal or missed document, parsed, if its bytes are the recorded ones; None otherwise (the
    runner's seal check names why). For an arena's audit, which checks what the document means."""
    if not path.exists() or not check_file(path).ok:
        return None
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def check_seals(
    root: str, name: str, partition: str, sealing: SealingPolicy, keys: Sequence[str], strays: Sequence[str]
) -> Outcome:
    """The seals and missed records of ``keys`` of one arena, and its ``strays`` (files of its seals
    folder that are neither)."""
    base = record_path(root)
    arena = arena_of(name, partition, sealing)
    record = Record(base)
    out = Outcome()
    for stray in strays:
        out.problems.append(
            f"{stray}: neither a seal nor a missed record of {name} (they are {partition}=<key>.json and "
            f"{partition}=<key>.missed.json)"
        )
    for key in keys:
        _check_partition(record, arena, key, base, out)
    return out


def _check_partition(record: Record, arena: ArenaRecord, key: str, base: Path, out: Outcome) -> None:
    registry, tables, policy, noun = record.seals(arena), record.tables(arena), arena.sealing, arena.partition
    seal_path, missed_path = registry.path(key), registry.missed_path(key)
    where, missed_where = relative(seal_path, base), relative(missed_path, base)
    seal = _document(seal_path, SEAL_FORMAT, base, out)
    missed = _document(missed_path, MISSED_FORMAT, base, out)
    selection = [t for t in policy.selection_tables if tables.exists(t, key)]
    if seal is not None:
        out.count_for(arena.name, "seals")
        _check_seal(tables, arena, key, seal, where, base, out)
    elif not seal_path.exists():
        for table in selection:
            out.problems.append(
                f"{relative(tables.path(table, key), base)}: {table} of {noun} {key} is written, but the "
                f"{noun} has no seal ({where}); only its seal writes it"
            )
    if missed is None:
        return
    out.count_for(arena.name, "missed")
    if missed.get(noun) != key:
        out.problems.append(f"{missed_where}: names {noun} {missed.get(noun)!r}, not {key}")
    if seal_path.exists():
        out.problems.append(
            f"{missed_where}: {noun} {key} is sealed too ({where}); a sealed {noun} is never missed"
        )
    elif selection:
        out.problems.append(
            f"{missed_where}: {noun} {key} was missed, yet it has {', '.join(selection)}, "
            "which only a seal writes"
        )
    later = missed.get("overtaken_by")
    if not (isinstance(later, str) and _KEY.match(later) and registry.path(later).exists()):
        out.problems.append(f"{missed_where}: overtaken by {noun} {later!r}, which is not sealed")


def _document(path: RecordPath, fmt: str, base: Path, out: Outcome) -> dict[str, Any] | None:
    """A seal or missed document, its bytes checked against its ledger entry first. Unlike a table
    file, one whose bytes are not the recorded ones is still read (it is a small JSON document, safe
    to parse), so that what it now says is checked too and named under its ledger problem."""
    if not path.exists():
        return None
    recorded([path], base, out)
    rel = relative(path, base)
    try:
        doc = json.loads(path.read_bytes())
        if not isinstance(doc, dict) or doc.get("format") != fmt:
            raise ValueError(f"format {doc.get('format') if isinstance(doc, dict) else doc!r} is not {fmt!r}")
    except (OSError, ValueError) as exc:
        found = partition_of(rel)
        out.cause(f"{rel}: not a readable {fmt} document ({exc})", [rel], [found] if found else [])
        return None
    return doc


def _check_seal(
    tables: RecordTables,
    arena: ArenaRecord,
    key: str,
    doc: dict[str, Any],
    where: str,
    base: Path,
    out: Outcome,
) -> None:
    policy, noun = arena.sealing, arena.partition
    if doc.get(noun) != key:
        out.problems.append(f"{where}: names {noun} {doc.get(noun)!r}, not {key}")
    content = doc.get(policy.content_id_field)
    if not isinstance(content, str) or not content:
        out.problems.append(
            f"{where}: names no {policy.content_id_field} (the {policy.content_noun} it vouches for)"
        )
    named = doc.get("tables")
    if not isinstance(named, dict) or not all(
        isinstance(t, str) and _TABLE.match(t) and isinstance(h, str) and _SHA256.match(h)
        for t, h in named.items()
    ):
        out.problems.append(f"{where}: its tables are not a map of table names to SHA-256 hashes")
        return
    if not set(named) & set(policy.sealing_tables):
        out.problems.append(
            f"{where}: names none of the tables that seal a {noun} ({', '.join(policy.sealing_tables)})"
        )
    for table, sealed in sorted(named.items()):
        path = tables.path(table, key)
        file = relative(path, base)
        if not path.exists():
            out.problems.append(f"{where}: sealed table {table} of {noun} {key} is missing ({file})")
            continue
        actual = file_sha256(path)
        if actual != sealed:
            out.problems.append(
                f"{file}: SHA-256 {actual} does not match the seal {where} ({sealed}): {table} of "
                f"{noun} {key} is not the table its seal vouches for"
            )
    for table in policy.sealed_tables:
        if table not in named and tables.exists(table, key):
            out.problems.append(
                f"{relative(tables.path(table, key), base)}: {table} of {noun} {key} is sealed with "
                f"its {noun}, but its seal {where} does not name it"
            )
