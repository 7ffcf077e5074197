"""COLOSSEUM-EVENT-BUNDLE-1: an event's results, signed once it is sealed.

After an event seals, its results bundle lists every table the seal vouches for (the frozen
manifest; the games and moves, or the replies, or every phase of a challenge: submissions, checker
runs, commitments, replies, reviews, the revealed tasks and salts, the scores; and the standings)
with the SHA-256 of its exact Parquet bytes, beside the manifest's SHA-256 and the seal's instant.
Its bytes are RFC 8785 canonical JSON, signed by the arena key in a DSSE envelope; the record keeps
it once (``event_bundles``) and the board publishes it as ``bundle.json`` and ``bundle.dsse.json``.
Anyone can check a downloaded table against it, and ``verify`` checks the signature and every hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

import polars as pl
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from colosseum_core.record import with_ids
from colosseum_core.trust.bundle import dsse_envelope, dsse_problems
from colosseum_core.trust.keys import SigningKey, b64url_decode, key_id_of

EVENT_BUNDLE: Final = "COLOSSEUM-EVENT-BUNDLE-1"
BUNDLE_PAYLOAD: Final = "application/vnd.colosseum.event-bundle+json"
BUNDLE_TABLE: Final = "event_bundles"
BUNDLE_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "format": pl.String(),
    "document": pl.String(),
    "sha256": pl.String(),
    "envelope": pl.String(),
    "artifacts": pl.Int64(),
    "manifest_sha256": pl.String(),
}


def bundle_document(
    manifest: Mapping[str, Any], cited: str, sealed_at: str, tables: Mapping[str, str]
) -> bytes:
    """The bundle's canonical bytes: the event, its manifest, its seal's instant, every sealed table's
    hash."""
    return rfc8785.dumps(
        {
            "format": EVENT_BUNDLE,
            "event": manifest["event"],
            "kind": manifest["kind"],
            "class": manifest["class"],
            "manifest_sha256": cited,
            "sealed_at": sealed_at,
            "artifacts": [{"table": name, "sha256": digest} for name, digest in sorted(tables.items())],
        }
    )


def bundle_frame(
    manifest: Mapping[str, Any], cited: str, sealed_at: str, tables: Mapping[str, str], key: SigningKey
) -> pl.DataFrame:
    body = bundle_document(manifest, cited, sealed_at, tables)
    row = {
        "event": manifest["event"],
        "format": EVENT_BUNDLE,
        "document": body.decode("utf-8"),
        "sha256": hashlib.sha256(body).hexdigest(),
        "envelope": json.dumps(dsse_envelope(BUNDLE_PAYLOAD, body, key), sort_keys=True),
        "artifacts": len(tables),
        "manifest_sha256": cited,
    }
    return with_ids(pl.DataFrame([row], schema=BUNDLE_SCHEMA))


def bundle_problems(
    bundle: pl.DataFrame, public_key: str, cited: str, sealed_at: str, tables: Mapping[str, str]
) -> list[str]:
    """What is wrong with an event's bundle: its bytes, its signature by the manifest's arena key, and
    every hash against the seal's (``tables``) and the record's files."""
    where = f"{BUNDLE_TABLE} event {bundle['event'][0]}"
    if bundle.height != 1:
        return [f"{where}: {bundle.height} rows, not one"]
    row = bundle.row(0, named=True)
    body = str(row["document"]).encode("utf-8")
    problems = []
    if hashlib.sha256(body).hexdigest() != row["sha256"]:
        problems.append(f"{where}: its document does not hash to its sha256")
    raw = b64url_decode(public_key)
    key = {key_id_of(raw): Ed25519PublicKey.from_public_bytes(raw)}
    problems += dsse_problems(json.loads(row["envelope"]), BUNDLE_PAYLOAD, body, key, where)
    document = json.loads(body)
    if document.get("manifest_sha256") != cited or document.get("sealed_at") != sealed_at:
        problems.append(
            f"{where}: names manifest {document.get('manifest_sha256')} sealed {document.get('sealed_at')}, "
            f"not the seal's {cited} of {sealed_at}"
        )
    listed = {a["table"]: a["sha256"] for a in document.get("artifacts", [])}
    for table in sorted(set(listed) | set(tables)):
        if listed.get(table) != tables.get(table):
            problems.append(
                f"{where} artifact {table}: the bundle says {str(listed.get(table))[:12]}…, the seal and "
                f"the record {str(tables.get(table))[:12]}…"
            )
    return problems
