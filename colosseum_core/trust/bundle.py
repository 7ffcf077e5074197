"""Signed results bundles: a manifest of every published file, signed with the arena key in DSSE.

COLOSSEUM-BUNDLE-1
------------------
* ``MANIFEST.json`` lists every other file of the bundle: its path (POSIX, relative), size and SHA-256,
  sorted by path, as RFC 8785 canonical JSON, with the arena key that signs it.
* ``MANIFEST.json.dsse`` is a DSSE envelope (https://github.com/secure-systems-lab/dsse, v1.0) over
  the manifest's exact bytes: payload type ``application/vnd.colosseum.manifest+json``, the payload in
  standard base64, one signature by the arena's Ed25519 key over the DSSE pre-authentication encoding
  ``"DSSEv1" SP len(type) SP type SP len(body) SP body`` (lengths in ASCII decimal), ``keyid`` the
  SHA-256 hex of the raw public key (as in COLOSSEUM-SIGNING-1).
* ``keys/arena.pem`` is the arena's public key (SubjectPublicKeyInfo PEM), so generic tools can check
  the envelope: any DSSE library, or ``openssl pkeyutl -verify -rawin`` over the PAE bytes.

The public key inside the bundle only says which key signed; an auditor compares its key id with
the arena key published in the record (``public_keys``) or pinned out of band.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from colosseum_core.record.atomic import write_bytes_atomic
from colosseum_core.record.ledger import file_sha256
from colosseum_core.trust.keys import SigningKey, key_id_of

BUNDLE_FORMAT: Final = "COLOSSEUM-BUNDLE-1"
MANIFEST_NAME: Final = "MANIFEST.json"
ENVELOPE_NAME: Final = "MANIFEST.json.dsse"
ARENA_PEM: Final = "keys/arena.pem"
PAYLOAD_TYPE: Final = "application/vnd.colosseum.manifest+json"
_UNLISTED: Final = frozenset({MANIFEST_NAME, ENVELOPE_NAME})


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: what the signature actually covers."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def dsse_envelope(payload_type: str, body: bytes, key: SigningKey) -> dict[str, Any]:
    """A DSSE v1 envelope over ``body``, signed by ``key`` (``keyid``: the raw public key's SHA-256)."""
    public = key.private.public_key()
    key_id = key_id_of(public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))
    return {
        "payloadType": payload_type,
        "payload": base64.b64encode(body).decode("ascii"),
        "signatures": [
            {"keyid": key_id, "sig": base64.b64encode(key.sign(pae(payload_type, body))).decode()}
        ],
    }


def dsse_problems(
    envelope: Any, payload_type: str, body: bytes, public_keys: Mapping[str, Ed25519PublicKey], what: str
) -> list[str]:
    """What is wrong with ``envelope`` as the signature over ``body`` by one of ``public_keys`` (by key
    id); each problem names ``what`` (the document)."""
    try:
        signed_body = base64.b64decode(envelope["payload"], validate=True)
        [signature] = envelope["signatures"]
        key_id, sig = signature["keyid"], base64.b64decode(signature["sig"], validate=True)
        signed_type = envelope["payloadType"]
    except (ValueError, KeyError, TypeError) as exc:
        return [f"{what}: its signature is not a DSSE envelope with one signature ({exc})"]
    problems = []
    if signed_type != payload_type:
        problems.append(f"{what}: signed as {signed_type!r}, not {payload_type!r}")
    if signed_body != body:
        problems.append(f"{what}: its bytes are not the payload its envelope signs")
    key = public_keys.get(key_id)
    if key is None:
        problems.append(f"{what}: signed by key {key_id!r}, not an arena key of the record")
        return problems
    try:
        key.verify(sig, pae(signed_type, signed_body))
    except InvalidSignature:
        problems.append(f"{what}: the arena signature (key {key_id}) does not verify")
    return problems


def bundle_files(root: Path) -> list[str]:
    """Every file under ``root`` the manifest must list, as sorted POSIX paths."""
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.name not in _UNLISTED
    )


def manifest_bytes(root: Path, signer_key_id: str, paths: Iterable[str] | None = None) -> bytes:
    files = [
        {"path": rel, "sha256": file_sha256(root / rel), "size": (root / rel).stat().st_size}
        for rel in (sorted(paths) if paths is not None else bundle_files(root))
    ]
    return rfc8785.dumps({"format": BUNDLE_FORMAT, "signed_by": signer_key_id, "files": files})


