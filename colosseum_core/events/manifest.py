"""COLOSSEUM-EVENT-MANIFEST-1: an event frozen before it starts, hashed, signed, and never edited.

Before any game or task is generated, the event's manifest is written: its contenders and their
configurations, the rules and their versions, the suite or bank and its hash, the seeds. Its bytes
are its RFC 8785 canonical JSON; its identifier is their SHA-256, which every result of the event
cites; its signature is a DSSE envelope by the arena key over exactly those bytes. The record holds
it once (``event_manifests``, written once per event): a second event is a new manifest under a new
event key, never an edit of this one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

import polars as pl
import rfc8785
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from colosseum_core.record import with_ids
from colosseum_core.statistics.placement import PLACEMENT_1
from colosseum_core.statistics.placement import RULES as PLACEMENT_RULES
from colosseum_core.trust.bundle import dsse_envelope, dsse_problems
from colosseum_core.trust.keys import ARENA, KeyStore, SigningKey, b64url, b64url_decode, key_id_of

EVENT_MANIFEST: Final = "COLOSSEUM-EVENT-MANIFEST-1"
MANIFEST_PAYLOAD_TYPE: Final = "application/vnd.colosseum.event-manifest+json"
MANIFEST_TABLE: Final = "event_manifests"


class ManifestError(ValueError):
    """A manifest that cannot be frozen or read back as frozen; names the event and the field."""


def placement_rule(document: Mapping[str, Any]) -> str:
    """The placement rule an event's standings follow: the one its manifest names (``rules.placement``,
    from COLOSSEUM-PLACEMENT-2 on); COLOSSEUM-PLACEMENT-1 for a manifest frozen before the rule was
    named, as every event then was placed."""
    rule = document.get("rules", {}).get("placement", PLACEMENT_1)
    if rule not in PLACEMENT_RULES:
        raise ManifestError(
            f"event {document.get('event')} manifest field rules.placement: {rule!r} is not a placement "
            f"rule ({', '.join(PLACEMENT_RULES)})"
        )
    return str(rule)


@dataclasses.dataclass(frozen=True)
class FrozenManifest:
    event: str
    kind: str
    document: dict[str, Any]
    body: bytes  # canonical JSON: what is hashed and signed
    sha256: str
    envelope: dict[str, Any]
    key_id: str
    public_key: str  # the arena key's raw public bytes, base64url


def manifest_head(
    event: str, kind: str, resolved: Mapping[str, Any], frozen_at: dt.datetime
) -> dict[str, Any]:
    """What every kind's manifest opens with: its format, the event, its kind and class (from the
    resolved contenders, with the keys they missed) and the instant it was frozen."""
    return {
        "format": EVENT_MANIFEST,
        "event": event,
        "kind": kind,
        "class": resolved["class"],
        "missing_keys": list(resolved.get("missing_keys", [])),
        "frozen_at": frozen_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        # A model maker's trial (``events.trial``): its id and the model as named, so the record alone
        # says which trial an event was; absent from every other event, whose bytes stay as they were.
        **({"trial": dict(resolved["trial"])} if resolved.get("trial") else {}),
    }


def manifest_bytes(document: Mapping[str, Any]) -> bytes:
    return rfc8785.dumps(dict(document))


def freeze(document: Mapping[str, Any], key: SigningKey) -> FrozenManifest:
    """``document`` frozen: canonical bytes, their SHA-256, and the arena key's signature over them."""
    for field in ("event", "kind", "frozen_at"):
        if not isinstance(document.get(field), str):
            raise ManifestError(f"an event manifest needs {field} as text, not {document.get(field)!r}")
    body = manifest_bytes(document)
    raw = key.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return FrozenManifest(
        event=document["event"],
        kind=document["kind"],
        document=json.loads(body),
        body=body,
        sha256=hashlib.sha256(body).hexdigest(),
        envelope=dsse_envelope(MANIFEST_PAYLOAD_TYPE, body, key),
        key_id=key_id_of(raw),
        public_key=b64url(raw),
    )


