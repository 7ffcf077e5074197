"""The sealing step: a card's verdicts, questions and packet decided once, checked, and sealed, or missed.

The seal order (``SEAL_ORDER``) is the rule that keeps "one question, one card, ever" well defined
while the arena always makes progress:

- Cards of one kind (FIGHT, CALIBRATION) seal in time order. A card may seal as long as no later
  card of its kind has sealed. Its history, the questions it may not repeat, is every sealed
  earlier card of its kind, and no earlier card can seal after it, so that history never changes.
- A card that can no longer seal, because a later card of its kind sealed first, is **missed**:
  recorded with the card that overtook it and why. Its sweep and receipts stay; it never seals; it
  blocks nothing. Sealing a card records every earlier swept, unsealed card of its kind as missed.
- No card waits for an earlier one: a card that failed before its seal stays re-runnable until a
  later card of its kind seals, and then it is missed.

Sealing is atomic with its checks. Under the card's lock (the run's) and its kind's seal lock, the
step reads the card's sweep, copy and copy errors as bytes, checks them against their ledger
entries, parses those very bytes, runs every blocking check on them (the sweep received at least
one page, the copy re-compared with its receipts, one verdict per swept question, the selection
re-checked by independent code, schemas, the packet's hash), encodes the verdicts, questions,
packet and status, and writes the seal with the SHA-256 of every one of those byte strings, and the
checks' results, *before* writing the new tables: the seal names
exactly the bytes that were checked, and a crash before the tables are written leaves a seal that
a re-run completes byte for byte. A re-run of a sealed card re-derives everything from its sealed
inputs and must reproduce the sealed bytes exactly, or it is refused.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import io
from collections.abc import Callable, Mapping

import polars as pl

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.rules import SEAL_ORDER
from colosseum_core.forecast.schedule import Card
from colosseum_core.forecast.schemas import CardQuestions, Packet, Verdicts, schema_failures
from colosseum_core.forecast.sealing.card import (
    RankedCandidates,
    SealedCard,
    card_kind,
    rank_candidates,
    seal_card,
)
from colosseum_core.forecast.sealing.packet import PACKET_FORMAT, packet_id
from colosseum_core.forecast.selection import reading_for
from colosseum_core.forecast.selection.audit import audit_selection, verdict_partition_violations
from colosseum_core.forecast.sweep.copy_check import mismatch_lines, recheck_copy
from colosseum_core.record import ReceiptStore, RecordTables, with_ids
from colosseum_core.record.layout import Record
from colosseum_core.record.ledger import file_sha256
from colosseum_core.record.locks import LockBusy, WriterLocks, partition_lock
from colosseum_core.record.sealed_step import refuse_changes, seal_then_write, write_sealed
from colosseum_core.record.seals import Missed, Seal, SealError, SealRegistry
from colosseum_core.record.tables import parquet_bytes

SEALED = "sealed"
MISSED = "missed"
REFUSED = "refused"
# What the sealing step reads: the card's sweep and its copy, written by the steps before it.
INPUT_TABLES = ("raw_sweep", "sweeps", "verbatim_markets", "copy_errors")
# A kind's seal lock is held for one card's selection and checks: seconds, not minutes.
SEAL_LOCK_WAIT_S = 600.0
CARD_STATUS_SCHEMA: dict[str, pl.DataType] = {
    "card": pl.String(),
    "kind": pl.String(),
    "status": pl.String(),
    "packet_id": pl.String(),
    "overtaken_by": pl.String(),
    "reason": pl.String(),
    "rules": pl.String(),
}
Clock = Callable[[], dt.datetime]


def seal_lock(kind: str) -> str:
    return f"seal-{kind}"


@dataclasses.dataclass(frozen=True)
class CardRecord:
    """The parts of the record a card's seal reads and writes."""

    tables: RecordTables
    receipts: ReceiptStore
    seals: SealRegistry
    locks: WriterLocks

    @classmethod
    def of(cls, record: Record) -> CardRecord:
        """The forecast's part of ``record``."""
        return cls(
            tables=record.tables(FORECAST),
            receipts=record.receipts,
            seals=record.seals(FORECAST),
            locks=record.locks,
        )


@dataclasses.dataclass(frozen=True)
class Decision:
    """What the sealing step decided for one card, and everything it checked on the way."""

    card: str
    kind: str
    status: str  # SEALED, MISSED or REFUSED (a blocking check failed; nothing was written)
    card_status: pl.DataFrame | None
    checks: Mapping[str, list[str]]
    ranked: RankedCandidates | None = None
    sealed_card: SealedCard | None = None
    seal: Seal | None = None
    missed: Missed | None = None
    reproduced: bool = False
    overtook: tuple[str, ...] = ()

    @property
    def failed_checks(self) -> list[str]:
        return [name for name, problems in self.checks.items() if problems]


