"""The challenge event's steps, each one function a Dagster asset calls.

- ``freeze_challenge_event``: the contenders and the two judges resolved, the manifest signed.
- ``author``: every slot asked (journalled: a resumed run asks nothing twice).
- ``admit``: every reply parsed and its task verified in the sandbox.
- ``commit_tasks``: a salt drawn per verified task (kept in the private key store until the reveal),
  the commitments signed by the arena key: nothing is shown to a solver before this exists.
- ``solve``: every task asked of every other contender (journalled), answers checked.
- ``review``: every objection put to the two judges, blinded (journalled).
- ``reveal``: every task and salt revealed, every reference program run again.
- ``score``: the points and the standings.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.asking import Asked, AskersError, AskJournal, Question, ask_all, askers_for
from colosseum_core.events.challenges.event import (
    JOURNAL_FIELDS,
    ChallengeError,
    author_questions,
    authored_table,
    challenge_manifest,
    commitments_table,
    package,
    replies_tables,
    reveals_table,
    review_questions,
    reviews_table,
    scoring_tables,
    solve_questions,
    submissions_tables,
)
from colosseum_core.events.contenders import (
    CALIBRATION,
    SPARRING,
    ContendersError,
    checked,
    keep_only,
    required_text,
    resolve_models,
)
from colosseum_core.events.manifest import FrozenManifest, freeze, manifest_frame, read_frozen
from colosseum_core.events.tasks.checking import ProgramRunner
from colosseum_core.providers.pools import ProviderLimits
from colosseum_core.record.journal import Journal
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import write_recorded
from colosseum_core.trust.commitments import SALT_BYTES
from colosseum_core.trust.keys import ARENA, KeyStore

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
        fields = {
            name: required_text(where, raw, name)
            for name in ("id", "protocol", "model", "base_url", "key_env", "house")
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
        elif not environ.get(fields["key_env"]):
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
) -> tuple[FrozenManifest, pl.DataFrame]:
    resolved, registry = resolve_models(contenders_path, environ, extra_sections=("judge",))
    resolved = keep_only(resolved, only, event=event, path=contenders_path)
    resolved = checked(contenders_path, resolved)
    judges = _judges(contenders_path, registry, resolved, environ)
    extra = {} if replicates is None else {"replicates": replicates}
    document = challenge_manifest(
        event=event, resolved=resolved, judges=judges, slots=slots, seed=seed, frozen_at=now, **extra
    )
    keys.ensure_key(ARENA, now.astimezone(dt.UTC).date())
    frozen = freeze(document, keys.signing_key(ARENA, now.astimezone(dt.UTC).date()))
    return frozen, manifest_frame(frozen)


def frozen_challenge(frame: pl.DataFrame, event: str) -> FrozenManifest:
    frozen, problems = read_frozen(frame, event)
    if problems:
        raise ChallengeError(f"event {event}: its manifest is not as frozen: {'; '.join(problems)}")
    if frozen.kind != "challenge":
        raise ChallengeError(f"event {event} is a {frozen.kind} event, not a challenge event")
    return frozen


def _ask(
    frozen: FrozenManifest,
    questions: list[Question],
    entries: Sequence[Mapping[str, Any]],
    *,
    record: Record,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    concurrency: int,
    per_provider: ProviderLimits,
    on_asked: Callable[[Asked], None] | None,
) -> list[Asked]:
    event = frozen.event
    try:
        askers = askers_for(entries, sparring_url=sparring_url, environ=environ, per_provider=per_provider)
    except AskersError as exc:
        raise ChallengeError(f"event {event}: {exc}") from None
    journal = AskJournal(Journal(record.journal_path(EVENTS, JOURNAL, event)), JOURNAL_FIELDS)
    return asyncio.run(
        ask_all(
            questions,
            askers,
            receipts=record.receipts,
            journal=journal,
            clock=clock,
            concurrency=concurrency,
            on_asked=on_asked,
        )
    )


def author(
    frozen: FrozenManifest,
    *,
    record: Record,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    concurrency: int = 8,
    per_provider: ProviderLimits = 8,
    on_asked: Callable[[Asked], None] | None = None,
) -> pl.DataFrame:
    """``challenge_authored``: every contender asked for every slot (journalled)."""
    manifest = frozen.document
    asked = _ask(
        frozen,
        author_questions(manifest),
        manifest["contenders"],
        record=record,
        sparring_url=sparring_url,
        environ=environ,
        clock=clock,
        concurrency=concurrency,
        per_provider=per_provider,
        on_asked=on_asked,
    )
    return authored_table(manifest, frozen.sha256, asked)


def admit(
    frozen: FrozenManifest, authored: pl.DataFrame, *, runner: ProgramRunner
) -> dict[str, pl.DataFrame]:
    """``challenge_submissions`` and ``challenge_checker_runs``: every reply parsed, every task verified."""
    return submissions_tables(frozen.document, frozen.sha256, authored, runner)


def salts_path(keys: KeyStore, event: str) -> Path:
    """Where an event's salts wait for the reveal: beside the arena's private keys, never in the record."""
    return keys.root / "challenge-salts" / f"{event}.json"


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
    signed by the arena key."""
    event = frozen.event
    salts = _salts(keys, event)
    verified = submissions.filter(pl.col("status") == "verified")["task_id"].to_list()
    drawn = {task_id: salts.get(task_id) or salt_source(SALT_BYTES) for task_id in verified}
    path = salts_path(keys, event)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_recorded(path, json.dumps({t: s.hex() for t, s in sorted(drawn.items())}, indent=1).encode())
    path.chmod(0o600)
    keys.ensure_key(ARENA, now.astimezone(dt.UTC).date())
    key = keys.signing_key(ARENA, now.astimezone(dt.UTC).date())
    return commitments_table(frozen.document, frozen.sha256, submissions, drawn, key)


