"""The challenge event's steps, each one function a Dagster asset calls.

- ``freeze_challenge_event``: the contenders and the two judges resolved, the manifest signed.
- ``author``: every slot asked (journalled: a resumed run asks nothing answered again).
- ``admit``: every reply parsed and its task verified in the sandbox.
- ``commit_tasks``: a salt drawn per verified task (kept in the private key store until the reveal),
  the commitments signed by the arena key: nothing is shown to a solver before this exists.
- ``solve``: every task asked of every other contender (journalled), answers checked.
- ``review``: every objection put to the two judges, blinded (journalled).
- ``reveal``: every task and salt revealed, every reference program run again, the event's key and
  its receipts published.
- ``score``: the points and the standings.

Sealed until revealed (CHALLENGE-COMMIT-2): the event's key (drawn once, before the first author is
asked) waits in the private key store beside the salts (``sealed_dir``), and so do the receipts of
every call before the reveal: they are written there, raw and content-addressed, before anything
parses them, and the reveal copies them into the record's store under the same names. Every table
written before the reveal is sealed under the key (``event.seal_tables``) and opened with it by the
phases after; the scoring opens them with the key the reveal published, as anyone can.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.asking import Asked, AskersError, AskSettings, Question
from colosseum_core.events.challenges.event import (
    JOURNAL_FIELDS,
    ChallengeError,
    author_questions,
    authored_table,
    challenge_manifest,
    commitments_table,
    key_table,
    open_tables,
    package,
    published_key,
    replies_tables,
    reveals_table,
    review_questions,
    reviews_table,
    scoring_tables,
    seal_tables,
    sealed_event,
    solve_questions,
    submissions_tables,
)
from colosseum_core.events.challenges.sealing import SealingError, check_key, draw_key
from colosseum_core.events.contenders import (
    CALIBRATION,
    SPARRING,
    ContendersError,
    ModelCheck,
    check_fight,
    checked,
    keep_only,
    model_fields,
    required_text,
    resolve_models,
)
from colosseum_core.events.manifest import FrozenManifest, arena_key, freeze_signed, frozen_as_recorded
from colosseum_core.events.tasks.checking import ProgramRunner
from colosseum_core.events.trial_field import NO_KEYS, with_trial_model
from colosseum_core.providers.pools import ProviderLimits
from colosseum_core.record.atomic import write_bytes_atomic
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import write_recorded
from colosseum_core.record.receipts import ReceiptStore, gzip_bytes
from colosseum_core.trust.commitments import SALT_BYTES
from colosseum_core.trust.keys import KeyStore

DEFAULT_CONTENDERS: Final = Path(__file__).resolve().parents[3] / "challenges.toml"
JOURNAL: Final = "challenges"
DEFAULT_SLOTS: Final = 2


def _judges(
    path: Path | str, registry: Mapping[str, Any], resolved: Mapping[str, Any], environ: Mapping[str, str]
) -> list[dict[str, Any]]:
    where = f"contenders {Path(path)}"
    settings = resolved["contenders"][0]["settings"] if resolved["contenders"] else {}
    judges = []
    for raw in registry.get("judge", []):
        if not isinstance(raw, dict):
            raise ContendersError(f"{where}: a [[judge]] entry is not a table")
        judge = required_text(where, raw, "id")
        fields = {
            "id": judge,
            **model_fields(f"{where} [[judge]] {judge}", raw),
            "house": required_text(where, raw, "house"),
        }
        if resolved["class"] == CALIBRATION:
            house = {
                "model": fields["house"],
                "base_url": SPARRING,
                "key_env": None,
                "stands_in_for": fields["model"],
            }
            judges.append(
                {
                    "id": fields["id"],
                    "kind": "model",
                    "protocol": fields["protocol"],
                    **house,
                    "settings": settings,
                }
            )
        elif fields["key_env"] and not environ.get(fields["key_env"]):
            raise ContendersError(
                f"{where}: judge {fields['id']} needs ${fields['key_env']} in a FIGHT event"
            )
        else:
            judges.append(
                {
                    **{k: fields[k] for k in ("id", "protocol", "model", "base_url", "key_env")},
                    "kind": "model",
                    "settings": settings,
                }
            )
    return judges


def freeze_challenge_event(
    *,
    event: str,
    contenders_path: Path | str,
    environ: Mapping[str, str],
    slots: int,
    seed: int,
    keys: KeyStore,
    now: dt.datetime,
    replicates: int | None = None,
    only: Sequence[str] = (),
    check: ModelCheck | None = None,
    trial: Mapping[str, Any] | None = None,
) -> tuple[FrozenManifest, pl.DataFrame]:
    """``trial``: a model maker's trial, its model beside the house field, judged by the house
    reviewers (``events.trial_field``)."""
    if trial is not None:
        environ = NO_KEYS
    resolved, registry = resolve_models(contenders_path, environ, extra_sections=("judge",))
    if trial is not None:
        resolved = with_trial_model(resolved, trial)
    resolved = keep_only(resolved, only, event=event, path=contenders_path)
    resolved = checked(contenders_path, resolved)
    judges = _judges(contenders_path, registry, resolved, environ)
    check_fight(event, resolved, check, *judges)
    extra = {} if replicates is None else {"replicates": replicates}
    document = challenge_manifest(
        event=event, resolved=resolved, judges=judges, slots=slots, seed=seed, frozen_at=now, **extra
    )
    return freeze_signed(document, keys, now)


def frozen_challenge(frame: pl.DataFrame, event: str) -> FrozenManifest:
    return frozen_as_recorded(frame, event, ChallengeError, "challenge")


def sealed_dir(keys: KeyStore, event: str) -> Path:
    """Where a sealed event's key and its receipts wait for the reveal: the private key store."""
    return keys.root / "challenge-sealed" / event