def sign_bundle(root: Path, arena_key: SigningKey) -> dict[str, Any]:
    """Write the arena's public key, the manifest and its DSSE envelope into ``root``; return the envelope."""
    public = arena_key.private.public_key()
    pem = public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    write_bytes_atomic(root / ARENA_PEM, pem)
    key_id = key_id_of(public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))
    body = manifest_bytes(root, key_id)
    envelope = dsse_envelope(PAYLOAD_TYPE, body, arena_key)
    write_bytes_atomic(root / MANIFEST_NAME, body)
    write_bytes_atomic(root / ENVELOPE_NAME, json.dumps(envelope, indent=1).encode() + b"\n")
    return envelope


@dataclasses.dataclass(frozen=True)
class BundleCheck:
    key_id: str | None
    files: int
    problems: list[str]
    # Files whose bytes are the ones the manifest lists, under a signature that verifies: the only
    # files of the bundle worth decoding.
    verified: frozenset[str] = frozenset()


def _public_key(root: Path, problems: list[str]) -> Ed25519PublicKey | None:
    try:
        key = serialization.load_pem_public_key((root / ARENA_PEM).read_bytes())
    except (OSError, ValueError) as exc:
        problems.append(f"{ARENA_PEM}: cannot be read as a public key ({exc})")
        return None
    if not isinstance(key, Ed25519PublicKey):
        problems.append(f"{ARENA_PEM}: is not an Ed25519 key")
        return None
    return key


def verify_bundle(root: Path, trusted_key_ids: Iterable[str] | None = None) -> BundleCheck:
    """Check the envelope's signature, that it covers the manifest, and every file against the manifest.

    Every problem names the file. ``trusted_key_ids``: the arena key ids the signer must be one of
    (from the record's ``public_keys``); None accepts the bundle's own key after checking the signature.
    """
    problems: list[str] = []
    try:
        envelope = json.loads((root / ENVELOPE_NAME).read_bytes())
        body = base64.b64decode(envelope["payload"], validate=True)
        [signature] = envelope["signatures"]
        sig = base64.b64decode(signature["sig"], validate=True)
        payload_type = envelope["payloadType"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return BundleCheck(None, 0, [f"{ENVELOPE_NAME}: not a DSSE envelope with one signature ({exc})"])
    if payload_type != PAYLOAD_TYPE:
        problems.append(f"{ENVELOPE_NAME}: payloadType {payload_type!r} is not {PAYLOAD_TYPE!r}")
    key = _public_key(root, problems)
    key_id = None
    if key is not None:
        key_id = key_id_of(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))
        if signature.get("keyid") != key_id:
            problems.append(
                f"{ENVELOPE_NAME}: keyid {signature.get('keyid')!r} is not {ARENA_PEM}'s {key_id}"
            )
        if trusted_key_ids is not None and key_id not in set(trusted_key_ids):
            problems.append(f"{ENVELOPE_NAME}: signed by key {key_id}, not an arena key of the record")
        try:
            key.verify(sig, pae(payload_type, body))
        except InvalidSignature:
            problems.append(f"{ENVELOPE_NAME}: the arena signature does not verify over the manifest")
    try:
        on_disk = (root / MANIFEST_NAME).read_bytes()
    except OSError:
        on_disk = None
    if on_disk != body:
        problems.append(f"{MANIFEST_NAME}: differs from the payload the envelope signs")
    try:
        manifest = json.loads(body)
        listed = {f["path"]: f for f in manifest["files"]}
    except (ValueError, KeyError, TypeError) as exc:
        return BundleCheck(key_id, 0, [*problems, f"{MANIFEST_NAME}: unreadable ({exc})"])
    signed = not problems
    present = set(bundle_files(root))
    for rel in sorted(present - set(listed)):
        problems.append(f"{rel}: published but not in the signed manifest")
    verified = set()
    for rel, entry in sorted(listed.items()):
        path = root / rel
        if rel not in present:
            problems.append(f"{rel}: in the signed manifest but missing")
        elif path.stat().st_size != entry["size"] or file_sha256(path) != entry["sha256"]:
            problems.append(f"{rel}: SHA-256 does not match the signed manifest")
        elif signed:
            verified.add(rel)
    return BundleCheck(key_id, len(listed), problems, frozenset(verified))