def solve(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    *,
    record: Record,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    runner: ProgramRunner,
    concurrency: int = 8,
    per_provider: ProviderLimits = 8,
    on_asked: Callable[[Asked], None] | None = None,
) -> dict[str, pl.DataFrame]:
    """``challenge_replies`` and ``challenge_solving_runs``: every task asked of every other contender."""
    manifest = frozen.document
    tasks = package(submissions, commitments)
    solved = _ask(
        frozen,
        solve_questions(manifest, tasks),
        manifest["contenders"],
        record=record,
        sparring_url=sparring_url,
        environ=environ,
        clock=clock,
        concurrency=concurrency,
        per_provider=per_provider,
        on_asked=on_asked,
    )
    return replies_tables(manifest, frozen.sha256, submissions, solved, runner)


def review(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    replies: pl.DataFrame,
    *,
    record: Record,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    concurrency: int = 8,
    per_provider: ProviderLimits = 8,
    on_asked: Callable[[Asked], None] | None = None,
) -> pl.DataFrame:
    """``challenge_reviews``: every objection put to the two judges, blinded."""
    manifest = frozen.document
    reviewed = _ask(
        frozen,
        review_questions(manifest, submissions, replies),
        manifest["judges"],
        record=record,
        sparring_url=sparring_url,
        environ=environ,
        clock=clock,
        concurrency=concurrency,
        per_provider=per_provider,
        on_asked=on_asked,
    )
    return reviews_table(manifest, frozen.sha256, reviewed)


def reveal(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    commitments: pl.DataFrame,
    replies: pl.DataFrame,
    reviews: pl.DataFrame,
    *,
    keys: KeyStore,
    runner: ProgramRunner,
) -> pl.DataFrame:
    """``challenge_reveals``: every task and its salt, its reference run again, its defect if shown."""
    salts = _salts(keys, frozen.event)
    missing = [t for t in submissions.filter(pl.col("status") == "verified")["task_id"] if t not in salts]
    if missing:
        raise ChallengeError(
            f"event {frozen.event}: no salt for task {missing[0]} in {salts_path(keys, frozen.event)}"
        )
    return reveals_table(
        frozen.document, frozen.sha256, submissions, commitments, replies, reviews, salts, runner
    )


def score(
    frozen: FrozenManifest,
    submissions: pl.DataFrame,
    replies: pl.DataFrame,
    reviews: pl.DataFrame,
    reveals: pl.DataFrame,
) -> dict[str, pl.DataFrame]:
    """``challenge_scores`` and ``challenge_standings``."""
    return scoring_tables(frozen.document, frozen.sha256, submissions, replies, reviews, reveals)
