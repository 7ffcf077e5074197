"""Content-addressed receipts: every HTTP exchange, stored under its SHA-256 before anything parses it.

A receipt is a small JSON document (request, status, the headers that matter, the body as UTF-8
text or, if it is not UTF-8, base64, start and end times, and the transport error if there was no
response). Its identifier is the SHA-256 of its RFC 8785 canonical JSON, and it is stored gzipped at
``<root>/sha256/<first two hex>/<rest>.json.gz``. Receipts are immutable: storing the same
exchange twice is a no-op, and a file whose bytes no longer hash to its name is reported, never
silently trusted.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import struct
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from isal import isal_zlib

from colosseum_core import json_values
from colosseum_core.record.atomic import write_bytes_atomic
from colosseum_core.record.storage import RecordPath, read_bytes, record_path

RECEIPT_FORMAT = "colosseum-http-receipt/1"
UTF8, BASE64 = "utf-8", "base64"


def encode_body(data: bytes) -> tuple[str, str]:
    """Bodies are kept as text when they are UTF-8 (JSON always is), else as base64.

    Text keeps a receipt readable with ``zcat`` and compresses to about half of its base64 form.
    """
    try:
        return UTF8, data.decode("utf-8")
    except UnicodeDecodeError:
        return BASE64, base64.b64encode(data).decode("ascii")


def decode_body(encoding: str, text: str) -> bytes:
    if encoding == UTF8:
        return text.encode("utf-8")
    if encoding == BASE64:
        return base64.b64decode(text, validate=True)
    raise ValueError(f"unknown body encoding {encoding!r}")


# Headers that carry meaning for an audit: content type, caching and dates, rate limiting and
# deprecation signals, Cloudflare's request id, and the simulator's self-identification.
HEADERS_THAT_MATTER = (
    "content-type",
    "content-length",
    "date",
    "age",
    "etag",
    "last-modified",
    "retry-after",
    "deprecation",
    "sunset",
    "warning",
    "cf-ray",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
)
HEADER_PREFIXES_THAT_MATTER = ("x-colosseum-",)


def headers_that_matter(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    kept: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key in HEADERS_THAT_MATTER or key.startswith(HEADER_PREFIXES_THAT_MATTER):
            kept[key] = f"{kept[key]}, {value}" if key in kept else value
    return dict(sorted(kept.items()))


def canonical_document_bytes(document: Mapping[str, Any]) -> bytes:
    """RFC 8785 canonical JSON of a receipt document, at C speed.

    A receipt document holds only ASCII keys, strings, integers, null and lists/maps of those (no
    floats), and for such documents the standard library's sorted, compact, non-ASCII-preserving
    encoding is byte-for-byte the RFC 8785 form (tests compare it with the ``rfc8785`` package).
    The pure-Python canonicaliser costs ~7 ms on a 500 KB page, on the sweep's hot path.
    """
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


class ReceiptError(Exception):
    """A receipt is missing, unreadable, or its bytes do not hash to its name."""


# The store's gzip header: no name, no comment, no extra field, no header CRC, mtime 0, XFL 0 and OS 3,
# what zlib writes on Unix at level 3. The store writes these bytes itself, on every platform, so a
# receipt file is a pure function of the receipt; a header byte that differs (a set mtime, another OS
# byte, a smuggled file name) is a change.
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
# Level 3 halves the time of level 6 on a 500 KB page for ~25% more bytes; it is on the sweep's
# critical path.
GZIP_LEVEL = 3


def gzip_bytes(canonical: bytes) -> bytes:
    """A receipt file: the canonical bytes deflated, between the store's header and gzip's trailer."""
    deflater = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflater.compress(canonical) + deflater.flush()
    return GZIP_HEADER + body + struct.pack("<II", zlib.crc32(canonical), len(canonical) & 0xFFFFFFFF)


def gunzip_strict(raw: bytes, what: str) -> bytes:
    """Decompress a receipt file, refusing anything but the store's form: its header, one member, its
    CRC and length, and not one byte after. (The deflate stream itself is checked by decompressing it
    to exactly the bytes the name hashes; another zlib may encode the same bytes differently.)"""
    if raw[: len(GZIP_HEADER)] != GZIP_HEADER:
        raise ReceiptError(
            f"{what}: its gzip header is {raw[:10].hex()}, not the store's {GZIP_HEADER.hex()} "
            "(a changed mtime, flags or OS byte)"
        )
    # ISA-L's inflate, zlib's interface: a receipt is read about twice as fast, and every card reads
    # each of its pages twice (the copy and its check). Writing stays zlib's, so the bytes do not change.
    inflater = isal_zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        data = inflater.decompress(raw[len(GZIP_HEADER) :])
    except (zlib.error, isal_zlib.error) as exc:
        raise ReceiptError(f"{what}: is not readable gzip ({exc})") from None
    trailer = inflater.unused_data
    if not inflater.eof or len(trailer) != 8:
        extra = len(trailer) - 8
        why = (
            "it ends before its deflate stream does"
            if not inflater.eof
            else f"{extra} byte(s) follow its trailer"
        )
        raise ReceiptError(f"{what}: is not one whole gzip member ({why})")
    crc, size = struct.unpack("<II", trailer)
    if crc != isal_zlib.crc32(data) or size != len(data) & 0xFFFFFFFF:
        raise ReceiptError(f"{what}: its gzip trailer (CRC-32 and length) does not match its content")
    return data


@dataclasses.dataclass(frozen=True)
class Receipt:
    """One HTTP exchange as it happened. ``status`` is None when no response arrived."""

    method: str
    url: str
    params: tuple[tuple[str, str], ...]
    status: int | None
    headers: Mapping[str, str]
    body: bytes
    started_at: str
    ended_at: str
    error: str | None = None
    request_headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    request_body: bytes = b""

    def document(self) -> dict[str, Any]:
        body_encoding, body = encode_body(self.body)
        request_body_encoding, request_body = encode_body(self.request_body)
        return {
            "format": RECEIPT_FORMAT,
            "method": self.method.upper(),
            "url": self.url,
            "params": [[k, v] for k, v in self.params],
            "request_headers": dict(sorted((k.lower(), v) for k, v in self.request_headers.items())),
            "request_body_encoding": request_body_encoding,
            "request_body": request_body,
            "status": self.status,
            "headers": dict(sorted((k.lower(), v) for k, v in self.headers.items())),
            "body_encoding": body_encoding,
            "body": body,
            "body_sha256": hashlib.sha256(self.body).hexdigest(),
            "body_size": len(self.body),
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "error": self.error,
        }

    def canonical_bytes(self) -> bytes:
        return canonical_document_bytes(self.document())

    @property
    def receipt_id(self) -> str:
        return hashlib.sha256(self.canonical_bytes()).hexdigest()

    @classmethod
    def from_document(cls, doc: Mapping[str, Any]) -> Receipt:
        if doc.get("format") != RECEIPT_FORMAT:
            raise ReceiptError(f"receipt format {doc.get('format')!r} is not {RECEIPT_FORMAT!r}")
        return cls(
            method=doc["method"],
            url=doc["url"],
            params=tuple((str(k), str(v)) for k, v in doc["params"]),
            status=doc["status"],
            headers=dict(doc["headers"]),
            body=decode_body(doc["body_encoding"], doc["body"]),
            started_at=doc["started_at"],
            ended_at=doc["ended_at"],
            error=doc["error"],
            request_headers=dict(doc.get("request_headers", {})),
            request_body=decode_body(doc["request_body_encoding"], doc["request_body"]),
        )

    def json(self) -> Any:
        """The body decoded as JSON; raises ``ReceiptError`` naming the receipt if it is not JSON."""
        try:
            return json_values.loads(self.body)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ReceiptError(
                f"receipt {self.receipt_id}: body of {self.method} {self.url} is not valid JSON "
                f"({exc}; {len(self.body)} bytes, ends {self.body[-40:]!r})"
            ) from exc


@dataclasses.dataclass(frozen=True)
class RequestTrace:
    """What a caller knows about one request before and after it: enough to build its receipt."""

    method: str
    url: str
    params: Sequence[tuple[str, str]]
    started_at: str
    request_headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    request_body: bytes = b""

    def receipt(
        self,
        *,
        ended_at: str,
        status: int | None,
        headers: Iterable[tuple[str, str]] = (),
        body: bytes = b"",
        error: str | None = None,
    ) -> Receipt:
        return Receipt(
            method=self.method,
            url=self.url,
            params=tuple((str(k), str(v)) for k, v in self.params),
            status=status,
            headers=headers_that_matter(headers),
            body=body,
            started_at=self.started_at,
            ended_at=ended_at,
            error=error,
            request_headers=headers_that_matter(self.request_headers.items()),
            request_body=self.request_body,
        )


class ReceiptStore:
    """The content-addressed store under ``root`` (normally ``<data>/receipts``)."""

    def __init__(self, root: Path | str | RecordPath) -> None:
        self.root = record_path(root)

    def path_for(self, receipt_id: str) -> RecordPath:
        if len(receipt_id) != 64 or any(c not in "0123456789abcdef" for c in receipt_id):
            raise ReceiptError(f"{receipt_id!r} is not a SHA-256 receipt id")
        return self.root / "sha256" / receipt_id[:2] / f"{receipt_id[2:]}.json.gz"

    def put(self, receipt: Receipt) -> str:
        """Store ``receipt`` (a no-op if it is already there) and return its id."""
        canonical = receipt.canonical_bytes()
        receipt_id = hashlib.sha256(canonical).hexdigest()
        path = self.path_for(receipt_id)
        if not path.exists():
            # Another writer may store it in between: the same exchange, by its name.
            with contextlib.suppress(FileExistsError):
                write_bytes_atomic(path, gzip_bytes(canonical), create_only=True)
        return receipt_id

    def __contains__(self, receipt_id: str) -> bool:
        return self.path_for(receipt_id).exists()

    def canonical_bytes(self, receipt_id: str) -> bytes:
        """The receipt's canonical JSON, read from a file that must be exactly as the store writes it."""
        path = self.path_for(receipt_id)
        try:
            raw = read_bytes(path)
        except FileNotFoundError as exc:
            raise ReceiptError(f"receipt {receipt_id} is missing (expected at {path})") from exc
        data = gunzip_strict(raw, f"receipt {receipt_id} at {path}")
        actual = hashlib.sha256(data).hexdigest()
        if actual != receipt_id:
            raise ReceiptError(f"receipt {receipt_id} at {path} was altered: its bytes hash to {actual}")
        return data

    def written_as_here(self, receipt_id: str) -> bool:
        """Whether the file is exactly what this machine's zlib writes for the receipt.

        The name vouches for the content and ``canonical_bytes`` for the header, trailer and length;
        what is left is the deflate stream's own encoding, which another zlib may choose otherwise
        (and whose last byte may carry unused bits). Raises ``ReceiptError`` as ``get`` does.
        """
        raw = read_bytes(self.path_for(receipt_id))
        return gzip_bytes(gunzip_strict(raw, f"receipt {receipt_id}")) == raw

    def get(self, receipt_id: str) -> Receipt:
        return Receipt.from_document(json_values.loads_strings(self.canonical_bytes(receipt_id)))

    def ids(self) -> Iterator[str]:
        for path in sorted(self.root.glob("sha256/??/*.json.gz")):
            yield path.parent.name + path.name.removesuffix(".json.gz")


def format_receipt_time(value: dt.datetime) -> str:
    """``value`` in UTC with microseconds always present, the form receipts and request logs use."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: the clock must return aware (UTC) instants")
    return value.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
