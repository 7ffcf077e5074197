"""COLOSSEUM-BUNDLE-1: the signed manifest of a published bundle, checked by our code and by hand."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from colosseum_core.trust.bundle import ENVELOPE_NAME, MANIFEST_NAME, sign_bundle, verify_bundle
from colosseum_core.trust.keys import ARENA, SigningKey

KEY = SigningKey.from_seed(ARENA, bytes(range(32)), dt.date(2026, 1, 1))


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "cards").mkdir(parents=True)
    (root / "index.html").write_text("<h1>board</h1>")
    (root / "cards" / "2026-11-20-1000.html").write_text("<p>card</p>")
    sign_bundle(root, KEY)
    return root


def test_a_signed_bundle_verifies_and_lists_every_file(bundle: Path) -> None:
    check = verify_bundle(bundle, trusted_key_ids=[KEY.record.key_id])
    assert check.problems == [] and check.files == 3  # two pages and the arena's public key
    manifest = json.loads((bundle / MANIFEST_NAME).read_bytes())
    assert [f["path"] for f in manifest["files"]] == [
        "cards/2026-11-20-1000.html",
        "index.html",
        "keys/arena.pem",
    ]


def test_the_envelope_checks_with_generic_tools_dsse_by_hand(bundle: Path) -> None:
    envelope = json.loads((bundle / ENVELOPE_NAME).read_text())
    body = base64.b64decode(envelope["payload"])
    kind = envelope["payloadType"].encode()
    pae = b"DSSEv1 " + str(len(kind)).encode() + b" " + kind + b" " + str(len(body)).encode() + b" " + body
    public = serialization.load_pem_public_key((bundle / "keys" / "arena.pem").read_bytes())
    public.verify(base64.b64decode(envelope["signatures"][0]["sig"]), pae)  # raises if wrong
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert envelope["signatures"][0]["keyid"] == hashlib.sha256(raw).hexdigest()


@pytest.mark.parametrize(
    ("tamper", "named"),
    [
        (lambda r: (r / "index.html").write_text("<h1>board!</h1>"), "index.html: SHA-256 does not match"),
        (
            lambda r: (r / "extra.html").write_text("x"),
            "extra.html: published but not in the signed manifest",
        ),
        (
            lambda r: (r / "cards" / "2026-11-20-1000.html").unlink(),
            "cards/2026-11-20-1000.html: in the signed manifest but missing",
        ),
        (
            lambda r: (r / MANIFEST_NAME).write_bytes(
                (r / MANIFEST_NAME).read_bytes().replace(b'"size":14', b'"size":15')
            ),
            "MANIFEST.json: differs",
        ),
    ],
)
def test_tampering_is_named(bundle: Path, tamper, named: str) -> None:
    tamper(bundle)
    problems = verify_bundle(bundle).problems
    assert any(named in p for p in problems), problems


def test_a_flipped_signature_byte_or_an_untrusted_key_is_named(bundle: Path) -> None:
    envelope = json.loads((bundle / ENVELOPE_NAME).read_text())
    sig = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    sig[0] ^= 1
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    (bundle / ENVELOPE_NAME).write_text(json.dumps(envelope))
    assert any("does not verify" in p for p in verify_bundle(bundle).problems)
    assert any("not an arena key" in p for p in verify_bundle(bundle, trusted_key_ids=["0" * 64]).problems)
