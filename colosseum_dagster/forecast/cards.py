"""The card graph: raw sweep → verbatim markets → the seal (verdicts, questions, packet, status) → answers.

Each asset body calls one colosseum_core function; this module only wires partitions, resources,
metadata and checks.
"""

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.rules import SEAL_ORDER, SLATE_LAWS, VERBATIM_COPY
from colosseum_core.forecast.schedule import Card, card_from_key
from colosseum_core.forecast.sealing.seal_step import MISSED, REFUSED, SEALED, CardRecord, decide_card
from colosseum_core.forecast.selection import RULE_ORDER
from colosseum_core.forecast.sweep.card_sweep import sweep_card
from colosseum_core.forecast.sweep.copy_check import mismatch_lines
from colosseum_core.forecast.sweep.copy_step import ASIDE_FROM_PAGES, checked_copy
from colosseum_dagster.forecast.keys import ARENA, key, op_name
from colosseum_dagster.forecast.partitions import card_partitions
from colosseum_dagster.forecast.resources import GladiatorsResource
from colosseum_dagster.resources import (
    EXCHANGE_POOL,
    ClockResource,
    ExchangeResource,
    ProviderKeysResource,
    RecordResource,
)
from colosseum_dagster.wiring import table_out

CARDS_GROUP = "cards"
LOGGED_ERRORS = 50


def _check_keyed_gladiators(
    card: Card, gladiators: GladiatorsResource, provider_keys: ProviderKeysResource, clock: ClockResource
) -> None:
    """Before a card's first step, each real gladiator who will answer it (its key set) is asked once
    (``providers.check``); one that fails stops the card in one line, before anything is swept or
    sealed. House gladiators are the project's own sparring server's: not asked."""
    import time

    from colosseum_core.forecast.answering.seats import DEFAULT_REGISTRY, keyed_gladiators, load_seats
    from colosseum_core.providers.check import ModelCheckError, require_entries_reachable

    keys = provider_keys.by_variable()
    seats = load_seats(Path(gladiators.seats_path) if gladiators.seats_path else DEFAULT_REGISTRY)
    try:
        require_entries_reachable(
            keyed_gladiators(seats, card.new_york_date, keys),
            environ=keys,
            sparring_url=gladiators.sparring(),
            clock=clock.now,
            monotonic=time.monotonic,
        )
    except ModelCheckError as exc:
        raise dg.Failure(f"card {card.key}: {exc}; nothing is swept or sealed") from None


@dg.multi_asset(
    name=op_name("raw_sweep"),
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    pool=EXCHANGE_POOL,
    outs={
        "raw_sweep": table_out(
            ARENA,
            "Every HTTP request of the card's sweep, each naming its receipt (raw bytes "
            "stored content-addressed before anything parsed them).",
            rules=SLATE_LAWS,
        ),
        "sweeps": table_out(
            ARENA, "One row per card: was the whole board seen (complete) or not (partial, why)."
        ),
    },
)
def raw_sweep(
    context: dg.AssetExecutionContext,
    exchange: ExchangeResource,
    record: RecordResource,
    clock: ClockResource,
    gladiators: GladiatorsResource,
    provider_keys: ProviderKeysResource,
) -> Iterator[dg.Output]:
    card = card_from_key(context.partition_key)
    decided = record.seals(FORECAST).get(card.key) or record.seals(FORECAST).missed(card.key)
    if decided is not None:
        # A decided card is never swept again; its run re-derives the card from the recorded sweep.
        if not record.tables(FORECAST).exists("raw_sweep", card.key) or not record.tables(FORECAST).exists(
            "sweeps", card.key
        ):
            raise dg.Failure(f"{decided.describe()}, but its sweep is not in the record")
        context.log.info(f"{decided.describe()}: not swept again; re-deriving it from its recorded sweep")
        recorded = record.tables(FORECAST).read_checked("sweeps", card.key)
        sweep = recorded.row(0, named=True)
        summary = {k: sweep[k] for k in ("complete", "pages", "requests", "receipts")}
        yield dg.Output(
            record.tables(FORECAST).read_checked("raw_sweep", card.key),
            output_name="raw_sweep",
            metadata={**summary, "reason": sweep["reason"] or "", "swept_again": False},
        )
        yield dg.Output(recorded, output_name="sweeps", metadata={"complete": sweep["complete"]})
        return
    _check_keyed_gladiators(card, gladiators, provider_keys, clock)
    settings = exchange.settings()
    context.log.info(f"sweeping {settings.base_url} as of {card.seal.isoformat()} for card {card.key}")
    swept = sweep_card(card, settings, record.receipts, clock=clock.now)
    result = swept.result
    for failed in swept.requests.filter(pl.col("outcome") == "failed").iter_rows(named=True):
        context.log.error(
            f"card {card.key}: request failed for good: receipt {failed['receipt_id']} "
            f"(shard {failed['shard']}, page {failed['page']}, status {failed['status']}, {failed['error']})"
        )
    if not result.complete:
        context.log.error(f"card {card.key}: sweep is PARTIAL: {result.reason}")
    summary = result.summary()
    yield dg.Output(
        swept.requests,
        output_name="raw_sweep",
        metadata={**summary, "exchange_url": settings.base_url},
    )
    yield dg.Output(
        swept.summary,
        output_name="sweeps",
        metadata={"complete": result.complete, "reason": result.reason or ""},
    )


