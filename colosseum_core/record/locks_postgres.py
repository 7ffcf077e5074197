"""Record locks across hosts: PostgreSQL session advisory locks, for the production profile.

The file locks (``locks.py``) hold on one machine's disk. When runs on several hosts write one
record (two daemons, a daemon and a CLI run), the lock must live where all of them meet: the
instance's PostgreSQL database (``COLOSSEUM_POSTGRES_URL``). Each held lock is a session advisory
lock on a connection of its own, keyed by the first 8 bytes of SHA-256("colosseum-record-lock",
name) as a signed 64-bit integer.

- The server releases a session lock when its connection ends, so a holder that dies (killed, its
  host lost) never leaves a stale lock: once its TCP connection is gone, the next writer gets it.
- Within one process the lock is re-entrant for its owner (a run id), as the file locks are.
- Who holds a lock is written to ``colosseum_lock_holders`` (name, holder JSON) when it is taken,
  so a refused writer can say who: a courtesy for the message; the lock itself is the server's.

psycopg2 comes with the production extra (``dagster-postgres``); it is imported only here.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Hashable
from typing import Any
from urllib.parse import urlsplit

from colosseum_core.record.locks import Holder, LockBusy, WriterLocks, holder_line
from colosseum_core.settings import POSTGRES_URL_ENV

_POLL_S = 0.1
_CONNECT_TIMEOUT_S = 10
_HOLDERS = "colosseum_lock_holders"


class LockServerError(RuntimeError):
    """The locks' database cannot be reached or used; nothing was written."""


def advisory_key(name: str) -> int:
    digest = hashlib.sha256(b"colosseum-record-lock\x00" + name.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path}"  # never the password


class PostgresLocks(WriterLocks):
    """The record's writer locks as advisory locks in the database at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url

    def _connect(self) -> Any:
        try:
            import psycopg2
        except ImportError:
            raise LockServerError(
                "the record's locks are on PostgreSQL, and psycopg2 is not installed: "
                'pip install -e ".[production]"'
            ) from None
        try:
            connection = psycopg2.connect(self.url, connect_timeout=_CONNECT_TIMEOUT_S)
        except psycopg2.Error as exc:
            raise LockServerError(
                f"the record's locks are on PostgreSQL at {_where(self.url)} (${POSTGRES_URL_ENV}), "
                f"which did not answer: {str(exc).strip()}"
            ) from None
        connection.autocommit = True
        return connection

    def _try(self, connection: Any, name: str) -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", (advisory_key(name),))
            return bool(cursor.fetchone()[0])

    def holder(self, name: str) -> Holder | None:
        """Who holds ``name`` now, or None if nobody does."""
        connection = self._connect()
        try:
            if self._try(connection, name):
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", (advisory_key(name),))
                return None
            return self._read_holder(connection, name)
        finally:
            connection.close()

    def _key(self, name: str) -> Hashable:
        return (self.url, name)

    def _take(self, name: str, owner: str, purpose: str, wait_s: float) -> Any:
        connection = self._acquire(name, wait_s)
        try:
            self._write_holder(connection, name, owner, purpose)
        except BaseException:
            connection.close()
            raise
        return connection

    def _drop(self, handle: Any) -> None:
        handle.close()  # ending the session releases its advisory lock

    def _acquire(self, name: str, wait_s: float) -> Any:
        connection = self._connect()
        started = time.monotonic()
        try:
            while not self._try(connection, name):
                waited = time.monotonic() - started
                if waited >= wait_s:
                    raise LockBusy(name, self._read_holder(connection, name), wait_s)
                time.sleep(min(_POLL_S, max(wait_s - waited, 0.0)))
        except BaseException:
            connection.close()
            raise
        return connection

    @staticmethod
    def _ensure_table(cursor: Any) -> None:
        cursor.execute(f"CREATE TABLE IF NOT EXISTS {_HOLDERS} (name text PRIMARY KEY, holder text NOT NULL)")

    def _write_holder(self, connection: Any, name: str, owner: str, purpose: str) -> None:
        with connection.cursor() as cursor:
            self._ensure_table(cursor)
            cursor.execute(
                f"INSERT INTO {_HOLDERS} (name, holder) VALUES (%s, %s) "
                "ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder",
                (name, holder_line(owner, purpose)),
            )

    def _read_holder(self, connection: Any, name: str) -> Holder | None:
        with connection.cursor() as cursor:
            self._ensure_table(cursor)
            cursor.execute(f"SELECT holder FROM {_HOLDERS} WHERE name = %s", (name,))
            row = cursor.fetchone()
        return Holder.from_line(row[0] if row else None)
