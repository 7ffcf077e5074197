"""Keys: Ed25519 key pairs by name (the arena, a seat, a contender), each valid from a date, for every arena.

Keys over time
--------------
A name (``arena`` or a signer's id) may hold several keys, each with a ``valid_from`` date. The key *in
force* on a date is the one with the latest ``valid_from`` on or before that date; a replacement key takes
over on its own ``valid_from`` and the older key stops being accepted for records dated from then on. A
record is verified only with the keys in force on its date: a key that became valid after the record's
date is refused, and so is an older key once it has been replaced.

Public keys are written as unpadded base64url; ``key_id`` is the SHA-256 hex of the 32 raw public key
bytes. Private keys live under ``<data>/keys/`` (never inside the published record) or in the
environment; nothing here writes private material anywhere else.
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
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from colosseum_core.record.atomic import temp_path_for
from colosseum_core.record.identifiers import with_ids
from colosseum_core.record.storage import data_dir
from colosseum_core.settings import POSTGRES_URL_ENV

ALGORITHM = "ed25519"
ARENA = "arena"
KEY_ENV_PREFIX = "COLOSSEUM_KEY_"
KEYS_DIRNAME = "keys"

# The first day the offline default's record can hold: the seats' first_day in seats.toml, and the
# day the arenas' site plugins assume when nothing is sealed. On the offline default a new arena key is
# valid from it, so which arena a new user tries first never decides which dates the others can sign.
OFFLINE_FIRST_DAY = dt.date(2026, 1, 1)

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_SEED_BYTES = 32
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
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise SigningError(f"key name {name!r} must match {NAME_PATTERN.pattern} (the arena or a seat id)")
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


def as_date(value: Any) -> dt.date:
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
        return {column: getattr(self, column) for column in _PUBLIC_KEY_SCHEMA}

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PublicKeyRecord:
        """Parse and check a published row; raises ValueError naming what is wrong."""
        record = cls(
            name=validate_name(row.get("name")),  # type: ignore[arg-type]
            public_key=row.get("public_key"),  # type: ignore[arg-type]
            valid_from=as_date(row.get("valid_from")),
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

    def __init__(
        self,
        root: Path | str,
        environ: Mapping[str, str] | None = None,
        *,
        arena_first_day: dt.date | None = None,
    ) -> None:
        """``arena_first_day``: a new arena key is valid from it when that is earlier than the date it
        is created for (the offline default's; None, as in production, keeps the date asked for)."""
        self.root = Path(root)
        self._environ = os.environ if environ is None else environ
        self.arena_first_day = arena_first_day

    @classmethod
    def for_data(cls, data: str | os.PathLike[str] | None = None) -> KeyStore:
        """The keys of the record at ``data``: on this host, also for a record on a bucket.

        On the offline default (a record on this disk, no production database) a new arena key is
        valid from ``OFFLINE_FIRST_DAY``; in the production profile (``COLOSSEUM_POSTGRES_URL`` set, or
        a record on a bucket) it is valid from the date of the first thing it signs, never earlier.
        """
        from colosseum_core.record.layout import Record

        record = Record(data_dir(data))
        production = bool(os.environ.get(POSTGRES_URL_ENV)) or record.on_object_store
        return cls(record.keys_dir, arena_first_day=None if production else OFFLINE_FIRST_DAY)

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
        """Create ``name``'s first key, valid from ``valid_from`` (the arena's from ``arena_first_day``
        when that is earlier), unless it has one already.

        Idempotent and never overwrites: if the name already has a key (in the environment or on disk),
        nothing is created and its newest key's public record is returned.
        """
        env = self._env_key(name, valid_from)
        if env is not None:
            return env.record
        existing = self._files(name)
        if existing:
            return self._load_file(name, *existing[-1]).record
        if name == ARENA and self.arena_first_day is not None:
            valid_from = min(valid_from, self.arena_first_day)
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
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and NAME_PATTERN.match(p.name))

    def public_keys(self, names: Iterable[str] | None = None) -> list[PublicKeyRecord]:
        """Every public key of ``names`` (default: every name with files here), for ``public_keys_frame``."""
        records = [k.record for name in (self.names() if names is None else names) for k in self.keys(name)]
        for record in records:
            if record.valid_from == dt.date.min:
                var = self.env_var(record.name)
                raise SigningError(f"${var} has no ${var}_VALID_FROM; a published key needs its date")
        return records


# --- signing and verifying --------------------------------------------------------------------------
