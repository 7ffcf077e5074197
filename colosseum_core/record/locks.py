"""Record locks: one writer at a time for each arena's partition (and for the record-wide tables).

Dagster's run queue keeps one *queued* run per card, but a CLI run, a test, or a run launched past
the queue would write the same partition at once, and every guard that is "check, then write"
is then a race. So every writer holds an OS file lock, ``<data>/locks/<name>.lock``, for as long as
it writes: a Dagster run holds its card's lock from its first step to its last, whatever started it.

- ``flock`` locks belong to an open file, so the kernel releases them when the holder dies: a
  killed run never leaves a stale lock behind, and nothing ever has to be "broken".
- Within one process a lock is re-entrant for the same *owner* (a run id): the run's resources and
  its IO manager take it without deadlocking on each other, while a second run in the same
  process (another thread) is refused like any other process.
- The lock file holds a line naming the holder (pid, host, owner, what it is doing, since when),
  so the one refused can say who holds the card. That line is a courtesy for the message; the
  lock itself is the kernel's.

Lock files are not part of the record: ``colosseum verify`` and the board never read them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
import socket
import threading
import time
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

LOCKS_DIRNAME = "locks"
_POLL_S = 0.05


def partition_lock(noun: str, partition: str) -> str:
    """The lock every writer of a partition holds, by the arena's partition noun (``card=<key>``; the
    nouns of the arenas differ, so their partitions never share a lock)."""
    return f"{noun}={partition}"


@dataclasses.dataclass(frozen=True)
class Holder:
    """Who holds a lock, as it wrote itself down when it took the lock."""

    pid: int | None
    host: str | None
    owner: str | None
    purpose: str | None
    since: str | None

    @classmethod
    def from_line(cls, line: str | None) -> Holder | None:
        """The holder a lock's line names (JSON: pid, host, owner, purpose, since), None if unreadable."""
        try:
            doc: Any = json.loads(line or "null") or {}
        except ValueError:
            return None
        if not isinstance(doc, dict):
            return None
        pid = doc.get("pid")
        return cls(
            pid=pid if isinstance(pid, int) else None,
            host=doc.get("host"),
            owner=doc.get("owner"),
            purpose=doc.get("purpose"),
            since=doc.get("since"),
        )

    def describe(self) -> str:
        parts = [self.purpose or "a writer"]
        if self.owner:
            parts.append(f"run {self.owner}")
        if self.pid is not None:
            parts.append(f"pid {self.pid}" + (f" on {self.host}" if self.host else ""))
        if self.since:
            parts.append(f"since {self.since}")
        return ", ".join(parts)


class LockBusy(Exception):
    """Another writer holds the lock; nothing was written."""

    def __init__(self, name: str, holder: Holder | None, waited_s: float) -> None:
        self.name = name
        self.holder = holder
        who = holder.describe() if holder else "another writer (it did not say who)"
        waited = f" after waiting {waited_s:g} s" if waited_s > 0 else ""
        super().__init__(f"{name} is being written by {who}; refused{waited}, nothing was written")


@dataclasses.dataclass
class _Held:
    handle: Any  # what the backend releases: a file descriptor, a database session
    owner: str
    count: int


# Locks this process holds, by backend and name: re-entrancy for their owner, refusal for anyone else.
_HELD: dict[Hashable, _Held] = {}
_REGISTRY = threading.Lock()


def _read_holder(path: Path) -> Holder | None:
    try:
        return Holder.from_line(path.read_text())
    except OSError:
        return None


def holder_line(owner: str, purpose: str) -> str:
    """What a writer says of itself when it takes a lock: this process, its host, its owner."""
    return json.dumps(
        {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "owner": owner,
            "purpose": purpose,
            "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
    )


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


class WriterLocks:
    """One writer at a time per name, re-entrant for an owner within this process, over a backend that
    takes and drops the lock between processes: files on one disk (``RecordLocks``) or PostgreSQL's
    advisory locks across hosts (``locks_postgres.PostgresLocks``). A backend gives ``_take`` (wait up
    to ``wait_s``, else raise ``LockBusy``), ``_drop`` and ``holder``."""

    def holder(self, name: str) -> Holder | None:
        """Who holds ``name`` now, or None if nobody does."""
        raise NotImplementedError

    def _key(self, name: str) -> Hashable:
        raise NotImplementedError

    def _take(self, name: str, owner: str, purpose: str, wait_s: float) -> Any:
        raise NotImplementedError

    def _drop(self, handle: Any) -> None:
        raise NotImplementedError

    def held_by(self, name: str) -> str | None:
        """The owner holding ``name`` in this process, if any."""
        with _REGISTRY:
            held = _HELD.get(self._key(name))
            return held.owner if held else None

    @contextlib.contextmanager
    def hold(self, name: str, *, owner: str, purpose: str, wait_s: float = 0.0) -> Iterator[None]:
        """Hold ``name`` for the block; re-entrant for ``owner``. Raises ``LockBusy`` if another
        writer holds it for longer than ``wait_s`` seconds."""
        key = self._key(name)
        with _REGISTRY:
            held = _HELD.get(key)
            if held is not None and held.owner == owner:
                held.count += 1
        if held is None or held.owner != owner:
            handle = self._take(name, owner, purpose, wait_s)
            with _REGISTRY:
                _HELD[key] = _Held(handle=handle, owner=owner, count=1)
        try:
            yield
        finally:
            self._release(key)

    def _release(self, key: Hashable) -> None:
        with _REGISTRY:
            held = _HELD[key]
            held.count -= 1
            if held.count:
                return
            del _HELD[key]
        self._drop(held.handle)


class RecordLocks(WriterLocks):
    """The lock files under ``root`` (normally ``<data>/locks``)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, name: str) -> Path:
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"lock name {name!r} is not a safe file name")
        return self.root / f"{name}.lock"

    def holder(self, name: str) -> Holder | None:
        """Who holds ``name`` now, or None if nobody does."""
        path = self.path(name)
        if not path.exists():
            return None
        fd = os.open(path, os.O_RDONLY)
        try:
            if _try_flock(fd):
                fcntl.flock(fd, fcntl.LOCK_UN)
                return None
            return _read_holder(path)
        finally:
            os.close(fd)

    def _key(self, name: str) -> Hashable:
        return str(self.path(name).resolve())

    def _take(self, name: str, owner: str, purpose: str, wait_s: float) -> int:
        path = self.path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = self._acquire(path, name, wait_s)
        try:
            self._write_holder(fd, owner, purpose)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _drop(self, handle: int) -> None:
        # Closing the file drops the flock; the holder line stays, but is only read by a writer that
        # found the lock taken, so a stale line is never shown.
        os.close(handle)

    @staticmethod
    def _acquire(path: Path, name: str, wait_s: float) -> int:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        started = time.monotonic()
        try:
            while not _try_flock(fd):
                waited = time.monotonic() - started
                if waited >= wait_s:
                    raise LockBusy(name, _read_holder(path), wait_s)
                time.sleep(min(_POLL_S, max(wait_s - waited, 0.0)))
        except BaseException:
            os.close(fd)
            raise
        return fd

    @staticmethod
    def _write_holder(fd: int, owner: str, purpose: str) -> None:
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder_line(owner, purpose).encode() + b"\n", 0)
