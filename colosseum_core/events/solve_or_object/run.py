"""The Solve-or-Object event's three steps, each one function the Dagster assets call.

- ``freeze_soo_event``: the contenders resolved, the bank checked (every program of it run in the
  sandbox), the pairs drawn, the manifest hashed and signed by the arena key: the event's one
  ``event_manifests`` row. Nothing is asked before it exists.
- ``ask_frozen_event``: every contender asked every item once (house solvers on the sparring server,
  keyed models at their providers), every request journalled before it is sent, so a run that stops
  resumes without asking again anything answered (a request the arena's stop left unanswered is
  asked again, COLOSSEUM-EVENT-ASKING-2); then every reply read and scored: ``soo_replies``.
- ``soo_event_standings``: the standings of the scored replies (``standings``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.asking import Asked, AskersError, AskSettings
from colosseum_core.events.contenders import ModelCheck, check_fight, keep_only, resolve_contenders
from colosseum_core.events.manifest import FrozenManifest, freeze_signed, frozen_as_recorded
from colosseum_core.events.solve_or_object.bank import Bank, ProgramRunner, bank_problems, load_bank
from colosseum_core.events.solve_or_object.event import (
    JOURNAL_FIELDS,
    SooEventError,
    event_items,
    questions,
    replies_table,
    soo_manifest,
)
from colosseum_core.events.solve_or_object.standings import soo_standings
from colosseum_core.events.trial_field import NO_KEYS, with_trial_model
from colosseum_core.providers.pools import ProviderLimits
from colosseum_core.record.layout import Record
from colosseum_core.trust.keys import KeyStore

DEFAULT_CONTENDERS: Final = Path(__file__).resolve().parents[3] / "solve_or_object.toml"
REPLIES_JOURNAL: Final = "soo_replies"
DEFAULT_PAIRS: Final = 12


def freeze_soo_event(
    *,
    event: str,
    contenders_path: Path | str,
    environ: Mapping[str, str],
    bank_path: Path | str,
    pairs: int,
    seed: int,
    keys: KeyStore,
    now: dt.datetime,
    runner: ProgramRunner,
    replicates: int | None = None,
    only: Sequence[str] = (),
    check: ModelCheck | None = None,
    trial: Mapping[str, Any] | None = None,
) -> tuple[FrozenManifest, pl.DataFrame]:
    """The event's manifest (its contenders, and ``pairs`` drawn from the bank once every program of
    it holds), frozen and signed, and its ``event_manifests`` row (``only``: the contender ids to
    keep, in the registry's order; empty keeps all; ``trial``: a model maker's trial, its model
    beside the house field, ``events.trial_field``). ``check`` asks a FIGHT event's models once first
    (``contenders.check_fight``)."""
    if trial is None:
        resolved = resolve_contenders(contenders_path, environ)
    else:
        resolved = with_trial_model(resolve_contenders(contenders_path, NO_KEYS), trial)
    resolved = keep_only(resolved, only, event=event, path=contenders_path)
    check_fight(event, resolved, check)
    bank = load_bank(bank_path)
    problems = bank_problems(bank, runner)
    if problems:
        raise SooEventError(f"event {event}: bank {bank.path} does not hold: {'; '.join(problems[:3])}")
    extra = {} if replicates is None else {"replicates": replicates}
    document = soo_manifest(
        event=event, resolved=resolved, bank=bank, pairs=pairs, seed=seed, frozen_at=now, **extra
    )
    return freeze_signed(document, keys, now)


def frozen_manifest(frame: pl.DataFrame, event: str, kind: str) -> FrozenManifest:
    """The event's manifest as recorded; ``SooEventError`` if its hash or signature does not hold or
    it is another kind of event."""
    return frozen_as_recorded(frame, event, SooEventError, kind)


def bank_of(frozen: FrozenManifest, root: Path | None = None) -> Bank:
    """The bank the manifest froze, read from the repository and checked against its SHA-256."""
    base = root or DEFAULT_CONTENDERS.parent
    return load_bank(base / frozen.document["bank"]["file"], root=base)


def ask_frozen_event(
    frozen: FrozenManifest,
    *,
    record: Record,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    runner: ProgramRunner | None,
    concurrency: int = 8,
    per_provider: ProviderLimits = 8,
    on_asked: Callable[[Asked], None] | None = None,
) -> pl.DataFrame:
    """``soo_replies`` of the frozen event: every contender asked every item (or its reply replayed from
    the journal's receipts where it was asked already), read and scored."""
    manifest = frozen.document
    event = manifest["event"]
    items = event_items(manifest, bank_of(frozen))
    settings = AskSettings(sparring_url, environ, clock, concurrency, per_provider, on_asked)
    try:
        asked = settings.ask(
            questions(manifest, items),
            manifest["contenders"],
            receipts=record.receipts,
            journal=record.journal_path(EVENTS, REPLIES_JOURNAL, event),
            fields=JOURNAL_FIELDS,
        )
    except AskersError as exc:
        raise SooEventError(f"event {event}: {exc}") from None
    return replies_table(manifest, frozen.sha256, items, asked, runner)


def soo_event_standings(frozen: FrozenManifest, replies: pl.DataFrame) -> dict[str, pl.DataFrame]:
    return {"soo_standings": soo_standings(frozen.document, frozen.sha256, replies)}


def manifest_summary(document: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "class": document["class"],
        "contenders": len(document["contenders"]),
        "pairs": len(document["bank"]["pairs"]),
        "items": len(document["bank"]["items"]),
    }