def salts_path(keys: KeyStore, event: str) -> Path:
    """Where an event's salts wait for the reveal: beside the arena's private keys, never in the record."""
    return keys.root / "challenge-salts" / f"{event}.json"


def _private_dir(path: Path) -> Path:
    """``path`` made, every folder it takes owner-only (mkdir's mode is filtered by the umask)."""
    for folder in reversed([p for p in (path, *path.parents) if not p.exists()]):
        folder.mkdir(mode=0o700, exist_ok=True)
        folder.chmod(0o700)
    return path


def _write_private(path: Path, data: bytes) -> None:
    _private_dir(path.parent)
    write_recorded(path, data)
    path.chmod(0o600)


def event_key(
    frozen: FrozenManifest, keys: KeyStore, source: Callable[[int], bytes] | None = None
) -> bytes | None:
    """The event's sealing key (None under CHALLENGE-COMMIT-1): drawn once from ``source`` (the first
    phase draws it, before anything is asked) and kept in the private key store until the reveal."""
    if not sealed_event(frozen.document):
        return None
    path = sealed_dir(keys, frozen.event) / "key.json"
    if path.exists():
        try:
            return check_key(bytes.fromhex(json.loads(path.read_text())["key"]))
        except (ValueError, KeyError, TypeError, SealingError) as exc:
            raise ChallengeError(
                f"event {frozen.event}: its sealing key {path} cannot be read ({exc})"
            ) from None
    if source is None:
        raise ChallengeError(
            f"event {frozen.event}: no sealing key in {path}: its authoring phase draws it, and the record's "
            "sealed tables cannot be opened without it"
        )
    key = draw_key(source)
    _write_private(path, json.dumps({"event": frozen.event, "key": key.hex()}, indent=1).encode())
    return key


def _receipts(frozen: FrozenManifest, record: Record, keys: KeyStore) -> ReceiptStore:
    """Where this event's calls keep their receipts: the private store until the reveal (sealed), or
    the record's (CHALLENGE-COMMIT-1)."""
    if not sealed_event(frozen.document):
        return record.receipts
    return ReceiptStore(_private_dir(sealed_dir(keys, frozen.event) / "receipts"))