def card_status_frame(
    card: str, kind: str, status: str, *, packet: str | None, overtaken_by: str | None, reason: str | None
) -> pl.DataFrame:
    row = {
        "card": card,
        "kind": kind,
        "status": status,
        "packet_id": packet,
        "overtaken_by": overtaken_by,
        "reason": reason,
        "rules": SEAL_ORDER,
    }
    return with_ids(pl.DataFrame([row], schema=CARD_STATUS_SCHEMA))


def _iso(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def sealed_history(tables: RecordTables, seals: SealRegistry, card: str, kind: str) -> pl.DataFrame | None:
    """Questions of every sealed earlier card of ``kind``: "one question, one card, ever"."""
    earlier = [s.partition for s in seals.seals() if s.kind == kind and s.partition < card]
    questions = tables.scan("card_questions")
    if questions is None or not earlier:
        return None
    return (
        questions.filter(pl.col("card").is_in(earlier) & (pl.col("kind") == kind))
        .select("card", "market_id", "label", "question")
        .collect()
    )


def _missed_decision(record: CardRecord, missed: Missed) -> Decision:
    status = card_status_frame(
        missed.partition,
        missed.kind,
        MISSED,
        packet=None,
        overtaken_by=missed.overtaken_by,
        reason=missed.reason,
    )
    data = parquet_bytes(status)
    record.seals.check_write("card_status", missed.partition, data)
    record.tables.write_bytes("card_status", data, missed.partition)
    return Decision(missed.partition, missed.kind, MISSED, status, {}, missed=missed)


def _overtaken_reason(kind: str, later: str) -> str:
    return f"the later {kind} card {later} sealed first, and {kind} cards seal in time order"


def _mark_overtaken(record: CardRecord, card: str, kind: str, now: str, owner: str) -> tuple[str, ...]:
    """Record every earlier swept, unsealed card of ``kind`` as missed: ``card`` overtook it.

    The missed record is the registry's (under the kind's seal lock). The card's own status table
    is written too when no run holds that card; a run that does writes it at its seal step.
    """
    sweeps = record.tables.scan("sweeps")
    if sweeps is None:
        return ()
    swept = sweeps.filter(pl.col("card") < card).select("card", "exchange").collect()
    sealed = {s.partition for s in record.seals.seals()}
    overtaken = []
    for key, exchange in swept.unique("card").sort("card").iter_rows():
        if card_kind(exchange) != kind or key in sealed or record.seals.missed(key) is not None:
            continue
        missed = record.seals.record_missed(
            Missed(
                partition=key,
                kind=kind,
                overtaken_by=card,
                reason=_overtaken_reason(kind, card),
                recorded_at=now,
                noun=FORECAST.partition,
            )
        )
        with (
            contextlib.suppress(LockBusy),
            record.locks.hold(
                partition_lock(FORECAST.partition, key), owner=owner, purpose=f"recording card {key} missed"
            ),
        ):
            _missed_decision(record, missed)
        overtaken.append(key)
    return tuple(overtaken)


def decide_card(record: CardRecord, card: Card, *, owner: str, clock: Clock) -> Decision:
    """Seal ``card``, re-derive it if it is sealed, or record it missed; see the module doc.

    ``owner`` names the writer (the run id) for the locks. Raises ``SealError`` when a re-derivation
    would change a sealed card, or when an input changed under the step.
    """
    with record.locks.hold(
        partition_lock(FORECAST.partition, card.key), owner=owner, purpose=f"sealing card {card.key}"
    ):
        return _decide(record, card, owner=owner, clock=clock)


def _decide(record: CardRecord, card: Card, *, owner: str, clock: Clock) -> Decision:
    inputs = {t: record.tables.read_bytes(t, card.key) for t in INPUT_TABLES}
    frames = {t: pl.read_parquet(io.BytesIO(data)) for t, data in inputs.items()}
    input_hashes = {t: hashlib.sha256(data).hexdigest() for t, data in inputs.items()}
    sweep = frames["sweeps"].row(0, named=True)
    kind = card_kind(str(sweep["exchange"]))
    verbatim, copy_errors = frames["verbatim_markets"], frames["copy_errors"]
    with record.locks.hold(
        seal_lock(kind), owner=owner, purpose=f"sealing card {card.key}", wait_s=SEAL_LOCK_WAIT_S
    ):
        seal = record.seals.get(card.key)
        missed = record.seals.missed(card.key)
        if missed is not None:
            return _missed_decision(record, missed)
        if seal is None:
            later = [s.partition for s in record.seals.seals() if s.kind == kind and s.partition > card.key]
            if later:
                missed = record.seals.record_missed(
                    Missed(
                        partition=card.key,
                        kind=kind,
                        overtaken_by=later[0],
                        reason=_overtaken_reason(kind, later[0]),
                        recorded_at=_iso(clock()),
                        noun=FORECAST.partition,
                    )
                )
                return _missed_decision(record, missed)

        history = sealed_history(record.tables, record.seals, card.key, kind)
        # A sealed card is re-derived under the reading of one-of-a-kind it was judged under.
        sealed_verdicts = (
            record.tables.read_checked("ranked_candidates", card.key)
            if seal is not None and record.tables.exists("ranked_candidates", card.key)
            else None
        )
        reading = reading_for(sealed_verdicts)
        ranked = rank_candidates(card, verbatim, copy_errors, history, reading)
        verdicts = ranked.verdicts
        swept_ids = pl.concat([verbatim["market_id"], copy_errors["market_id"].drop_nulls()]).unique()
        verdict_schema = schema_failures(Verdicts, verdicts)
        checks: dict[str, list[str]] = {
            # A sweep that received no page saw nothing: sealing it would burn the card on an outage.
            "sweep_received_pages": []
            if sweep["pages"]
            else [f"the sweep received no page of the board ({sweep['reason'] or 'no reason recorded'})"],
            "verbatim_matches_receipts": mismatch_lines(recheck_copy(verbatim, record.receipts)),
            "one_verdict_per_swept_question": verdict_partition_violations(swept_ids.to_list(), verdicts),
            "selection_obeys_rules": audit_selection(
                verbatim, verdicts, seal=card.seal, history=history, one_of_a_kind=reading
            ),
            "verdicts_schema": [verdict_schema] if verdict_schema else [],
        }
        if any(checks.values()):
            return Decision(card.key, kind, REFUSED, None, checks, ranked=ranked)

        # A sealed card is re-derived in the packet layout it was sealed in; a new one in today's.
        layout = PACKET_FORMAT
        if seal is not None and record.tables.exists("packet", card.key):
            layout = str(record.tables.read_checked("packet", card.key)["packet_format"][0])
        sealed_card = seal_card(card, verdicts, verbatim, sweep, layout)
        packet_row = sealed_card.packet.row(0, named=True)
        hash_ok = packet_id(packet_row["packet_text"].encode("utf-8")) == packet_row["packet_id"]
        card_schema = schema_failures(CardQuestions, sealed_card.questions) or schema_failures(
            Packet, sealed_card.packet
        )
        checks["packet_hash_matches"] = [] if hash_ok else ["the packet's bytes do not hash to its id"]
        checks["card_schema"] = [card_schema] if card_schema else []
        if not hash_ok or card_schema:
            return Decision(card.key, kind, REFUSED, None, checks, ranked=ranked, sealed_card=sealed_card)

        status = card_status_frame(
            card.key, kind, SEALED, packet=packet_row["packet_id"], overtaken_by=None, reason=None
        )
        outputs = {
            "ranked_candidates": parquet_bytes(verdicts),
            "card_questions": parquet_bytes(sealed_card.questions),
            "packet": parquet_bytes(sealed_card.packet),
            "card_status": parquet_bytes(status),
        }
        decided = dict(checks=checks, ranked=ranked, sealed_card=sealed_card)
        if seal is not None:
            refuse_changes(
                seal,
                {**input_hashes, **{t: hashlib.sha256(b).hexdigest() for t, b in outputs.items()}},
                why="re-deciding it from its sealed inputs",
            )
            write_sealed(record.tables, record.seals, card.key, outputs)
            return Decision(card.key, kind, SEALED, status, seal=seal, reproduced=True, **decided)

        for table in INPUT_TABLES:
            if file_sha256(record.tables.path(table, card.key)) != input_hashes[table]:
                raise SealError(f"card {card.key}: its {table} table changed while it was being sealed")
        now = _iso(clock())
        seal, _ = seal_then_write(
            record.tables,
            record.seals,
            card.key,
            outputs=outputs,
            vouched=input_hashes,
            kind=kind,
            content_id=packet_row["packet_id"],
            sealed_at=now,
            checks={name: len(problems) for name, problems in checks.items()},
        )
        overtook = _mark_overtaken(record, card.key, kind, now, owner)
        return Decision(card.key, kind, SEALED, status, seal=seal, overtook=overtook, **decided)
