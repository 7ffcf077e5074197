"""Sealed until revealed, in the record too (CHALLENGE-COMMIT-2): a table's secret fields, encrypted.

Before a challenge event's reveal, whoever can read its record (a shared bucket, an operator, a
backup) must see commitments, not tasks. So every table written before the reveal keeps in the clear
only the fields that say who was asked what and how the call went (``public``); every other field of
a row is one canonical JSON object, encrypted into the row's ``sealed`` field under the event's key:

    sealed = base64( AES-SIV-512( key, canonical JSON of the row's other fields,
                                  AD = [ "colosseum/challenge-sealed", table, canonical JSON of the
                                         row's public fields ] ) )

- AES-SIV (RFC 5297) is deterministic authenticated encryption: the same row under the same key
  seals to the same bytes on every machine, so a table re-derived by ``colosseum verify`` seals to
  exactly the recorded bytes, and a changed byte of either part of a row (or a row moved to another
  table) no longer opens. Only two byte-identical rows seal alike, and a row names its own task.
- The key (64 bytes, drawn once per event, injected) waits beside the salts in the private key
  store until the reveal, which publishes it (``challenge_key``); its SHA-256 is in the commitments
  document signed before anyone solves, so the key the reveal publishes is the one that sealed.

The arena's own phases open what they sealed with the private key; after the reveal anyone opens it
with the published one (``open_frame``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import polars as pl
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV

from colosseum_core.record.identifiers import ID_FIELD, canonical_json, with_ids

ALGORITHM: Final = "AES-SIV-512"
KEY_BYTES: Final = 64
SEALED_FIELD: Final = "sealed"
_DOMAIN: Final = b"colosseum/challenge-sealed"


class SealingError(ValueError):
    """A key or a sealed row that cannot be used; names the table, the row and what does not hold."""


def draw_key(source: Callable[[int], bytes]) -> bytes:
    """A new event key from ``source`` (``os.urandom`` in production, fixed bytes in tests)."""
    return check_key(source(KEY_BYTES))


def check_key(key: bytes) -> bytes:
    if not isinstance(key, bytes | bytearray) or len(key) != KEY_BYTES:
        size = len(key) if isinstance(key, bytes | bytearray) else type(key).__name__
        raise SealingError(f"an event's sealing key is {KEY_BYTES} bytes ({ALGORITHM}), not {size}")
    return bytes(key)


def key_sha256(key: bytes) -> str:
    return hashlib.sha256(check_key(key)).hexdigest()


def _associated(table: str, public: Mapping[str, Any]) -> list[bytes]:
    return [_DOMAIN, table.encode("utf-8"), canonical_json(public)]


def seal_frame(frame: pl.DataFrame, table: str, key: bytes, public: Sequence[str]) -> pl.DataFrame:
    """``frame`` with every field but ``public`` sealed into ``sealed``, its row ids computed again."""
    cipher = AESSIV(check_key(key))
    secret = [c for c in frame.columns if c not in public and c != ID_FIELD]
    kept = [c for c in frame.columns if c in public]
    # One encryption per row: a cipher is no polars expression, and these tables hold hundreds of rows.
    sealed = [
        base64.b64encode(
            cipher.encrypt(
                canonical_json({c: row[c] for c in secret}), _associated(table, {c: row[c] for c in kept})
            )
        ).decode("ascii")
        for row in frame.iter_rows(named=True)
    ]
    return with_ids(
        frame.select(kept).with_columns(pl.Series(SEALED_FIELD, sealed, dtype=pl.String))
        if frame.height
        else frame.select(kept).with_columns(pl.lit(None, dtype=pl.String).alias(SEALED_FIELD))
    )


def open_frame(
    frame: pl.DataFrame, table: str, key: bytes, schema: Mapping[str, pl.DataType], *, where: str
) -> pl.DataFrame:
    """The table ``frame`` sealed: every row opened, in ``schema``'s columns, its row ids computed again.
    ``SealingError`` names the first row that does not open (``where`` names the table's partition)."""
    if SEALED_FIELD not in frame.columns:
        raise SealingError(f"{table} {where}: has no {SEALED_FIELD} field, so it was not sealed")
    cipher = AESSIV(check_key(key))
    kept = [c for c in frame.columns if c not in (ID_FIELD, SEALED_FIELD)]
    rows = []
    for index, row in enumerate(frame.iter_rows(named=True)):
        public = {c: row[c] for c in kept}
        try:
            plain = cipher.decrypt(
                base64.b64decode(row[SEALED_FIELD] or "", validate=True), _associated(table, public)
            )
        except (InvalidTag, binascii.Error, ValueError):
            named = row.get(ID_FIELD) or index
            raise SealingError(
                f"{table} {where} row {named}: its {SEALED_FIELD} field does not open under the event's "
                f"key with the row's public fields ({ALGORITHM}): it was altered, or sealed otherwise"
            ) from None
        rows.append({**public, **json.loads(plain)})
    for row in rows[:1]:
        missing, extra = [c for c in schema if c not in row], [c for c in row if c not in schema]
        if missing or extra:
            raise SealingError(
                f"{table} {where}: its opened rows have not the table's fields (missing "
                f"{', '.join(missing) or 'none'}; not in the table {', '.join(extra) or 'none'})"
            )
    return with_ids(pl.DataFrame(rows, schema=dict(schema)))