class CopyConfig(dg.Config):
    check_aside_from_pages: int = Field(
        default=ASIDE_FROM_PAGES,
        ge=1,
        description="From this many pages the copy's check reads them in a separate process while the "
        "copy runs (on a record in a local folder); below it, in the step's own process after the copy.",
    )


@dg.multi_asset(
    name=op_name("verbatim_markets"),
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    ins={"raw_sweep": dg.AssetIn(key("raw_sweep"))},
    outs={
        "verbatim_markets": table_out(
            ARENA,
            "Every swept market copied from its receipt exactly as published; each row "
            "names the receipt it came from.",
            rules=VERBATIM_COPY,
        ),
        "copy_errors": table_out(
            ARENA, "Markets or pages that could not be copied: receipt, market, field and value."
        ),
    },
    check_specs=[
        dg.AssetCheckSpec(
            "verbatim_matches_receipts",
            asset=key("verbatim_markets"),
            blocking=True,
            description="Re-reads every copied row's receipt and re-compares every field, independently "
            "of the copy code.",
        )
    ],
)
def verbatim_markets(
    context: dg.AssetExecutionContext, config: CopyConfig, raw_sweep: pl.DataFrame, record: RecordResource
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    card = card_from_key(context.partition_key)
    pages = raw_sweep.filter(pl.col("outcome").is_in(["page", "last_page"])).sort("shard", "page")
    checked = checked_copy(
        card.key,
        pages["receipt_id"].to_list(),
        record.receipts,
        aside_from_pages=config.check_aside_from_pages,
    )
    copied, mismatches = checked.copied, checked.mismatches
    for line in copied.errors["error"].head(LOGGED_ERRORS).to_list():
        context.log.error(f"card {card.key}: not copied: {line}")
    if copied.errors.height > LOGGED_ERRORS:
        context.log.error(f"card {card.key}: {copied.errors.height - LOGGED_ERRORS} more copy errors")
    yield dg.Output(
        copied.markets,
        output_name="verbatim_markets",
        metadata={
            "markets": copied.markets.height,
            "events": copied.markets["event_id"].n_unique(),
            "copy_errors": copied.errors.height,
        },
    )
    yield dg.Output(copied.errors, output_name="copy_errors", metadata={"errors": copied.errors.height})
    yield dg.AssetCheckResult(
        check_name="verbatim_matches_receipts",
        asset_key=key("verbatim_markets"),
        passed=not mismatches,
        metadata={
            "rows_checked": copied.markets.height,
            "mismatches": len(mismatches),
            "pages_read_by": checked.check_read_by,
            **(
                {}
                if checked.check_process_peak_mb is None
                else {"check_process_peak_mb": checked.check_process_peak_mb}
            ),
            "first_mismatches": dg.MetadataValue.md(
                "\n".join(f"- {line}" for line in mismatch_lines(mismatches[:20])) or "none"
            ),
        },
    )


def _md_list(lines: list[str], limit: int = 20) -> dg.MetadataValue:
    shown = "\n".join(f"- {line}" for line in lines[:limit])
    more = f"\n- … {len(lines) - limit} more" if len(lines) > limit else ""
    return dg.MetadataValue.md(shown + more if lines else "none")


def _card_preview(questions: pl.DataFrame) -> str:
    lines = ["| label | question | price | source | doubt |", "|---|---|---|---|---|"]
    for row in questions.iter_rows(named=True):
        question = str(row["question"]).replace("|", "\\|")
        lines.append(
            f"| {row['label']} | {question} | {row['price']:.3f} | {row['price_source']} | "
            f"{row['doubt_bits']:.3f} |"
        )
    return "\n".join(lines)


# The blocking checks the seal runs on the bytes it seals, and the asset each is reported on.
_CHECK_DESCRIPTIONS = {
    "selection_obeys_rules": "The selected set re-checked against every rule, independently of the "
    "selection.",
}
SEAL_CHECKS = {
    "one_verdict_per_swept_question": "ranked_candidates",
    "selection_obeys_rules": "ranked_candidates",
    "verdicts_schema": "ranked_candidates",
    "packet_hash_matches": "packet",
    "card_schema": "packet",
}
SEALED_OUTPUTS = ("ranked_candidates", "card_questions", "packet")


@dg.asset(
    key_prefix=ARENA,
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    kinds={"polars", "parquet"},
    tags={"colosseum/rules": SEAL_ORDER},
    deps=[
        dg.AssetDep(key("verbatim_markets")),
        dg.AssetDep(key("copy_errors")),
        dg.AssetDep(key("sweeps")),
        # The previous card is decided (sealed or missed) first, so a backfill decides cards in time
        # order, and a missed card never holds back the ones after it. One asset, so that no backfill
        # can run part of a card's decision apart from its order.
        dg.AssetDep(
            key("card_status"),
            partition_mapping=dg.TimeWindowPartitionMapping(start_offset=-1, end_offset=-1),
        ),
    ],
    description=f"The card's seal ({SEAL_ORDER}): its verdicts, questions and packet decided once, checked "
    "on exactly the bytes sealed, and sealed; or the card recorded missed (a later card of its kind "
    "sealed first), naming that card. Re-running a decided card re-derives it byte for byte.",
)
def card_status(
    context: dg.AssetExecutionContext, record: RecordResource, clock: ClockResource
) -> dg.MaterializeResult:
    card = card_from_key(context.partition_key)
    decision = decide_card(CardRecord.of(record.layout), card, owner=context.run.run_id, clock=clock.now)
    if decision.status == REFUSED:
        failed = decision.failed_checks
        for name in failed:
            for line in decision.checks[name][:LOGGED_ERRORS]:
                context.log.error(f"card {card.key}: {name}: {line}")
        said = "; ".join(
            f"{name}: {decision.checks[name][0]}"
            + (f" (and {len(decision.checks[name]) - 1} more)" if len(decision.checks[name]) > 1 else "")
            for name in failed
        )
        raise dg.Failure(
            f"card {card.key} is not sealed: {said}",
            metadata={name: _md_list(decision.checks[name]) for name in failed},
        )
    if decision.status == MISSED:
        assert decision.missed is not None
        context.log.warning(f"{decision.missed.describe()}; its sweep and receipts are kept, it never seals")
        return dg.MaterializeResult(
            metadata={
                "status": MISSED,
                "overtaken_by": decision.missed.overtaken_by,
                "reason": decision.missed.reason,
            }
        )
    assert decision.seal is not None and decision.sealed_card is not None
    if decision.overtook:
        context.log.warning(
            f"card {card.key} sealed after earlier {decision.kind} cards that never did; now missed: "
            + ", ".join(decision.overtook)
        )
    packet = decision.sealed_card.packet.row(0, named=True)
    return dg.MaterializeResult(
        metadata={
            "status": SEALED,
            "sealed": decision.seal.describe(),
            "packet_id": packet["packet_id"],
            "questions": packet["questions"],
            "reproduced": decision.reproduced,
            "overtook": ", ".join(decision.overtook) or "none",
        }
    )


@dg.multi_asset(
    name=op_name("sealed_card"),
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    # A missed card has none of these, and its checks are then not evaluated: every output and
    # check is optional, and reported only when asked for.
    can_subset=True,
    deps=[dg.AssetDep(key("card_status"))],
    outs={
        "ranked_candidates": table_out(
            ARENA,
            "Every swept question's verdict: selected with its rank and place, or excluded "
            "with the first rule that excluded it and the number that did. Written by the seal.",
            rules=SLATE_LAWS,
            is_required=False,
        ),
        "card_questions": table_out(
            ARENA,
            "The sealed card's questions in label order (M01…), with seal prices and sources.",
            is_required=False,
        ),
        "packet": table_out(
            ARENA,
            "The sealed card: total doubt, sweep completeness, rule version, and the packet "
            "text every seat receives (COLOSSEUM-PACKET-2) with its SHA-256 identifier.",
            rules=SLATE_LAWS,
            is_required=False,
        ),
    },
    check_specs=[
        dg.AssetCheckSpec(name, asset=key(asset), blocking=True, description=_CHECK_DESCRIPTIONS.get(name))
        for name, asset in SEAL_CHECKS.items()
    ],
)
def sealed_card(
    context: dg.AssetExecutionContext, record: RecordResource
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    """The seal's tables as the seal wrote them, and the checks it ran on them."""
    card = card_from_key(context.partition_key)
    seal = record.seals(FORECAST).get(card.key)
    if seal is None:
        missed = record.seals(FORECAST).missed(card.key)
        if missed is None:
            raise dg.Failure(f"card {card.key} is not decided yet: materialize its card_status first")
        context.log.info(f"{missed.describe()}: it has no verdicts, questions or packet")
        return
    outputs = context.op_execution_context.selected_output_names
    for table in SEALED_OUTPUTS:
        if table in outputs:
            frame = record.tables(FORECAST).read_checked(table, card.key)
            yield dg.Output(
                frame, output_name=table, metadata=_sealed_metadata(table, frame, seal.describe())
            )
    checks = context.selected_asset_check_keys
    for name, asset in SEAL_CHECKS.items():
        if dg.AssetCheckKey(key(asset), name) not in checks:
            continue
        problems = seal.checks.get(name)
        yield dg.AssetCheckResult(
            check_name=name,
            asset_key=key(asset),
            passed=problems == 0,
            metadata={
                "problems": problems if problems is not None else "not recorded by this seal",
                "evaluated": "at the seal, on exactly the bytes it sealed",
            },
        )


def _sealed_metadata(table: str, frame: pl.DataFrame, sealed: str) -> dict[str, object]:
    if table == "card_questions":
        return {"questions": frame.height, "card": dg.MetadataValue.md(_card_preview(frame))}
    if table == "packet":
        row = frame.row(0, named=True)
        return {
            "packet_id": row["packet_id"],
            "kind": row["kind"],
            "questions": row["questions"],
            "total_doubt_bits": round(row["total_doubt_bits"], 6),
            "sweep_complete": row["sweep_complete"],
            "sealed": sealed,
        }
    counts = frame.filter(pl.col("rule").is_not_null())["rule"].value_counts()
    by_rule = dict(zip(counts["rule"].to_list(), counts["count"].to_list(), strict=True))
    return {
        "swept": frame.height,
        "selected": int((frame["verdict"] == "selected").sum()),
        **{f"excluded_{rule}": int(by_rule.get(rule, 0)) for rule in RULE_ORDER},
    }
