"""Signing: seat and arena keys, two signatures per answer record, and a card verifier that names records."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import io
import json
import stat
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from hypothesis import given, settings
from hypothesis import strategies as st

from colosseum_core.record.identifiers import canonical_json, row_id
from colosseum_core.trust.keys import (
    ARENA,
    OFFLINE_FIRST_DAY,
    KeyPermissionError,
    KeyStore,
    PublicKeyRecord,
    SigningError,
    SigningKey,
    b64url,
    b64url_decode,
    key_in_force,
    public_keys_frame,
)
from colosseum_core.trust.signing import (
    SIGNATURE_COLUMNS,
    SIGNING_SCHEME,
    RowSigning,
    SignedRecord,
    answer_message,
    countersign_message,
    record_content,
    sign_record,
    signatures_frame,
    verify_record,
    verify_signed_rows,
)

# The forecast's shape of signed rows, spelled out here: the scheme itself knows no arena.
SPEC = RowSigning("card", "seat", "card_date", "answer", "answer_signatures", "answers")


def verify_card(rows, public_keys, *, expected_seats=None, **kw):  # type: ignore[no-untyped-def]
    return verify_signed_rows(rows, public_keys, SPEC, expected_signers=expected_seats, **kw)


CARD = "2026-11-30-0500"
CARD_DATE = dt.date(2026, 11, 30)
FIRST_DAY = dt.date(2026, 11, 1)
SEATS = ("seat-a", "seat-b", "seat_c", "seat-d")


def _seed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def _key(name: str, valid_from: dt.date = FIRST_DAY) -> SigningKey:
    return SigningKey.from_seed(name, _seed(name), valid_from)


KEYS = {name: _key(name) for name in (*SEATS, ARENA)}
PUBLIC = [k.record for k in KEYS.values()]


def _content(seat: str, question: str = "M01", card_date: dt.date = CARD_DATE) -> dict[str, Any]:
    return {
        "card": CARD,
        "card_date": card_date,
        "seat": seat,
        "question": question,
        "call": "YES",
        "confidence": 7,
        "reply": f"{question}: YES 7",
    }


def _signed_row(content: dict[str, Any], seat_key: SigningKey, arena_key: SigningKey) -> dict[str, Any]:
    signed = sign_record(content, seat_key, arena_key)
    return {"id": signed.record_id, **content, **signed.envelope()}


def _card_rows() -> list[dict[str, Any]]:
    return [_signed_row(_content(seat, q), KEYS[seat], KEYS[ARENA]) for seat in SEATS for q in ("M01", "M02")]


def _flip_char(text: str, index: int) -> str:
    return text[:index] + chr(ord(text[index]) ^ 1) + text[index + 1 :]


def _flip_signature_byte(signature: str, index: int = 5) -> str:
    raw = bytearray(b64url_decode(signature))
    raw[index] ^= 0x01
    return b64url(bytes(raw))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- keys ------------------------------------------------------------------------------------------


def test_keys_are_created_owner_only(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys", environ={})
    record = store.ensure_key("seat-a", FIRST_DAY)
    path = tmp_path / "keys" / "seat-a" / "2026-11-01.key"
    assert _mode(path) == 0o600
    assert _mode(tmp_path / "keys") == 0o700
    assert _mode(tmp_path / "keys" / "seat-a") == 0o700
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert record.name == "seat-a" and record.valid_from == FIRST_DAY and record.algorithm == "ed25519"
    assert record.key_id == hashlib.sha256(record.raw()).hexdigest()
    assert store.signing_key("seat-a", CARD_DATE).record == record
    assert [p.name for p in (tmp_path / "keys" / "seat-a").iterdir()] == ["2026-11-01.key"]  # no temp left


def test_ensure_key_is_idempotent_and_never_overwrites(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys", environ={})
    first = store.ensure_key("arena", FIRST_DAY)
    path = tmp_path / "keys" / "arena" / "2026-11-01.key"
    before = path.read_bytes()
    again = store.ensure_key("arena", dt.date(2027, 1, 1))
    assert again == first
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_the_offline_defaults_arena_key_covers_every_day_the_record_can_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLOSSEUM_POSTGRES_URL", raising=False)
    monkeypatch.delenv("COLOSSEUM_KEY_ARENA", raising=False)
    offline = KeyStore.for_data(tmp_path / "data")
    assert offline.arena_first_day == OFFLINE_FIRST_DAY
    # An event frozen today creates the key; a card dated weeks earlier is signed by it all the same.
    created = offline.ensure_key(ARENA, dt.date(2026, 12, 4))
    assert created.valid_from == OFFLINE_FIRST_DAY
    assert offline.signing_key(ARENA, dt.date(2026, 11, 20)).record == created
    # Only the arena's key: a seat's first key is valid from the seat's own first day.
    assert offline.ensure_key("seat-a", FIRST_DAY).valid_from == FIRST_DAY
    # An earlier date asked for is kept, and an existing key is never re-dated.
    earlier = KeyStore(tmp_path / "other", environ={}, arena_first_day=OFFLINE_FIRST_DAY)
    assert earlier.ensure_key(ARENA, dt.date(2025, 6, 1)).valid_from == dt.date(2025, 6, 1)
    assert offline.ensure_key(ARENA, dt.date(2025, 6, 1)) == created


@pytest.mark.parametrize("production", ["postgres", "bucket"])
def test_a_production_arena_key_is_valid_only_from_the_first_thing_it_signs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, production: str
) -> None:
    monkeypatch.delenv("COLOSSEUM_KEY_ARENA", raising=False)
    if production == "postgres":
        monkeypatch.setenv("COLOSSEUM_POSTGRES_URL", "postgresql://nobody@127.0.0.1:9/none")
        store = KeyStore.for_data(tmp_path / "data")
    else:
        monkeypatch.delenv("COLOSSEUM_POSTGRES_URL", raising=False)
        monkeypatch.setenv("COLOSSEUM_LOCAL_DIR", str(tmp_path / "local"))
        store = KeyStore.for_data("s3://bucket/record")
    assert store.arena_first_day is None
    assert store.ensure_key(ARENA, dt.date(2026, 12, 4)).valid_from == dt.date(2026, 12, 4)
    with pytest.raises(SigningError, match=r"no key of 'arena' is valid on 2026-11-20"):
        store.signing_key(ARENA, dt.date(2026, 11, 20))


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o660])
def test_a_key_others_can_read_is_refused(tmp_path: Path, mode: int) -> None:
    store = KeyStore(tmp_path / "keys", environ={})
    store.ensure_key("seat-a", FIRST_DAY)
    path = tmp_path / "keys" / "seat-a" / "2026-11-01.key"
    path.chmod(mode)
    with pytest.raises(KeyPermissionError) as err:
        store.signing_key("seat-a", CARD_DATE)
    assert str(path) in str(err.value) and f"{mode:04o}" in str(err.value)
    with pytest.raises(KeyPermissionError):
        store.ensure_key("seat-a", FIRST_DAY)


def test_a_raw_seed_file_is_a_key(tmp_path: Path) -> None:
    folder = tmp_path / "keys" / "seat-b"
    folder.mkdir(parents=True, mode=0o700)
    (folder / "2026-11-01.key").write_bytes(_seed("seat-b"))
    (folder / "2026-11-01.key").chmod(0o600)
    store = KeyStore(tmp_path / "keys", environ={})
    assert store.signing_key("seat-b", CARD_DATE).record == KEYS["seat-b"].record
    assert store.ensure_key("seat-b", CARD_DATE) == KEYS["seat-b"].record


@pytest.mark.parametrize("encode", [bytes.hex, lambda b: base64.b64encode(b).decode(), b64url])
def test_the_environment_takes_precedence(tmp_path: Path, encode: Any) -> None:
    on_disk = KeyStore(tmp_path / "keys", environ={}).ensure_key("seat-a", FIRST_DAY)
    env = {"COLOSSEUM_KEY_SEAT_A": encode(_seed("seat-a")), "COLOSSEUM_KEY_SEAT_A_VALID_FROM": "2026-11-01"}
    store = KeyStore(tmp_path / "keys", environ=env)
    assert store.signing_key("seat-a", CARD_DATE).record == KEYS["seat-a"].record != on_disk
    assert store.ensure_key("seat-a", FIRST_DAY) == KEYS["seat-a"].record
    assert store.public_keys(["seat-a"]) == [KEYS["seat-a"].record]
    with pytest.raises(SigningError, match="replace it there"):
        store.rotate_key("seat-a", CARD_DATE)


def test_a_bad_environment_seed_is_reported_without_its_value(tmp_path: Path) -> None:
    secret = "not-a-seed-but-still-a-secret"
    store = KeyStore(tmp_path / "keys", environ={"COLOSSEUM_KEY_ARENA": secret})
    with pytest.raises(SigningError) as err:
        store.signing_key("arena", CARD_DATE)
    assert "$COLOSSEUM_KEY_ARENA" in str(err.value) and secret not in str(err.value)


def test_an_environment_key_without_a_date_is_not_published(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys", environ={"COLOSSEUM_KEY_ARENA": _seed("arena").hex()})
    assert store.signing_key("arena", CARD_DATE).record.raw() == KEYS[ARENA].record.raw()
    with pytest.raises(SigningError, match="VALID_FROM"):
        store.public_keys(["arena"])


@pytest.mark.parametrize("name", ["", "Seat", "-seat", "seat/../x", "a" * 65, "seat.a", "ärena"])
def test_key_names_are_validated(tmp_path: Path, name: str) -> None:
    with pytest.raises(SigningError, match="key name"):
        KeyStore(tmp_path / "keys", environ={}).ensure_key(name, FIRST_DAY)


def test_a_replacement_key_takes_over_on_its_date(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys", environ={})
    old = store.ensure_key("seat-a", FIRST_DAY)
    new = store.rotate_key("seat-a", dt.date(2026, 12, 1))
    with pytest.raises(SigningError, match="must be valid after"):
        store.rotate_key("seat-a", dt.date(2026, 12, 1))
    assert store.signing_key("seat-a", dt.date(2026, 11, 30)).record == old
    assert store.signing_key("seat-a", dt.date(2026, 12, 1)).record == new
    assert store.ensure_key("seat-a", FIRST_DAY) == new
    with pytest.raises(SigningError, match="no key of 'seat-a' is valid on 2026-10-31"):
        store.signing_key("seat-a", dt.date(2026, 10, 31))
    assert sorted(r.valid_from for r in store.public_keys()) == [FIRST_DAY, dt.date(2026, 12, 1)]


# --- the public record -----------------------------------------------------------------------------


def test_public_keys_frame_carries_ids_and_round_trips() -> None:
    frame = public_keys_frame(PUBLIC)
    assert frame.columns == ["id", "name", "algorithm", "public_key", "key_id", "valid_from"]
    assert frame["name"].to_list() == sorted(k.name for k in PUBLIC)
    assert all(row["id"] == row_id(row) for row in frame.iter_rows(named=True))
    assert [PublicKeyRecord.from_row(r) for r in frame.iter_rows(named=True)] == sorted(
        PUBLIC, key=lambda r: r.name
    )
    assert public_keys_frame([]).columns == frame.columns


def test_public_keys_frame_holds_no_private_bytes(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys", environ={})
    for name in (*SEATS, ARENA):
        store.ensure_key(name, FIRST_DAY)
    frame = public_keys_frame(store.public_keys())
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    published = buffer.getvalue() + frame.write_csv().encode()
    for name in (*SEATS, ARENA):
        seed = store.signing_key(name, CARD_DATE).private.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        for needle in (seed, seed.hex().encode(), base64.b64encode(seed), b64url(seed).encode()):
            assert needle not in published
        assert b64url(store.signing_key(name, CARD_DATE).record.raw()).encode() in published


# --- signing and verifying -------------------------------------------------------------------------


def test_a_card_round_trips_through_parquet() -> None:
    frame = pl.DataFrame(_card_rows())
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    again = pl.read_parquet(io.BytesIO(buffer.getvalue()))
    assert verify_card(again, public_keys_frame(PUBLIC), expected_seats=SEATS) == []
    assert verify_card(_card_rows(), PUBLIC) == []


def test_signatures_can_live_in_their_own_table() -> None:
    contents = [_content(seat) for seat in SEATS]
    signed = [sign_record(c, KEYS[c["seat"]], KEYS[ARENA]) for c in contents]
    rows = [{"id": s.record_id, **c} for s, c in zip(signed, contents, strict=True)]
    sigs = signatures_frame(signed)
    assert all(r["id"] == row_id(r) for r in sigs.iter_rows(named=True))
    assert verify_card(rows, PUBLIC, signatures=sigs) == []
    problems = verify_card(rows, PUBLIC, signatures=sigs.filter(pl.col("seat") != "seat-b"))
    assert len(problems) == 1 and "seat seat-b" in problems[0] and "no signatures" in problems[0]


def test_verify_record_checks_one_record() -> None:
    content = _content("seat-a")
    signed = sign_record(content, KEYS["seat-a"], KEYS[ARENA])
    args = (KEYS["seat-a"].record, KEYS[ARENA].record)
    assert verify_record(content, signed.seat_signature, signed.arena_signature, *args, SPEC) == []
    bad = verify_record(
        content, _flip_signature_byte(signed.seat_signature), signed.arena_signature, *args, SPEC
    )
    assert any("seat signature does not verify" in p for p in bad)
    assert all(f"card {CARD} seat seat-a record {signed.record_id}" in p for p in bad)


def _tamper_content(row: dict[str, Any]) -> None:
    row["reply"] = _flip_char(row["reply"], 0)


def _tamper_seat_signature(row: dict[str, Any]) -> None:
    row["seat_signature"] = _flip_signature_byte(row["seat_signature"])


def _tamper_arena_signature(row: dict[str, Any]) -> None:
    row["arena_signature"] = _flip_signature_byte(row["arena_signature"], 63)


def _tamper_id(row: dict[str, Any]) -> None:
    row["id"] = _flip_char(row["id"], 10)


def _tamper_signature_text(row: dict[str, Any]) -> None:
    # The last character of 64 bytes in base64url carries 4 unused bits: a lenient decoder would not notice.
    row["seat_signature"] = row["seat_signature"][:-1] + chr(ord(row["seat_signature"][-1]) ^ 1)


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        (_tamper_content, "seat signature does not verify"),
        (_tamper_seat_signature, "seat signature does not verify"),
        (_tamper_arena_signature, "arena countersignature does not verify"),
        (_tamper_id, "does not match its content"),
        (_tamper_signature_text, "seat signature is malformed"),
    ],
)
def test_one_flipped_byte_fails_and_names_the_record(tamper: Any, expected: str) -> None:
    rows = _card_rows()
    victim = rows[3]
    tamper(victim)
    problems = verify_card(pl.DataFrame(rows), PUBLIC)
    assert problems, "tampering went unnoticed"
    assert all(f"card {CARD} seat {victim['seat']} record {victim['id']}" in p for p in problems)
    assert any(expected in p for p in problems)


def test_a_signature_by_another_seats_key_fails() -> None:
    content = _content("seat-a")
    with pytest.raises(SigningError, match="cannot be signed with the key of 'seat-b'"):
        sign_record(content, KEYS["seat-b"], KEYS[ARENA])
    record_id = row_id(content)
    forged_seat = KEYS["seat-b"].sign(answer_message(record_id))
    forged = SignedRecord(
        record_id=record_id,
        seat="seat-a",
        seat_key_id=KEYS["seat-a"].record.key_id,  # claims seat-a's key
        seat_signature=b64url(forged_seat),
        arena_key_id=KEYS[ARENA].record.key_id,
        arena_signature=b64url(KEYS[ARENA].sign(countersign_message(record_id, forged_seat))),
    )
    problems = verify_card([{"id": record_id, **content, **forged.envelope()}], PUBLIC)
    assert len(problems) == 1 and "seat signature does not verify" in problems[0]
    assert f"seat seat-a record {record_id}" in problems[0]
    honest_about_key = {**forged.envelope(), "seat_key_id": KEYS["seat-b"].record.key_id}
    problems = verify_card([{"id": record_id, **content, **honest_about_key}], PUBLIC)
    assert problems and "key of seat-b" in problems[0]


def test_the_arena_key_must_be_the_arena_key() -> None:
    with pytest.raises(SigningError, match="not the 'arena' key"):
        sign_record(_content("seat-a"), KEYS["seat-a"], KEYS["seat-b"])


def test_a_key_valid_only_after_the_answer_date_is_refused() -> None:
    late_seat = _key("seat-a", dt.date(2026, 12, 1))
    row = _signed_row(_content("seat-a"), late_seat, KEYS[ARENA])
    keys = [late_seat.record, KEYS[ARENA].record]
    problems = verify_card([row], keys)
    assert len(problems) == 1 and "seat key refused" in problems[0] and "valid on 2026-11-30" in problems[0]
    assert f"card {CARD} seat seat-a record {row['id']}" in problems[0]
    late_arena = _key(ARENA, dt.date(2026, 12, 1))
    row = _signed_row(_content("seat-a"), KEYS["seat-a"], late_arena)
    assert any(
        "arena key refused" in p for p in verify_card([row], [KEYS["seat-a"].record, late_arena.record])
    )


def test_verification_picks_the_key_in_force_on_the_records_date() -> None:
    replacement = SigningKey.from_seed("seat-a", _seed("seat-a/2"), dt.date(2026, 12, 1))
    keys = [*PUBLIC, replacement.record]
    before = _signed_row(_content("seat-a"), KEYS["seat-a"], KEYS[ARENA])
    after = _signed_row(_content("seat-a", card_date=dt.date(2026, 12, 2)), replacement, KEYS[ARENA])
    assert verify_card([before, after], keys) == []
    stale = _signed_row(_content("seat-a", card_date=dt.date(2026, 12, 2)), KEYS["seat-a"], KEYS[ARENA])
    problems = verify_card([stale], keys)
    assert len(problems) == 1 and "not the one in force on 2026-12-02" in problems[0]
    assert key_in_force(keys, "seat-a", dt.date(2026, 12, 1)) == replacement.record
    assert key_in_force(keys, "seat-a", dt.date(2026, 11, 30)) == KEYS["seat-a"].record


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"seat_signature": "!!!not base64!!!"}, "seat signature is malformed"),
        ({"arena_signature": b64url(b"short")}, "arena signature is 5 bytes"),
        ({"seat_signature": None, "arena_signature": 17}, "malformed"),
        ({"seat": "nobody"}, "no key of 'nobody'"),
        ({"seat": None}, "is not a seat id"),
        ({"card_date": "someday"}, "no usable date"),
        ({"card_date": dt.datetime(2026, 11, 30, tzinfo=dt.UTC)}, "no usable date"),
        ({"signing_scheme": "COLOSSEUM-SIGNING-0"}, "signing scheme"),
        ({"seat_key_id": "0" * 64}, "an unknown key"),
        ({"confidence": float("nan")}, "content has no identifier"),
        ({k: None for k in SIGNATURE_COLUMNS}, "no signatures"),
    ],
)
def test_bad_input_is_reported_never_raised(change: dict[str, Any], expected: str) -> None:
    row = {**_card_rows()[0], **change}
    problems = verify_card([row], PUBLIC)
    assert any(expected in p for p in problems), problems
    assert all(p.startswith(f"card {CARD} seat ") and " record " in p for p in problems)


def test_missing_keys_missing_seats_and_duplicates_are_reported() -> None:
    rows = _card_rows()
    assert any("arena key refused" in p for p in verify_card(rows, [KEYS["seat-a"].record]))
    problems = verify_card([*rows, rows[0]], PUBLIC, expected_seats=[*SEATS, "seat-e"])
    assert any("appears twice" in p for p in problems)
    assert f"card {CARD} seat seat-e: no answer record" in problems
    bad_key_row = {**KEYS["seat-a"].record.row(), "public_key": "AAAA"}
    problems = verify_card(rows, [*PUBLIC, bad_key_row])
    assert any("public key row" in p for p in problems)
    assert verify_card([], []) == []
    problems = verify_card([None, 3], [None], signatures=["x"])  # type: ignore[list-item]
    assert len(problems) == 4 and all("not a row" in p or "unusable" in p for p in problems)


# --- properties ------------------------------------------------------------------------------------

_keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).filter(
    lambda k: k not in {"id", "seat", "card", "card_date", *SIGNATURE_COLUMNS}
)
_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)
_rows = st.dictionaries(_keys, _values, max_size=6).map(
    lambda extra: {"card": CARD, "card_date": CARD_DATE.isoformat(), "seat": "seat_c", **extra}
)


@settings(max_examples=60, deadline=None)
@given(row=_rows, index=st.integers(min_value=0), xor=st.integers(min_value=1, max_value=255))
def test_any_single_byte_change_of_the_content_fails(row: dict[str, Any], index: int, xor: int) -> None:
    signed = sign_record(row, KEYS["seat_c"], KEYS[ARENA])
    stored = {"id": signed.record_id, **row, **signed.envelope()}
    assert verify_card([stored], PUBLIC) == []

    canonical = bytearray(canonical_json(record_content(stored)))
    position = index % len(canonical)
    canonical[position] ^= xor
    changed = bytes(canonical)
    # The seat signed the hash of the canonical bytes, so no other bytes can carry its signature.
    forged_id = hashlib.sha256(changed).hexdigest()
    seat = KEYS["seat_c"].record.public()
    with pytest.raises(InvalidSignature):
        seat.verify(b64url_decode(signed.seat_signature), answer_message(forged_id))

    try:
        parsed = json.loads(changed.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return  # the change broke the JSON: there is no record left to pass off
    if not isinstance(parsed, dict):
        return
    try:
        same = canonical_json(parsed) == canonical_json(record_content(stored))
    except Exception:  # e.g. a digit change pushed an integer past JSON's safe range
        same = False
    if same:
        return  # the same content spelled differently (e.g. an escape's hex case): nothing changed
    tampered = {**parsed, "id": signed.record_id, **signed.envelope()}
    problems = verify_card([tampered], PUBLIC, on_date=CARD_DATE)
    assert problems and all(f"record {signed.record_id}" in p for p in problems)
    assert stored["signing_scheme"] == SIGNING_SCHEME
