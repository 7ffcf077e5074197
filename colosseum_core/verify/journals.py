"""Every journal of every arena, checked the same way (``check_journals``).

A journal (``journal/<arena>/<journal>/<noun>=<key>.jsonl``, ``record.journal``) is an append-only
chain of lines: each line is the canonical JSON of its entry, numbered (``seq``), linked to the one
before (``prev``) and hashed (``sha256``). Journals have no ledger entry (they are appended to, not
written whole): the chain is their check. For each journal file of each arena the runner checks:

- it is named as a journal of that arena's partitions;
- every line parses and is the entry that was written, in its place in the chain (a flipped byte,
  a line removed from the middle or two lines swapped is named with its line); a last line cut
  short by a crash is a note (it was never forced to disk, so what it announced never happened);
- every receipt a line names (``receipt_id``, ``receipt_ids``, at any depth) is in the store;
- in a journal of calls (``providers.call.CallJournal``: the forecast's answers, the events' asks,
  whose audits name the fields that key one call), every reply answers a request the journal asked
  before, once, and a call's requests are asked in increasing order.

That the recorded tables say what the journal says (the forecast's answers replayed from it, the
debate's games against the games journalled) is the arena's, in its audit; a journal its arena
does not describe is still checked as above, and noted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from colosseum_core.record.journal import JournalError, read_journal
from colosseum_core.record.layout import Record
from colosseum_core.record.storage import record_path
from colosseum_core.verify.causes import partition_of
from colosseum_core.verify.report import Outcome

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_KEY = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_.-]*$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def named_receipts(value: Any) -> Iterator[str]:
    """Every receipt id an entry names, at any depth (``receipt_id``: one; ``receipt_ids``: a list)."""
    if isinstance(value, Mapping):
        for field, inner in value.items():
            if field == "receipt_id" and inner is not None:
                yield inner
            elif field == "receipt_ids" and isinstance(inner, list):
                yield from (r for r in inner if r is not None)
            else:
                yield from named_receipts(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from named_receipts(inner)


def check_journals(
    root: str,
    arena: str,
    noun: str,
    files: Sequence[str],
    calls: Mapping[str, tuple[str, ...]],
    check_receipts: bool,
) -> Outcome:
    """The journal ``files`` (relative to the record) of ``arena``, whose partitions are ``noun``s;
    ``calls``: the journals the arena's audit describes, each with the fields that key one call (none:
    not a journal of calls); ``check_receipts``: look for every receipt a line names."""
    base = record_path(root)
    receipts = Record(base).receipts
    out = Outcome()
    for file in files:
        parts = Path(file).parts
        key = parts[3].removeprefix(f"{noun}=").removesuffix(".jsonl") if len(parts) == 4 else ""
        if (
            len(parts) != 4
            or not _NAME.match(parts[2])
            or not parts[3].startswith(f"{noun}=")
            or not parts[3].endswith(".jsonl")
            or not _KEY.match(key)
        ):
            out.problems.append(
                f"{file}: not a journal of {arena} (they are journal/{arena}/<journal>/{noun}=<key>.jsonl)"
            )
            continue
        journal = parts[2]
        try:
            entries, torn = read_journal(base / file, file)
        except JournalError as exc:
            partition = partition_of(file)
            out.cause(str(exc), [file], [partition] if partition else [])
            continue
        out.count_for(arena, "journals")
        out.count_for(arena, "journal_entries", len(entries))
        if torn:
            out.notes.append(
                f"{file}: a last line cut short by a crash was ignored (it was never on disk for good)"
            )
        if journal not in calls:
            out.notes.append(
                f"{file}: a journal {arena}'s audit does not describe; its lines and receipts were checked"
            )
        if check_receipts:
            for entry in entries:
                for receipt_id in dict.fromkeys(named_receipts(entry)):
                    if not (isinstance(receipt_id, str) and _SHA256.match(receipt_id)):
                        out.problems.append(
                            f"{file} line {entry['seq']}: names {receipt_id!r}, not a receipt id"
                        )
                    elif receipt_id not in receipts:
                        line = f"{file} line {entry['seq']}"
                        out.problems.append(f"{line}: names receipt {receipt_id}, which is not in receipts/")
        fields = calls.get(journal, ())
        if fields:
            out.problems += call_problems(file, entries, fields)
    return out


def call_problems(file: str, entries: Sequence[Mapping[str, Any]], fields: tuple[str, ...]) -> list[str]:
    """What breaks the asking rule in a journal of calls: a reply to a request never asked, a second
    reply to one request, a request asked again or out of order."""
    problems: list[str] = []
    asked: dict[tuple[Any, ...], list[Any]] = {}
    replied: set[tuple[tuple[Any, ...], Any]] = set()
    for entry in entries:
        event = entry.get("event")
        if event not in ("ask", "reply"):
            continue
        call = tuple(entry.get(f) for f in fields)
        request = entry.get("request")
        named = ", ".join(f"{f} {v}" for f, v in zip(fields, call, strict=True))
        where = f"{file} line {entry['seq']}"
        requests = asked.setdefault(call, [])
        if event == "ask":
            if requests and not (isinstance(request, int) and request > requests[-1]):
                problems.append(f"{where}: asks request {request!r} of {named} after request {requests[-1]}")
            requests.append(request)
        elif request not in requests:
            problems.append(
                f"{where}: a reply to request {request!r} of {named}, which the journal never asked"
            )
        elif (call, request) in replied:
            problems.append(f"{where}: a second reply to request {request!r} of {named}")
        else:
            replied.add((call, request))
    return problems
