"""Signatures: every signed record of any arena is signed by its signer's Ed25519 key (a forecast seat, a
contender) and countersigned by the arena's; the keys are ``trust.keys``.

Scheme ``COLOSSEUM-SIGNING-1``
------------------------------
* ``record_id`` is the row's identifier (``colosseum_core.record.identifiers.row_id``): the SHA-256 hex
  of the RFC 8785 canonical JSON of the row's *content*, the row without ``id`` and without the signature
  envelope columns (``SIGNATURE_COLUMNS``), which cannot be part of what they sign.
* The signer signs ``b"colosseum/answer/v1\\n" + record_id`` (ASCII hex).
* The arena signs ``b"colosseum/countersign/v1\\n" + record_id + b"\\n" + signer_signature`` (the 64 raw
  signature bytes), so a countersignature vouches for one particular signature of one record.
* Signatures are written as unpadded base64url. The envelope's columns keep the names the scheme was
  first published with (``seat_key_id``, ``seat_signature``): the signer's.

Which column names a row's partition, its signer and its date is the arena's (``RowSigning``).

Where the signatures live
-------------------------
Either in the rows themselves, as the ``SIGNATURE_COLUMNS`` (which ``row_id`` of the content never
sees), or in a separate table of ``SignedRecord.row()`` rows matched by ``record_id``. The separate table
keeps every table's ``id`` equal to ``with_ids`` of that table, so it is the tidier choice for the record.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import polars as pl
from cryptography.exceptions import InvalidSignature

from colosseum_core.record.identifiers import ID_FIELD, row_id, with_ids
from colosseum_core.trust.keys import (
    ARENA,
    NAME_PATTERN,
    PublicKeyRecord,
    SigningError,
    SigningKey,
    as_date,
    b64url,
    b64url_decode,
    key_in_force,
)

SIGNING_SCHEME = "COLOSSEUM-SIGNING-1"
ANSWER_DOMAIN = b"colosseum/answer/v1\n"
COUNTERSIGN_DOMAIN = b"colosseum/countersign/v1\n"
SIGNATURE_COLUMNS = ("signing_scheme", "seat_key_id", "seat_signature", "arena_key_id", "arena_signature")
RECORD_ID_COLUMN = "record_id"
_SIGNATURE_BYTES = 64


@dataclasses.dataclass(frozen=True)
class RowSigning:
    """How an arena's signed rows name what the scheme needs: the column of the partition they belong
    to (``card``), of their signer (``seat``) and of the date that picks the keys in force
    (``card_date``); ``noun``: what a row is, in messages (``answer``); ``signatures_table``: the table
    of separate signatures, in messages."""

    partition_column: str
    signer_column: str
    date_column: str
    noun: str
    signatures_table: str
    table: str  # the signed rows' own table, in messages


def record_content(row: Mapping[str, Any]) -> dict[str, Any]:
    """What a record's id (and so its signatures) covers: the row without id and signature envelope."""
    return {k: v for k, v in row.items() if k != ID_FIELD and k not in SIGNATURE_COLUMNS}


def answer_message(record_id: str) -> bytes:
    return ANSWER_DOMAIN + record_id.encode("ascii")


def countersign_message(record_id: str, seat_signature: bytes) -> bytes:
    return COUNTERSIGN_DOMAIN + record_id.encode("ascii") + b"\n" + seat_signature


@dataclasses.dataclass(frozen=True)
class SignedRecord:
    record_id: str
    seat: str
    seat_key_id: str
    seat_signature: str
    arena_key_id: str
    arena_signature: str
    signing_scheme: str = SIGNING_SCHEME

    def envelope(self) -> dict[str, str]:
        """The ``SIGNATURE_COLUMNS`` to add to the answer row itself."""
        return {column: getattr(self, column) for column in SIGNATURE_COLUMNS}

    def row(self) -> dict[str, str]:
        """A row of a separate signatures table, matched to its answer by ``record_id``."""
        return {RECORD_ID_COLUMN: self.record_id, "seat": self.seat, **self.envelope()}


def signatures_frame(signed: Iterable[SignedRecord]) -> pl.DataFrame:
    rows = sorted((s.row() for s in signed), key=lambda r: (r["seat"], r[RECORD_ID_COLUMN]))
    schema = dict.fromkeys((RECORD_ID_COLUMN, "seat", *SIGNATURE_COLUMNS), pl.String)
    return with_ids(pl.DataFrame(rows, schema=schema, orient="row"))


