"""Journals: append-only logs of intentions, written (and fsynced) before the act they announce.

The answers of a card are one reply per seat, and a call that may have reached a model must never
be made twice. So before each request to a seat the step appends an *ask* entry to the card's
journal and forces it to disk, and after the reply's receipt is stored it appends a *reply* entry
naming the receipt. Whatever kills the run, the journal says which seats were asked, which replied
and with which receipt, and which were asked and never heard from.

Each line is the canonical JSON (sorted keys, no spaces, UTF-8) of one entry with ``seq`` (1, 2, …),
``prev`` (the previous line's ``sha256``, null for the first) and ``sha256``, the SHA-256 of the
line's canonical JSON without ``sha256``. So any changed byte of a line, a line removed from the
middle or two lines swapped is named by ``check``. A last line without its newline is a write the
crash interrupted: it was never forced to disk, so the request it announced was never sent; it is
ignored, and the next append cuts it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from colosseum_core.record.storage import RecordPath, is_remote, put_object, read_bytes, record_path

RESERVED = ("seq", "prev", "sha256")


class JournalError(Exception):
    """A journal line that is not what was written: unreadable, altered, or out of its chain."""


def _canonical(entry: Mapping[str, Any]) -> bytes:
    return json.dumps(entry, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def _seal_line(entry: Mapping[str, Any]) -> bytes:
    digest = hashlib.sha256(_canonical(entry)).hexdigest()
    return _canonical({**entry, "sha256": digest})


def _sha_of(entry: Mapping[str, Any]) -> str:
    return json.loads(_seal_line(entry))["sha256"]


def read_journal(path: RecordPath, name: str | None = None) -> tuple[list[dict[str, Any]], bool]:
    """The journal's entries, each checked, and whether a torn last line was ignored.

    Raises ``JournalError`` naming the file (as ``name``, default its path) and line of the first line
    that is not as written.
    """
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        return [], False
    lines = data.split(b"\n")
    torn = lines[-1] != b""
    entries: list[dict[str, Any]] = []
    prev: str | None = None
    for number, line in enumerate(lines[:-1], start=1):
        where = f"{name or path} line {number}"
        try:
            entry = json.loads(line)
        except (UnicodeDecodeError, ValueError) as exc:
            raise JournalError(f"{where}: not JSON ({exc})") from None
        if not isinstance(entry, dict) or not all(k in entry for k in RESERVED):
            raise JournalError(f"{where}: not a journal entry")
        body = {k: v for k, v in entry.items() if k != "sha256"}
        if _seal_line(body) != line:
            raise JournalError(f"{where}: its bytes are not the entry that was written (hash or form)")
        if entry["seq"] != number or entry["prev"] != prev:
            raise JournalError(f"{where}: out of sequence (seq {entry['seq']}, expected {number})")
        prev = entry["sha256"]
        entries.append(body)
    return entries, torn


class Journal:
    """One append-only journal file. Appends from threads of one process are serialised here; the
    caller holds the record lock that makes this process the file's only writer."""

    def __init__(self, path: Path | str | RecordPath) -> None:
        self.path = record_path(path)
        self._lock = threading.Lock()
        # (the file's size, its entries, the last entry's sha256) after this object's last append: a
        # journal of many entries (a chess event's moves) is then not re-read at every append. Any other
        # size means the file is not as this object left it, and it is read again.
        self._tail: tuple[int, int, str | None] | None = None

    def entries(self) -> list[dict[str, Any]]:
        return read_journal(self.path)[0]

    def append(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """Append ``entry`` and force it to disk before returning it (with its ``seq`` and ``prev``)."""
        if any(k in entry for k in RESERVED):
            raise ValueError(f"a journal entry may not set {', '.join(RESERVED)}")
        with self._lock:
            size = self.path.stat().st_size if self.path.exists() else None
            if self._tail is not None and size == self._tail[0]:
                entries, torn = [], False
                count, prev = self._tail[1], self._tail[2]
            else:
                entries, torn = read_journal(self.path)
                count, prev = len(entries), (_sha_of(entries[-1]) if entries else None)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            body = {**entry, "seq": count + 1, "prev": prev}
            line = _seal_line(body) + b"\n"
            if is_remote(self.path):
                # No append in a bucket: the object is put again whole, old lines and the new one.
                fast = self._tail is not None and size == self._tail[0]
                whole = read_bytes(self.path) if fast else b"".join(_seal_line(e) + b"\n" for e in entries)
                put_object(self.path, whole + line)
                self._tail = (len(whole) + len(line), count + 1, json.loads(line)["sha256"])
                return body
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
            try:
                if torn:
                    # The torn line was never on disk for good: cut it off, then append after the
                    # last whole line.
                    keep = sum(len(_seal_line(e)) + 1 for e in entries)
                    os.ftruncate(fd, keep)
                end = os.lseek(fd, 0, os.SEEK_END)
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            self._tail = (end + len(line), count + 1, json.loads(line)["sha256"])
            if count == 0:
                # The file's directory entry must be on disk too, or a crash could lose the file.
                dir_fd = os.open(self.path.parent, os.O_RDONLY)
                try:
                    os.fsync(dir_fd)
                finally:
                    os.close(dir_fd)
            return body