def _opened(frozen: FrozenManifest, key: bytes | None, **frames: pl.DataFrame) -> dict[str, pl.DataFrame]:
    try:
        return open_tables({f"challenge_{k}": f for k, f in frames.items()}, key, frozen.event)
    except SealingError as exc:
        raise ChallengeError(str(exc)) from None


def _ask(
    frozen: FrozenManifest,
    questions: list[Question],
    entries: Sequence[Mapping[str, Any]],
    settings: AskSettings,
    *,
    record: Record,
    keys: KeyStore,
) -> list[Asked]:
    try:
        return settings.ask(
            questions,
            entries,
            receipts=_receipts(frozen, record, keys),
            journal=record.journal_path(EVENTS, JOURNAL, frozen.event),
            fields=JOURNAL_FIELDS,
        )
    except AskersError as exc:
        raise ChallengeError(f"event {frozen.event}: {exc}") from None


def author(
    frozen: FrozenManifest,
    *,
    record: Record,
    keys: KeyStore,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    concurrency: int = 8,
    per_provider: ProviderLimits = 8,
    on_asked: Callable[[Asked], None] | None = None,
    key_source: Callable[[int], bytes] = os.urandom,
) -> pl.DataFrame:
    """``challenge_authored`` (sealed): every contender asked for every slot (journalled)."""
    manifest = frozen.document
    key = event_key(frozen, keys, key_source)
    asked = _ask(
        frozen,
        author_questions(manifest),
        manifest["contenders"],
        AskSettings(sparring_url, environ, clock, concurrency, per_provider, on_asked),
        record=record,
        keys=keys,
    )
    frames = {"challenge_authored": authored_table(manifest, frozen.sha256, asked)}
    return seal_tables(frames, key)["challenge_authored"]


def admit(
    frozen: FrozenManifest, authored: pl.DataFrame, *, keys: KeyStore, runner: ProgramRunner
) -> dict[str, pl.DataFrame]:
    """``challenge_submissions`` and ``challenge_checker_runs`` (sealed): every reply parsed, every task
    verified."""
    key = event_key(frozen, keys)
    opened = _opened(frozen, key, authored=authored)
    tables = submissions_tables(frozen.document, frozen.sha256, opened["challenge_authored"], runner)
    return seal_tables(tables, key)


def _salts(keys: KeyStore, event: str) -> dict[str, bytes]:
    path = salts_path(keys, event)
    if not path.exists():
        return {}
    return {task_id: bytes.fromhex(salt) for task_id, salt in json.loads(path.read_text()).items()}


def commit_tasks(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    *,
    keys: KeyStore,
    now: dt.datetime,
    salt_source: Callable[[int], bytes] = os.urandom,
) -> pl.DataFrame:
    """``challenge_commitments``: a salt per verified task (drawn once, kept privately), the commitments
    and the sealing key's SHA-256 signed by the arena key."""
    event = frozen.event
    sealing = event_key(frozen, keys)
    submissions = _opened(frozen, sealing, submissions=submissions)["challenge_submissions"]
    salts = _salts(keys, event)
    verified = submissions.filter(pl.col("status") == "verified")["task_id"].to_list()
    drawn = {task_id: salts.get(task_id) or salt_source(SALT_BYTES) for task_id in verified}
    _write_private(
        salts_path(keys, event), json.dumps({t: s.hex() for t, s in sorted(drawn.items())}, indent=1).encode()
    )
    key = arena_key(keys, now)
    return commitments_table(frozen.document, frozen.sha256, submissions, drawn, key, sealing)