def sign_record(
    row: Mapping[str, Any], seat_key: SigningKey, arena_key: SigningKey, *, seat_column: str = "seat"
) -> SignedRecord:
    """Sign ``row`` with its seat's key and countersign with the arena's. Raises on a misuse."""
    if arena_key.name != ARENA:
        raise SigningError(f"the countersigning key is {arena_key.name!r}, not the {ARENA!r} key")
    seat = row.get(seat_column, seat_key.name)
    if seat != seat_key.name:
        raise SigningError(f"record of seat {seat!r} cannot be signed with the key of {seat_key.name!r}")
    record_id = row_id(record_content(row))
    stored = row.get(ID_FIELD)
    if stored is not None and stored != record_id:
        raise SigningError(f"record {stored} (seat {seat}): its stored id is not its content's ({record_id})")
    seat_signature = seat_key.sign(answer_message(record_id))
    arena_signature = arena_key.sign(countersign_message(record_id, seat_signature))
    return SignedRecord(
        record_id=record_id,
        seat=seat_key.name,
        seat_key_id=seat_key.record.key_id,
        seat_signature=b64url(seat_signature),
        arena_key_id=arena_key.record.key_id,
        arena_signature=b64url(arena_signature),
    )


def _check_signature(key: PublicKeyRecord, signature: bytes, message: bytes) -> bool:
    try:
        key.public().verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def _decode_signature(text: Any, what: str, problems: list[str]) -> bytes | None:
    try:
        raw = b64url_decode(text)
    except ValueError as exc:
        problems.append(f"{what} is malformed ({exc})")
        return None
    if len(raw) != _SIGNATURE_BYTES:
        problems.append(f"{what} is {len(raw)} bytes, not {_SIGNATURE_BYTES}")
        return None
    return raw


def _signature_problems(
    record_id: str,
    seat_signature: Any,
    arena_signature: Any,
    seat_public: PublicKeyRecord,
    arena_public: PublicKeyRecord,
) -> list[str]:
    problems: list[str] = []
    seat_raw = _decode_signature(seat_signature, "seat signature", problems)
    arena_raw = _decode_signature(arena_signature, "arena signature", problems)
    try:
        seat_public.raw(), arena_public.raw()
    except ValueError as exc:
        return [*problems, f"a public key is malformed ({exc})"]
    if seat_raw is not None and not _check_signature(seat_public, seat_raw, answer_message(record_id)):
        problems.append(
            f"seat signature does not verify with key {seat_public.key_id[:12]}… of {seat_public.name}"
        )
    if (
        seat_raw is not None
        and arena_raw is not None
        and not _check_signature(arena_public, arena_raw, countersign_message(record_id, seat_raw))
    ):
        problems.append(f"arena countersignature does not verify with key {arena_public.key_id[:12]}…")
    return problems


def _label(row: Mapping[str, Any], record_id: str | None, spec: RowSigning) -> str:
    partition, signer = spec.partition_column, spec.signer_column
    return f"{partition} {row.get(partition)!s} {signer} {row.get(signer)!s} record {record_id or '(no id)'}"


def verify_record(
    row: Mapping[str, Any],
    seat_signature: str,
    arena_signature: str,
    seat_public: PublicKeyRecord,
    arena_public: PublicKeyRecord,
    spec: RowSigning,
) -> list[str]:
    """Check one record's two signatures against the given keys (no key dates). Empty list = good."""
    try:
        record_id = row_id(record_content(row))
    except Exception as exc:  # a verifier reports; whatever the content is, it is not signable JSON
        return [f"{_label(row, row.get(ID_FIELD), spec)}: content has no identifier ({exc})"]
    label = _label(row, record_id, spec)
    problems = []
    stored = row.get(ID_FIELD)
    if stored is not None and stored != record_id:
        problems.append(f"stored id {stored} does not match its content")
    problems += _signature_problems(record_id, seat_signature, arena_signature, seat_public, arena_public)
    return [f"{label}: {p}" for p in problems]


