"""Signatures: every answer record is signed by its seat's Ed25519 key and countersigned by the arena's.

Scheme ``COLOSSEUM-SIGNING-1``
------------------------------
* ``record_id`` is the row's identifier (``colosseum_core.record.identifiers.row_id``): the SHA-256 hex
  of the RFC 8785 canonical JSON of the row's *content*, the row without ``id`` and without the signature
  envelope columns (``SIGNATURE_COLUMNS``), which cannot be part of what they sign.
* The seat signs ``b"colosseum/answer/v1\\n" + record_id`` (ASCII hex).
* The arena signs ``b"colosseum/countersign/v1\\n" + record_id + b"\\n" + seat_signature`` (the 64 raw
  signature bytes), so a countersignature vouches for one particular seat signature of one record.
* Signatures and public keys are written as unpadded base64url; ``key_id`` is the SHA-256 hex of the
  32 raw public key bytes.

Keys over time
--------------
A name (``arena`` or a seat id) may hold several keys, each with a ``valid_from`` date. The key *in
force* on a date is the one with the latest ``valid_from`` on or before that date; a replacement key takes
over on its own ``valid_from`` and the older key stops being accepted for records dated from then on. A
record is verified only with the keys in force on its date: a key that became valid after the record's
date is refused, and so is an older key once it has been replaced.

Where the signatures live
-------------------------
Either in the answer rows themselves, as the ``SIGNATURE_COLUMNS`` (which ``row_id`` of the content never
sees), or in a separate table of ``SignedRecord.row()`` rows matched by ``record_id``. The separate table
keeps every table's ``id`` equal to ``with_ids`` of that table, so it is the tidier choice for the record.

Private keys live under ``<data>/keys/`` (never inside the published record) or in the environment;
nothing here writes private material anywhere else.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import datetime as dt
import hashlib
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from colosseum_core.record.atomic import temp_path_for
from colosseum_core.record.identifiers import ID_FIELD, row_id, with_ids
from colosseum_core.settings import data_dir

SIGNING_SCHEME = "COLOSSEUM-SIGNING-1"
ALGORITHM = "ed25519"
ARENA = "arena"
KEY_ENV_PREFIX = "COLOSSEUM_KEY_"
KEYS_DIRNAME = "keys"
ANSWER_DOMAIN = b"colosseum/answer/v1\n"
COUNTERSIGN_DOMAIN = b"colosseum/countersign/v1\n"
SIGNATURE_COLUMNS = ("signing_scheme", "seat_key_id", "seat_signature", "arena_key_id", "arena_signature")
RECORD_ID_COLUMN = "record_id"

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_SEED_BYTES = 32
_SIGNATURE_BYTES = 64
_KEY_SUFFIX = ".key"
_PUBLIC_KEY_SCHEMA = {
    "name": pl.String,
    "algorithm": pl.String,
    "public_key": pl.String,
    "key_id": pl.String,
    "valid_from": pl.Date,
}


class SigningError(Exception):
    """A key that cannot be created, found or loaded, or a record that cannot be signed."""


class KeyPermissionError(SigningError):
    """A private key file that others than its owner could read."""


def validate_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise SigningError(f"key name {name!r} must match {_NAME.pattern} (the arena or a seat id)")
    return name


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict: only the canonical unpadded form is accepted.

    A lenient decoder ignores stray characters and the spare low bits of the last character, so two
    different strings could carry one signature; a record's bytes must not be editable without notice.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected base64url text, got {type(text).__name__}")
    try:
        raw = base64.b64decode(
            text.translate(str.maketrans("-_", "+/")) + "=" * (-len(text) % 4), validate=True
        )
    except (binascii.Error, ValueError) as exc:
        raise ValueError("not valid base64url") from exc
    if b64url(raw) != text:
        raise ValueError("not canonical unpadded base64url")
    return raw


def key_id_of(public_raw: bytes) -> str:
    return hashlib.sha256(public_raw).hexdigest()


def _public_raw(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _as_date(value: Any) -> dt.date:
    # A datetime is a date subclass, but which calendar day it falls on depends on a time zone this
    # module cannot know; only calendar dates are accepted.
    if isinstance(value, dt.datetime):
        raise ValueError(f"{value!r} is a datetime; a calendar date is required")
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        return dt.date.fromisoformat(value)
    raise ValueError(f"{value!r} is not a date")


@dataclasses.dataclass(frozen=True)
class PublicKeyRecord:
    """One public key as published in the record's ``public_keys`` table."""

    name: str
    public_key: str  # unpadded base64url of the 32 raw bytes
    valid_from: dt.date
    algorithm: str = ALGORITHM

    @property
    def key_id(self) -> str:
        return key_id_of(self.raw())

    def raw(self) -> bytes:
        return b64url_decode(self.public_key)

    def public(self) -> Ed25519PublicKey:
        return Ed25519PublicKey.from_public_bytes(self.raw())

    @classmethod
    def of(cls, name: str, key: Ed25519PublicKey, valid_from: dt.date) -> PublicKeyRecord:
        return cls(name=validate_name(name), public_key=b64url(_public_raw(key)), valid_from=valid_from)

    def row(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "algorithm": self.algorithm,
            "public_key": self.public_key,
            "key_id": self.key_id,
            "valid_from": self.valid_from,
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PublicKeyRecord:
        """Parse and check a published row; raises ValueError naming what is wrong."""
        record = cls(
            name=validate_name(row.get("name")),  # type: ignore[arg-type]
            public_key=row.get("public_key"),  # type: ignore[arg-type]
            valid_from=_as_date(row.get("valid_from")),
            algorithm=row.get("algorithm"),  # type: ignore[arg-type]
        )
        if record.algorithm != ALGORITHM:
            raise ValueError(f"key {record.name}: algorithm {record.algorithm!r} is not {ALGORITHM!r}")
        raw = record.raw()
        if len(raw) != _SEED_BYTES:
            raise ValueError(f"key {record.name}: public key is {len(raw)} bytes, not {_SEED_BYTES}")
        stated = row.get("key_id")
        if stated is not None and stated != key_id_of(raw):
            raise ValueError(f"key {record.name}: key_id {stated} is not the SHA-256 of its public key")
        return record


@dataclasses.dataclass(frozen=True)
class SigningKey:
    """A private key with its public record. Its repr never shows private material."""

    record: PublicKeyRecord
    private: Ed25519PrivateKey = dataclasses.field(repr=False)

    @property
    def name(self) -> str:
        return self.record.name

    @classmethod
    def from_seed(cls, name: str, seed: bytes, valid_from: dt.date) -> SigningKey:
        if len(seed) != _SEED_BYTES:
            raise SigningError(f"key {name}: an Ed25519 seed is {_SEED_BYTES} bytes, not {len(seed)}")
        private = Ed25519PrivateKey.from_private_bytes(seed)
        return cls(record=PublicKeyRecord.of(name, private.public_key(), valid_from), private=private)

    def sign(self, message: bytes) -> bytes:
        return self.private.sign(message)


def public_keys_frame(records: Iterable[PublicKeyRecord]) -> pl.DataFrame:
    """The ``public_keys`` table: one row per key, ordered by name then date, with ``id`` first."""
    rows = sorted((r.row() for r in records), key=lambda r: (r["name"], r["valid_from"], r["key_id"]))
    return with_ids(pl.DataFrame(rows, schema=_PUBLIC_KEY_SCHEMA, orient="row"))


def key_in_force(records: Iterable[PublicKeyRecord], name: str, on: dt.date) -> PublicKeyRecord:
    """The key of ``name`` in force on ``on`` (see the module doc); SigningError if none or ambiguous."""
    own = [r for r in records if r.name == name]
    eligible = [r for r in own if r.valid_from <= on]
    if not eligible:
        known = ", ".join(f"{r.key_id[:12]}… from {r.valid_from}" for r in own) or "none"
        raise SigningError(f"no key of {name!r} is valid on {on} (its keys: {known})")
    latest = max(r.valid_from for r in eligible)
    current = {r.key_id: r for r in eligible if r.valid_from == latest}
    if len(current) > 1:
        raise SigningError(
            f"{name!r} has {len(current)} different keys valid from {latest}; which is unclear"
        )
    return next(iter(current.values()))


# --- the key store ----------------------------------------------------------------------------------


def _decode_seed(text: str) -> bytes:
    text = text.strip()
    if re.fullmatch(r"[0-9a-fA-F]{64}", text):
        return bytes.fromhex(text)
    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(padded.translate(str.maketrans("-_", "+/")), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != _SEED_BYTES:
        # The value itself is a secret: the message describes it, never quotes it.
        raise SigningError(
            f"is not a {_SEED_BYTES}-byte Ed25519 seed in hex or base64 ({len(text)} characters)"
        )
    return raw


class KeyStore:
    """Private keys under ``root`` (normally ``<data>/keys``), with the environment taking precedence.

    Files: ``<root>/<name>/<valid_from>.key``, each a PEM PKCS#8 Ed25519 key (as written here) or a raw
    32-byte seed (as an operator may supply), mode 0600 inside 0700 directories. A file that group or
    other could read, write or run is refused.

    Environment: ``COLOSSEUM_KEY_<NAME>`` (name upper-cased, ``-`` as ``_``) holds a seed in hex or
    base64/base64url. When it is set, the files of that name are ignored: it is the name's only key,
    valid from ``COLOSSEUM_KEY_<NAME>_VALID_FROM`` if set, else from the date given to ``ensure_key``
    (and, failing both, from any date for signing; ``public_keys`` then refuses to publish it).
    """

    def __init__(self, root: Path | str, environ: Mapping[str, str] | None = None) -> None:
        self.root = Path(root)
        self._environ = os.environ if environ is None else environ

    @classmethod
    def for_data(cls, data: str | os.PathLike[str] | None = None) -> KeyStore:
        return cls(data_dir(data) / KEYS_DIRNAME)

    # -- environment

    @staticmethod
    def env_var(name: str) -> str:
        return KEY_ENV_PREFIX + validate_name(name).upper().replace("-", "_")

    def _env_key(self, name: str, valid_from: dt.date | None) -> SigningKey | None:
        var = self.env_var(name)
        value = self._environ.get(var)
        if not value:
            return None
        try:
            seed = _decode_seed(value)
        except SigningError as exc:
            raise SigningError(f"${var} {exc}") from None
        stated = self._environ.get(f"{var}_VALID_FROM")
        if stated:
            try:
                valid_from = dt.date.fromisoformat(stated)
            except ValueError as exc:
                raise SigningError(f"${var}_VALID_FROM={stated!r} is not an ISO date") from exc
        return SigningKey.from_seed(name, seed, valid_from or dt.date.min)

    # -- files

    def _dir(self, name: str) -> Path:
        return self.root / validate_name(name)

    def _files(self, name: str) -> list[tuple[dt.date, Path]]:
        found = []
        folder = self._dir(name)
        if not folder.is_dir():
            return []
        for path in folder.glob(f"*{_KEY_SUFFIX}"):
            try:
                found.append((dt.date.fromisoformat(path.name.removesuffix(_KEY_SUFFIX)), path))
            except ValueError:
                continue  # not ours (e.g. an editor's backup); never guess a date for it
        return sorted(found)

    @staticmethod
    def _load_file(name: str, valid_from: dt.date, path: Path) -> SigningKey:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise KeyPermissionError(
                f"refusing private key {path}: mode {mode:04o} lets group/other read it; chmod 600 {path}"
            )
        data = path.read_bytes()
        if len(data) == _SEED_BYTES:
            return SigningKey.from_seed(name, data, valid_from)
        try:
            private = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise SigningError(
                f"{path} is neither a PEM PKCS#8 key nor a raw {_SEED_BYTES}-byte seed"
            ) from exc
        if not isinstance(private, Ed25519PrivateKey):
            raise SigningError(f"{path} holds a {type(private).__name__}, not an Ed25519 key")
        return SigningKey(PublicKeyRecord.of(name, private.public_key(), valid_from), private)

    def _ensure_dir(self, path: Path) -> None:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        # mkdir's mode is filtered by the umask and ignored for directories that already exist.
        for folder in (self.root, path):
            if stat.S_IMODE(folder.stat().st_mode) & 0o077:
                folder.chmod(0o700)

    def _create(self, name: str, valid_from: dt.date) -> PublicKeyRecord:
        folder = self._dir(name)
        self._ensure_dir(folder)
        path = folder / f"{valid_from.isoformat()}{_KEY_SUFFIX}"
        private = Ed25519PrivateKey.generate()
        pem = private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        # Not write_bytes_atomic: its temp file takes the umask's mode, and its rename would replace a
        # key another process made meanwhile. Here the temp is 0600 from birth and link() never replaces.
        tmp = temp_path_for(path)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(pem)
                fh.flush()
                os.fsync(fh.fileno())
            try:
                os.link(tmp, path)
            except FileExistsError:
                return self._load_file(name, valid_from, path).record
        finally:
            tmp.unlink(missing_ok=True)
        return PublicKeyRecord.of(name, private.public_key(), valid_from)

    # -- the API

    def ensure_key(self, name: str, valid_from: dt.date) -> PublicKeyRecord:
        """Create ``name``'s first key, valid from ``valid_from``, unless it has one already.

        Idempotent and never overwrites: if the name already has a key (in the environment or on disk),
        nothing is created and its newest key's public record is returned.
        """
        env = self._env_key(name, valid_from)
        if env is not None:
            return env.record
        existing = self._files(name)
        if existing:
            return self._load_file(name, *existing[-1]).record
        return self._create(name, valid_from)

    def rotate_key(self, name: str, valid_from: dt.date) -> PublicKeyRecord:
        """Add a replacement key for ``name``, in force from ``valid_from`` (strictly after the newest)."""
        if self._environ.get(self.env_var(name)):
            raise SigningError(f"{name!r} is supplied by ${self.env_var(name)}; replace it there")
        existing = self._files(name)
        if existing and valid_from <= existing[-1][0]:
            raise SigningError(
                f"a replacement key for {name!r} must be valid after {existing[-1][0]}, not from {valid_from}"
            )
        return self._create(name, valid_from)

    def keys(self, name: str) -> list[SigningKey]:
        env = self._env_key(name, None)
        if env is not None:
            return [env]
        return [self._load_file(name, valid_from, path) for valid_from, path in self._files(name)]

    def signing_key(self, name: str, on: dt.date) -> SigningKey:
        """The private key of ``name`` in force on ``on``."""
        keys = {k.record.key_id: k for k in self.keys(name)}
        chosen = key_in_force([k.record for k in keys.values()], name, on)
        return keys[chosen.key_id]

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and _NAME.match(p.name))

    def public_keys(self, names: Iterable[str] | None = None) -> list[PublicKeyRecord]:
        """Every public key of ``names`` (default: every name with files here), for ``public_keys_frame``."""
        records = [k.record for name in (self.names() if names is None else names) for k in self.keys(name)]
        for record in records:
            if record.valid_from == dt.date.min:
                var = self.env_var(record.name)
                raise SigningError(f"${var} has no ${var}_VALID_FROM; a published key needs its date")
        return records


# --- signing and verifying --------------------------------------------------------------------------


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


def _label(row: Mapping[str, Any], record_id: str | None, card_column: str, seat_column: str) -> str:
    return f"card {row.get(card_column)!s} seat {row.get(seat_column)!s} record {record_id or '(no id)'}"


def verify_record(
    row: Mapping[str, Any],
    seat_signature: str,
    arena_signature: str,
    seat_public: PublicKeyRecord,
    arena_public: PublicKeyRecord,
    *,
    card_column: str = "card",
    seat_column: str = "seat",
) -> list[str]:
    """Check one record's two signatures against the given keys (no key dates). Empty list = good."""
    try:
        record_id = row_id(record_content(row))
    except Exception as exc:  # a verifier reports; whatever the content is, it is not signable JSON
        return [
            f"{_label(row, row.get(ID_FIELD), card_column, seat_column)}: content has no identifier ({exc})"
        ]
    label = _label(row, record_id, card_column, seat_column)
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


def verify_card(
    rows: pl.DataFrame | Iterable[Mapping[str, Any]],
    public_keys: pl.DataFrame | Iterable[PublicKeyRecord] | Iterable[Mapping[str, Any]],
    *,
    signatures: pl.DataFrame | Iterable[Mapping[str, Any]] | None = None,
    on_date: dt.date | None = None,
    expected_seats: Iterable[str] | None = None,
    id_column: str = ID_FIELD,
    card_column: str = "card",
    seat_column: str = "seat",
    date_column: str = "card_date",
) -> list[str]:
    """Verify every signature of a card's answer records; return the problems (empty = all good).

    Each row's id is recomputed from its content and compared with its stored ``id_column``; the seat
    signature is checked with the seat's key in force on the record's date (``on_date`` if given, else the
    row's ``date_column``), the countersignature with the arena key in force that day. Signatures come
    from the row's ``SIGNATURE_COLUMNS`` or, if ``signatures`` is given, from its row with the same
    ``record_id``. With ``expected_seats``, a seat without a record is reported too. Never raises on bad
    input: every problem is a line naming the card, seat and record.
    """
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
            problems.append(f"card record {row!r} is not a row")
            continue
        row = {(ID_FIELD if k == id_column else k): v for k, v in row.items()}
        card_names.add(str(row.get(card_column)))
        seat = row.get(seat_column)
        seen_seats.add(str(seat))
        stored = row.get(ID_FIELD)
        try:
            record_id = row_id(record_content(row))
        except Exception as exc:  # content that is not canonical JSON cannot carry a valid signature
            problems.append(
                f"{_label(row, stored, card_column, seat_column)}: content has no identifier ({exc})"
            )
            continue
        label = _label(row, stored or record_id, card_column, seat_column)
        mine: list[str] = []
        if stored is None:
            mine.append(f"no stored {id_column}")
        elif stored != record_id:
            mine.append(f"stored {id_column} does not match its content (content id {record_id})")
        if record_id in seen_ids:
            mine.append("the same record appears twice on the card")
        seen_ids.add(record_id)
        envelope = (by_record.get(record_id) or by_record.get(str(stored))) if signatures is not None else row
        mine += _verify_envelope(row, envelope, record_id, keys, on_date, seat, date_column)
        problems += [f"{label}: {p}" for p in mine]
    for missing in sorted(set(expected_seats or ()) - seen_seats):
        problems.append(f"card {', '.join(sorted(card_names)) or '?'} seat {missing}: no answer record")
    return problems


def _verify_envelope(
    row: Mapping[str, Any],
    envelope: Mapping[str, Any] | None,
    record_id: str,
    keys: list[PublicKeyRecord],
    on_date: dt.date | None,
    seat: Any,
    date_column: str,
) -> list[str]:
    if envelope is None or not any(envelope.get(c) for c in SIGNATURE_COLUMNS):
        return ["no signatures"]
    if envelope.get("signing_scheme") != SIGNING_SCHEME:
        return [f"signing scheme {envelope.get('signing_scheme')!r} is not {SIGNING_SCHEME}"]
    if not isinstance(seat, str) or not _NAME.match(seat):
        return [f"seat {seat!r} is not a seat id"]
    try:
        on = on_date if on_date is not None else _as_date(row.get(date_column))
    except ValueError as exc:
        return [f"no usable date in {date_column!r} ({exc})"]
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