def solve(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    *,
    record: Record,
    keys: KeyStore,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    runner: ProgramRunner,
    concurrency: int = 8,
    per_provider: ProviderLimits = 8,
    on_asked: Callable[[Asked], None] | None = None,
) -> dict[str, pl.DataFrame]:
    """``challenge_replies`` and ``challenge_solving_runs`` (sealed): every task asked of every other
    contender."""
    manifest = frozen.document
    key = event_key(frozen, keys)
    submissions = _opened(frozen, key, submissions=submissions)["challenge_submissions"]
    tasks = package(submissions, commitments)
    solved = _ask(
        frozen,
        solve_questions(manifest, tasks),
        manifest["contenders"],
        AskSettings(sparring_url, environ, clock, concurrency, per_provider, on_asked),
        record=record,
        keys=keys,
    )
    return seal_tables(replies_tables(manifest, frozen.sha256, submissions, solved, runner), key)


def review(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    replies: pl.DataFrame,
    *,
    record: Record,
    keys: KeyStore,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    concurrency: int = 8,
    per_provider: ProviderLimits = 8,
    on_asked: Callable[[Asked], None] | None = None,
) -> pl.DataFrame:
    """``challenge_reviews`` (sealed): every objection put to the two judges, blinded."""
    manifest = frozen.document
    key = event_key(frozen, keys)
    opened = _opened(frozen, key, submissions=submissions, replies=replies)
    reviewed = _ask(
        frozen,
        review_questions(manifest, opened["challenge_submissions"], commitments, opened["challenge_replies"]),
        manifest["judges"],
        AskSettings(sparring_url, environ, clock, concurrency, per_provider, on_asked),
        record=record,
        keys=keys,
    )
    frames = {"challenge_reviews": reviews_table(manifest, frozen.sha256, reviewed)}
    return seal_tables(frames, key)["challenge_reviews"]


def publish_receipts(private: ReceiptStore, public: ReceiptStore) -> int:
    """Copy every receipt of the private store into the record's, under its own name (its bytes checked
    against it first); how many were not there yet. Copying again is a no-op, so a reveal the arena's
    stop interrupted finishes on the next run."""
    copied = 0
    for receipt_id in private.ids():
        if receipt_id in public:
            continue
        data = private.canonical_bytes(receipt_id)
        try:
            write_bytes_atomic(public.path_for(receipt_id), gzip_bytes(data), create_only=True)
        except FileExistsError:
            continue
        copied += 1
    return copied


def reveal(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    replies: pl.DataFrame,
    reviews: pl.DataFrame,
    *,
    record: Record,
    keys: KeyStore,
    runner: ProgramRunner,
) -> dict[str, pl.DataFrame]:
    """``challenge_reveals``: every task and its salt, its reference run again, its defect if shown; and
    ``challenge_key``: the event's sealing key, published, with every receipt of its calls."""
    key = event_key(frozen, keys)
    opened = _opened(frozen, key, submissions=submissions, replies=replies, reviews=reviews)
    submissions = opened["challenge_submissions"]
    salts = _salts(keys, frozen.event)
    missing = [t for t in submissions.filter(pl.col("status") == "verified")["task_id"] if t not in salts]
    if missing:
        raise ChallengeError(
            f"event {frozen.event}: no salt for task {missing[0]} in {salts_path(keys, frozen.event)}"
        )
    if key is not None:
        publish_receipts(_receipts(frozen, record, keys), record.receipts)
    revealed = reveals_table(
        frozen.document,
        frozen.sha256,
        submissions,
        commitments,
        opened["challenge_replies"],
        opened["challenge_reviews"],
        salts,
        runner,
    )
    return {"challenge_reveals": revealed, "challenge_key": key_table(frozen.document, frozen.sha256, key)}


def score(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    replies: pl.DataFrame,
    reviews: pl.DataFrame,
    reveals: pl.DataFrame,
    key: pl.DataFrame,
) -> dict[str, pl.DataFrame]:
    """``challenge_scores`` and ``challenge_standings``, from the tables opened with the published key."""
    published = published_key(frozen.document, key)
    opened = _opened(frozen, published, submissions=submissions, replies=replies, reviews=reviews)
    return scoring_tables(
        frozen.document,
        frozen.sha256,
        opened["challenge_submissions"],
        opened["challenge_replies"],
        opened["challenge_reviews"],
        reveals,
    )