def _iter_rows(rows: pl.DataFrame | Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    if isinstance(rows, pl.DataFrame):
        yield from rows.iter_rows(named=True)
    else:
        yield from rows


def _load_public_keys(
    public_keys: pl.DataFrame | Iterable[PublicKeyRecord] | Iterable[Mapping[str, Any]], problems: list[str]
) -> list[PublicKeyRecord]:
    records: list[PublicKeyRecord] = []
    for item in _iter_rows(public_keys):  # type: ignore[arg-type]
        if isinstance(item, PublicKeyRecord):
            records.append(item)
            continue
        try:
            stored = item.get(ID_FIELD)
            if stored is not None and stored != row_id(item):
                raise ValueError(f"row id {stored} does not match its content")
            records.append(PublicKeyRecord.from_row(item))
        except Exception as exc:  # one bad key row must not hide the rest of the card's problems
            problems.append(f"public key row {item!r} is unusable: {exc}")
    return records


def verify_signed_rows(
    rows: pl.DataFrame | Iterable[Mapping[str, Any]],
    public_keys: pl.DataFrame | Iterable[PublicKeyRecord] | Iterable[Mapping[str, Any]],
    spec: RowSigning,
    *,
    signatures: pl.DataFrame | Iterable[Mapping[str, Any]] | None = None,
    on_date: dt.date | None = None,
    expected_signers: Iterable[str] | None = None,
    id_column: str = ID_FIELD,
) -> list[str]:
    """Verify every signature of one partition's signed rows; return the problems (empty = all good).

    Each row's id is recomputed from its content and compared with its stored ``id_column``; the
    signer's signature is checked with the signer's key in force on the record's date (``on_date`` if
    given, else the row's ``spec.date_column``), the countersignature with the arena key in force that
    day. Signatures come from the row's ``SIGNATURE_COLUMNS`` or, if ``signatures`` is given, from its
    row with the same ``record_id``. With ``expected_signers``, a signer without a record is reported
    too. Never raises on bad input: every problem is a line naming the partition, signer and record.
    """
    card_column, seat_column = spec.partition_column, spec.signer_column
    problems: list[str] = []
    keys = _load_public_keys(public_keys, problems)
    by_record: dict[str, Mapping[str, Any]] = {}
    if signatures is not None:
        for sig in _iter_rows(signatures):
            if isinstance(sig, Mapping):
                by_record.setdefault(str(sig.get(RECORD_ID_COLUMN)), sig)
            else:
                problems.append(f"signature row {sig!r} is not a row")
    seen_ids: set[str] = set()
    seen_seats: set[str] = set()
    card_names: set[str] = set()
    for row in _iter_rows(rows):
        if not isinstance(row, Mapping):
            problems.append(f"{card_column} record {row!r} is not a row")
            continue
        row = {(ID_FIELD if k == id_column else k): v for k, v in row.items()}
        card_names.add(str(row.get(card_column)))
        seat = row.get(seat_column)
        seen_seats.add(str(seat))
        stored = row.get(ID_FIELD)
        try:
            record_id = row_id(record_content(row))
        except Exception as exc:  # content that is not canonical JSON cannot carry a valid signature
            problems.append(f"{_label(row, stored, spec)}: content has no identifier ({exc})")
            continue
        label = _label(row, stored or record_id, spec)
        mine: list[str] = []
        if stored is None:
            mine.append(f"no stored {id_column}")
        elif stored != record_id:
            mine.append(f"stored {id_column} does not match its content (content id {record_id})")
        if record_id in seen_ids:
            mine.append(f"the same record appears twice on the {card_column}")
        seen_ids.add(record_id)
        envelope = (by_record.get(record_id) or by_record.get(str(stored))) if signatures is not None else row
        mine += _verify_envelope(row, envelope, record_id, keys, on_date, seat, spec)
        problems += [f"{label}: {p}" for p in mine]
    for missing in sorted(set(expected_signers or ()) - seen_seats):
        partitions = ", ".join(sorted(card_names)) or "?"
        problems.append(f"{card_column} {partitions} {seat_column} {missing}: no {spec.noun} record")
    return problems


def _verify_envelope(
    row: Mapping[str, Any],
    envelope: Mapping[str, Any] | None,
    record_id: str,
    keys: list[PublicKeyRecord],
    on_date: dt.date | None,
    seat: Any,
    spec: RowSigning,
) -> list[str]:
    if envelope is None or not any(envelope.get(c) for c in SIGNATURE_COLUMNS):
        return ["no signatures"]
    if envelope.get("signing_scheme") != SIGNING_SCHEME:
        return [f"signing scheme {envelope.get('signing_scheme')!r} is not {SIGNING_SCHEME}"]
    signer = spec.signer_column
    if not isinstance(seat, str) or not NAME_PATTERN.match(seat):
        return [f"{signer} {seat!r} is not a {signer} id"]
    try:
        on = on_date if on_date is not None else as_date(row.get(spec.date_column))
    except ValueError as exc:
        return [f"no usable date in {spec.date_column!r} ({exc})"]
    problems: list[str] = []
    chosen: dict[str, PublicKeyRecord] = {}
    for role, name in (("seat", seat), ("arena", ARENA)):
        try:
            chosen[role] = key_in_force(keys, name, on)
        except SigningError as exc:
            problems.append(f"{role} key refused: {exc}")
            continue
        stated = envelope.get(f"{role}_key_id")
        if stated != chosen[role].key_id:
            other = next((k for k in keys if k.key_id == stated), None)
            why = (
                f"key of {other.name} valid from {other.valid_from}, not the one in force on {on}"
                if other
                else "an unknown key"
            )
            problems.append(f"{role} signature names {why}")
    if problems:
        return problems
    return _signature_problems(
        record_id,
        envelope.get("seat_signature"),
        envelope.get("arena_signature"),
        chosen["seat"],
        chosen["arena"],
    )
