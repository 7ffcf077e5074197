"""COLOSSEUM-SIGNING-1 checked for a whole partition at the speed of the signatures themselves, for any
arena (its ``RowSigning`` names the columns).

``signing.verify_signed_rows`` is the reference. It recomputes each record's id with the pure-Python
RFC 8785 canonicaliser and parses every public key afresh for every signature; over a million rows
those costs exceed the Ed25519 verifications. Here the ids come from the batch computation the
identifier check already made, keys are parsed once per process and cached by key id, and each
partition's keys in force are chosen once. The rules are the reference's: the record id is the
content without ``id`` and the signature envelope; the signer's key and the arena key are those in
force on the partition's date; the envelope names those keys; the signer signs ``answer_message(id)``
and the arena countersigns ``countersign_message(id, signature)``; a signer with a public key on the
partition has a record.

When a partition has any problem, the reference itself is run on it and its lines are reported, so
the wording an auditor sees is the reference's and a fast-path slip could only ever cost speed.
"""

from __future__ import annotations

import binascii
import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.trust.keys import ARENA, PublicKeyRecord, SigningError, b64url, key_in_force
from colosseum_core.trust.signing import (
    RECORD_ID_COLUMN,
    SIGNATURE_COLUMNS,
    SIGNING_SCHEME,
    RowSigning,
    answer_message,
    countersign_message,
    verify_signed_rows,
)

_SIGNATURE_BYTES = 64


@dataclasses.dataclass(frozen=True)
class _Key:
    """A public key with its id and key object worked out once (each costs a decode and a hash)."""

    name: str
    key_id: str
    public: Ed25519PublicKey


_KEYS: dict[tuple[str, str], _Key] = {}  # (name, public key text) -> key, per process


def _key(record: PublicKeyRecord) -> _Key:
    found = _KEYS.get((record.name, record.public_key))
    if found is None:
        found = _KEYS[(record.name, record.public_key)] = _Key(record.name, record.key_id, record.public())
    return found


def parse_public_keys(rows: pl.DataFrame) -> tuple[list[PublicKeyRecord], list[str]]:
    """The card's public keys, and a line for each row that is not a usable key."""
    records: list[PublicKeyRecord] = []
    problems: list[str] = []
    for row in rows.iter_rows(named=True):
        try:
            records.append(PublicKeyRecord.from_row(row))
        except Exception as exc:  # one bad key row must not hide the rest of the card's problems
            problems.append(f"public key row {row.get(ID_FIELD)} ({row.get('name')}) is unusable: {exc}")
    return records, problems


_SIGNATURE_TEXT = 86  # unpadded base64url of 64 bytes


def _decode(text: Any) -> bytes | None:
    """``b64url_decode`` for a signature, accepting exactly what it accepts, at twice its speed.

    Decoding leniently and then requiring the canonical re-encoding to be the text itself admits
    only alphabet characters in canonical form: the strict decoder's rule.
    """
    if not isinstance(text, str) or len(text) != _SIGNATURE_TEXT:
        return None
    try:
        raw = binascii.a2b_base64(text.replace("-", "+").replace("_", "/") + "==")
    except (binascii.Error, ValueError):
        return None
    if len(raw) != _SIGNATURE_BYTES or b64url(raw) != text:
        return None
    return raw


def _verifies(key: Ed25519PublicKey, signature: bytes, message: bytes) -> bool:
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


class KeyIndex:
    """A card's public keys, indexed once: which key of a name is in force on a date.

    The same rule as ``signing.key_in_force`` (the latest ``valid_from`` on or before the date, and
    only if it names one key); where it refuses, its own message is used. Cards share key sets, so
    the callers keep one index per set.
    """

    def __init__(self, keys: Sequence[PublicKeyRecord]) -> None:
        self.keys = list(keys)
        self._by_name: dict[str, list[tuple[dt.date, set[str], PublicKeyRecord]]] = {}
        for record in sorted(self.keys, key=lambda r: r.valid_from):
            dates = self._by_name.setdefault(record.name, [])
            if dates and dates[-1][0] == record.valid_from:
                dates[-1][1].add(record.public_key)
            else:
                dates.append((record.valid_from, {record.public_key}, record))
        self._chosen: dict[tuple[str, dt.date], _Key | str] = {}

    def in_force(self, name: str, on: dt.date) -> _Key | str:
        found = self._chosen.get((name, on))
        if found is None:
            eligible = [entry for entry in self._by_name.get(name, []) if entry[0] <= on]
            if eligible and len(eligible[-1][1]) == 1:
                found = _key(eligible[-1][2])
            else:
                try:
                    found = _key(key_in_force(self.keys, name, on))
                except SigningError as exc:
                    found = str(exc)
            self._chosen[(name, on)] = found
        return found