def arena_key(keys: KeyStore, now: dt.datetime) -> SigningKey:
    """The arena's key in force on ``now``'s UTC day (made if the day has none yet)."""
    day = now.astimezone(dt.UTC).date()
    keys.ensure_key(ARENA, day)
    return keys.signing_key(ARENA, day)


def freeze_signed(
    document: Mapping[str, Any], keys: KeyStore, now: dt.datetime
) -> tuple[FrozenManifest, pl.DataFrame]:
    """``document`` frozen under the arena's key of the day, and its ``event_manifests`` row."""
    frozen = freeze(document, arena_key(keys, now))
    return frozen, manifest_frame(frozen)


def manifest_frame(frozen: FrozenManifest) -> pl.DataFrame:
    """The event's one ``event_manifests`` row."""
    row = {
        "event": frozen.event,
        "kind": frozen.kind,
        "class": str(frozen.document.get("class", "")),
        "format": EVENT_MANIFEST,
        "manifest_sha256": frozen.sha256,
        "manifest": frozen.body.decode("utf-8"),
        "envelope": json.dumps(frozen.envelope, sort_keys=True),
        "key_id": frozen.key_id,
        "public_key": frozen.public_key,
        "frozen_at": dt.datetime.fromisoformat(frozen.document["frozen_at"].replace("Z", "+00:00")),
    }
    return with_ids(pl.DataFrame([row]))


def read_frozen(frame: pl.DataFrame, event: str) -> tuple[FrozenManifest, list[str]]:
    """The manifest an ``event_manifests`` table holds, and every problem with its hash and signature."""
    if frame.height != 1:
        raise ManifestError(f"event {event}: event_manifests has {frame.height} rows, not one")
    row = frame.row(0, named=True)
    where = f"event {event} manifest"
    body = str(row["manifest"]).encode("utf-8")
    problems: list[str] = []
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise ManifestError(f"{where}: not JSON ({exc})") from None
    if manifest_bytes(document) != body:
        problems.append(f"{where}: its bytes are not the canonical JSON of its content")
    digest = hashlib.sha256(body).hexdigest()
    if digest != row["manifest_sha256"]:
        problems.append(f"{where}: manifest_sha256 is {row['manifest_sha256']}, its bytes hash to {digest}")
    if document.get("event") != event:
        problems.append(f"{where}: names event {document.get('event')!r}")
    try:
        raw = b64url_decode(row["public_key"])
        keys = {key_id_of(raw): Ed25519PublicKey.from_public_bytes(raw)}
    except (ValueError, TypeError) as exc:
        problems.append(f"{where}: public_key {row['public_key']!r} is not an Ed25519 key ({exc})")
        keys = {}
    if keys and row["key_id"] not in keys:
        problems.append(f"{where}: key_id {row['key_id']} is not its public key's")
    try:
        envelope = json.loads(row["envelope"])
    except ValueError:
        envelope = None
    if keys:
        problems += dsse_problems(envelope, MANIFEST_PAYLOAD_TYPE, body, keys, where)
    frozen = FrozenManifest(
        event=event,
        kind=str(document.get("kind")),
        document=document,
        body=body,
        sha256=digest,
        envelope=envelope if isinstance(envelope, dict) else {},
        key_id=str(row["key_id"]),
        public_key=str(row["public_key"]),
    )
    return frozen, problems


def frozen_as_recorded(
    frame: pl.DataFrame, event: str, error: type[Exception], kind: str | None = None
) -> FrozenManifest:
    """The event's manifest as recorded; ``error`` if its hash or signature does not hold or (``kind``
    given) it is another kind of event."""
    frozen, problems = read_frozen(frame, event)
    if problems:
        raise error(f"event {event}: its manifest is not as frozen: {'; '.join(problems)}")
    if kind is not None and frozen.kind != kind:
        raise error(f"event {event} is a {frozen.kind} event, not a {kind} event")
    return frozen
