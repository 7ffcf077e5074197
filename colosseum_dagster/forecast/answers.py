"""The answers asset: the sealed packet to all thirteen seats, each reply read and signed twice.

Re-running it finishes an interrupted card from its journal and asks only seats never asked; on an
answered card it re-derives the same bytes, which the IO manager keeps as they are.
"""

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import polars as pl

from colosseum_core.forecast.answering.answers import (
    AnswerJournal,
    AnswerJournalError,
    answer_card,
    answer_signature_problems,
    ask_every_seat,
    sent_packet_problems,
)
from colosseum_core.forecast.answering.seats import DEFAULT_REGISTRY, assign, load_seats
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.rules import COLOSSEUM_READING
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.interrupts import run_async
from colosseum_core.providers import CallSettings, ReplayError
from colosseum_core.record.journal import Journal, JournalError
from colosseum_core.record.receipts import ReceiptError
from colosseum_core.trust.keys import KeyStore
from colosseum_dagster.forecast.cards import CARDS_GROUP
from colosseum_dagster.forecast.keys import ARENA, key, op_name
from colosseum_dagster.forecast.partitions import card_partitions
from colosseum_dagster.forecast.resources import GladiatorsResource
from colosseum_dagster.resources import ClockResource, ProviderKeysResource, RecordResource
from colosseum_dagster.wiring import table_out


@dg.multi_asset(
    name=op_name("answer_card"),
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    ins={"packet": dg.AssetIn(key("packet")), "card_questions": dg.AssetIn(key("card_questions"))},
    outs={
        "answers": table_out(
            ARENA,
            "One row per seat: status (answered, forfeited, no_response, refused), reply "
            "receipts, settings record with OMITTED, format record, binding answers; signed twice.",
            rules=COLOSSEUM_READING,
        ),
        "answer_lines": table_out(
            ARENA, "One row per seat and question: call, confidence, binding or not, recovery step."
        ),
        "answer_signatures": table_out(
            ARENA, "The seat's signature and the arena's countersignature over each answers row id."
        ),
        "public_keys": table_out(
            ARENA, "The public keys that sign this card's answers, with the date each became valid."
        ),
    },
    check_specs=[
        dg.AssetCheckSpec("every_seat_has_a_status", asset=key("answers"), blocking=True),
        dg.AssetCheckSpec("signatures_verify", asset=key("answers"), blocking=True),
        dg.AssetCheckSpec("every_seat_got_the_sealed_packet", asset=key("answers"), blocking=True),
    ],
)
def answer_card_asset(
    context: dg.AssetExecutionContext,
    packet: pl.DataFrame,
    card_questions: pl.DataFrame,
    record: RecordResource,
    gladiators: GladiatorsResource,
    provider_keys: ProviderKeysResource,
    clock: ClockResource,
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    card = card_from_key(context.partition_key)
    sealed = packet.row(0, named=True)
    packet_bytes = sealed["packet_text"].encode("utf-8")
    seats = load_seats(Path(gladiators.seats_path) if gladiators.seats_path else DEFAULT_REGISTRY)
    day = card.new_york_date
    # Real gladiators' keys come through the provider_keys resource (EnvVar); a seat without one gets
    # its house gladiator.
    keys = provider_keys.by_variable()
    assignments = [a for s in seats if (a := assign(s, day, keys, gladiators.sparring())) is not None]
    settings = CallSettings(timeout_s=gladiators.timeout_s)
    try:
        journal = AnswerJournal(
            Journal(record.journal_path(FORECAST, "answers", card.key)),
            card.key,
            sealed["packet_id"],
            clock.now,
        )
        asked = {e["seat"] for e in journal.entries}
        context.log.info(
            f"card {card.key}: {len(assignments)} seats ({sum(a.house for a in assignments)} house "
            f"gladiators at {gladiators.sparring()}); {len(asked)} already asked, read from the journal"
        )
        results = run_async(
            ask_every_seat(
                packet_bytes,
                assignments,
                record.receipts,
                settings=settings,
                clock=clock.now,
                journal=journal,
            )
        )
    except (AnswerJournalError, JournalError, ReplayError, ReceiptError) as exc:
        raise dg.Failure(f"card {card.key} is not answered: {exc}") from exc
    keys = KeyStore.for_data(record.root)
    answered = answer_card(
        card.key,
        day,
        sealed["packet_id"],
        card_questions,
        assignments,
        results,
        keys,
        {s.id: s.first_day for s in seats},
        sealed["kind"],
        packet=packet_bytes,
    )
    statuses = answered.seats["status"].value_counts()
    yield dg.Output(
        answered.seats,
        output_name="answers",
        metadata={
            **{f"seats_{s}": int(n) for s, n in statuses.iter_rows()},
            "asked_in_this_run": journal.asked_now,
            "bad_formatting": int(answered.seats["bad_formatting"].sum()),
            "house_gladiators": int(answered.seats["house"].sum()),
        },
    )
    yield dg.Output(answered.lines, output_name="answer_lines", metadata={"lines": answered.lines.height})
    yield dg.Output(answered.signatures, output_name="answer_signatures")
    yield dg.Output(answered.public_keys, output_name="public_keys")

    missing = sorted({a.seat for a in assignments} - set(answered.seats["seat"]))
    unknown = answered.seats.filter(
        ~pl.col("status").is_in(["answered", "forfeited", "no_response", "refused"])
    )["seat"].to_list()
    yield dg.AssetCheckResult(
        check_name="every_seat_has_a_status",
        asset_key=key("answers"),
        passed=not missing and not unknown,
        metadata={"missing": ", ".join(missing) or "none", "unknown_status": ", ".join(unknown) or "none"},
    )
    problems = answer_signature_problems(
        answered.seats,
        answered.public_keys,
        signatures=answered.signatures,
        on_date=day,
        expected_seats=[a.seat for a in assignments],
    )
    yield dg.AssetCheckResult(
        check_name="signatures_verify",
        asset_key=key("answers"),
        passed=not problems,
        metadata={"problems": len(problems), "first": "; ".join(problems[:5]) or "none"},
    )
    sent = sent_packet_problems(packet_bytes, assignments, results, record.receipts)
    yield dg.AssetCheckResult(
        check_name="every_seat_got_the_sealed_packet",
        asset_key=key("answers"),
        passed=not sent,
        metadata={"problems": len(sent), "first": "; ".join(sent[:5]) or "none"},
    )