class _KeysOnDate:
    """The keys in force on one date."""

    def __init__(self, index: KeyIndex, on: dt.date) -> None:
        self.index, self.on = index, on

    def get(self, name: str) -> _Key | str:
        return self.index.in_force(name, self.on)


def _envelope_problem(
    envelope: Mapping[str, Any] | None, seat: Any, record_id: str, keys: _KeysOnDate, signer: str
) -> str | None:
    if envelope is None or not any(envelope.get(c) for c in SIGNATURE_COLUMNS):
        return "no signatures"
    if envelope.get("signing_scheme") != SIGNING_SCHEME:
        return f"signing scheme {envelope.get('signing_scheme')!r} is not {SIGNING_SCHEME}"
    if not isinstance(seat, str):
        return f"{signer} {seat!r} is not a {signer} id"
    seat_key, arena_key = keys.get(seat), keys.get(ARENA)
    if isinstance(seat_key, str) or isinstance(arena_key, str):
        return f"key refused: {seat_key if isinstance(seat_key, str) else arena_key}"
    if envelope.get("seat_key_id") != seat_key.key_id or envelope.get("arena_key_id") != arena_key.key_id:
        return "a signature names a key that is not the one in force"
    seat_raw = _decode(envelope.get("seat_signature"))
    arena_raw = _decode(envelope.get("arena_signature"))
    if seat_raw is None or arena_raw is None:
        return "a signature is malformed"
    if not _verifies(seat_key.public, seat_raw, answer_message(record_id)):
        return f"{signer} signature does not verify"
    if not _verifies(arena_key.public, arena_raw, countersign_message(record_id, seat_raw)):
        return "arena countersignature does not verify"
    return None


def partition_signature_problems(
    partition: str,
    rows: pl.DataFrame,
    record_ids: Sequence[str | None],
    signatures: pl.DataFrame | None,
    public_keys: pl.DataFrame,
    keys: KeyIndex,
    on: dt.date,
    expected_signers: Sequence[str] | None,
    spec: RowSigning,
    *,
    extra_columns: Sequence[str] = (),
) -> tuple[list[str], int]:
    """Problems with one partition's signatures (empty: all verify) and how many were checked.

    ``rows``: the partition's signed rows; ``record_ids``: each row's content id (without ``id`` and
    the envelope), as computed by the caller; None for a row with no canonical form.
    ``extra_columns``: the caller's own helper columns on the frames, left out of what the reference
    sees.
    """
    noun, signer = spec.partition_column, spec.signer_column
    in_force = _KeysOnDate(keys, on)
    envelopes: dict[str, Mapping[str, Any]] = {}
    if signatures is not None:
        for sig in signatures.iter_rows(named=True):
            envelopes.setdefault(str(sig.get(RECORD_ID_COLUMN)), sig)
    inline = all(c in rows.columns for c in SIGNATURE_COLUMNS) and signatures is None
    signers = rows[signer].to_list() if signer in rows.columns else [None] * rows.height
    stored_ids = rows[ID_FIELD].to_list() if ID_FIELD in rows.columns else [None] * rows.height
    inline_rows = rows.select(SIGNATURE_COLUMNS).iter_rows(named=True) if inline else iter(())
    failed: list[str] = []
    seen: set[str] = set()
    checked = 0
    for index, (seat, stored, record_id) in enumerate(zip(signers, stored_ids, record_ids, strict=True)):
        inline_envelope = next(inline_rows, None) if inline else None
        if record_id is None or stored != record_id or record_id in seen:
            failed.append(f"row {index}")
            continue
        seen.add(record_id)
        envelope = inline_envelope if inline else envelopes.get(record_id)
        problem = _envelope_problem(envelope, seat, record_id, in_force, signer)
        checked += 2
        if problem:
            failed.append(problem)
    present = {str(s) for s in signers}
    missing = sorted(set(expected_signers or ()) - present)
    orphans = sorted(set(envelopes) - seen - {str(s) for s in stored_ids})
    if not failed and not missing and not orphans:
        return [], checked

    # The reference names every problem of the card in its own words.
    def bare(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.drop([c for c in extra_columns if c in frame.columns])

    problems = verify_signed_rows(
        bare(rows),
        bare(public_keys),
        spec,
        signatures=None if signatures is None else bare(signatures),
        on_date=on,
        expected_signers=expected_signers,
    )
    if failed and not problems:
        problems = [f"{noun} {partition}: signatures: {line}" for line in failed]
    problems += [
        f"{spec.signatures_table} {noun} {partition} record {record_id}: "
        f"signs no {spec.table} row of the {noun}"
        for record_id in orphans
    ]
    no_record = f"no {spec.noun} record"
    if missing and not any(no_record in p for p in problems):
        problems += [f"{noun} {partition} {signer} {name}: {no_record}" for name in missing]
    return problems, checked
