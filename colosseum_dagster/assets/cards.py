"""The card graph: raw sweep → verbatim markets → the seal (verdicts, questions, packet, status) → answers.

Each asset body calls one colosseum_core function; this module only wires partitions, resources,
metadata and checks.
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl

from colosseum_core.forecast.copy import copy_markets
from colosseum_core.forecast.copy_check import mismatch_lines, recheck_copy
from colosseum_core.forecast.schedule import card_from_key
from colosseum_core.forecast.sealing import MISSED, REFUSED, SEALED, decide_card
from colosseum_core.forecast.selection import RULE_ORDER
from colosseum_core.forecast.sweep import sweep_card
from colosseum_core.rules import SEAL_ORDER, SLATE_LAWS, VERBATIM_COPY
from colosseum_dagster.partitions import card_partitions
from colosseum_dagster.resources import ClockResource, ExchangeResource, RecordResource

CARDS_GROUP = "cards"
LOGGED_ERRORS = 50


@dg.multi_asset(
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    outs={
        "raw_sweep": dg.AssetOut(
            description="Every HTTP request of the card's sweep, each naming its receipt (raw bytes "
            "stored content-addressed before anything parsed them).",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": SLATE_LAWS},
        ),
        "sweeps": dg.AssetOut(
            description="One row per card: was the whole board seen (complete) or not (partial, why).",
            kinds={"polars", "parquet"},
        ),
    },
)
def raw_sweep(
    context: dg.AssetExecutionContext,
    exchange: ExchangeResource,
    record: RecordResource,
    clock: ClockResource,
) -> Iterator[dg.Output]:
    card = card_from_key(context.partition_key)
    decided = record.seals.get(card.key) or record.seals.missed(card.key)
    if decided is not None:
        # A decided card is never swept again; its run re-derives the card from the recorded sweep.
        if not record.tables.exists("raw_sweep", card.key) or not record.tables.exists("sweeps", card.key):
            raise dg.Failure(f"{decided.describe()}, but its sweep is not in the record")
        context.log.info(f"{decided.describe()}: not swept again; re-deriving it from its recorded sweep")
        recorded = record.tables.read_checked("sweeps", card.key)
        sweep = recorded.row(0, named=True)
        summary = {k: sweep[k] for k in ("complete", "pages", "requests", "receipts")}
        yield dg.Output(
            record.tables.read_checked("raw_sweep", card.key),
            output_name="raw_sweep",
            metadata={**summary, "reason": sweep["reason"] or "", "swept_again": False},
        )
        yield dg.Output(recorded, output_name="sweeps", metadata={"complete": sweep["complete"]})
        return
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


@dg.multi_asset(
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    ins={"raw_sweep": dg.AssetIn("raw_sweep")},
    outs={
        "verbatim_markets": dg.AssetOut(
            description="Every swept market copied from its receipt exactly as published; each row "
            "names the receipt it came from.",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": VERBATIM_COPY},
        ),
        "copy_errors": dg.AssetOut(
            description="Markets or pages that could not be copied: receipt, market, field and value.",
            kinds={"polars", "parquet"},
        ),
    },
    check_specs=[
        dg.AssetCheckSpec(
            "verbatim_matches_receipts",
            asset="verbatim_markets",
            blocking=True,
            description="Re-reads every copied row's receipt and re-compares every field, independently "
            "of the copy code.",
        )
    ],
)
def verbatim_markets(
    context: dg.AssetExecutionContext, raw_sweep: pl.DataFrame, record: RecordResource
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    card = card_from_key(context.partition_key)
    pages = raw_sweep.filter(pl.col("outcome").is_in(["page", "last_page"])).sort("shard", "page")
    copied = copy_markets(card.key, pages["receipt_id"].to_list(), record.receipts)
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

    mismatches = recheck_copy(copied.markets, record.receipts)
    yield dg.AssetCheckResult(
        check_name="verbatim_matches_receipts",
        asset_key="verbatim_markets",
        passed=not mismatches,
        metadata={
            "rows_checked": copied.markets.height,
            "mismatches": len(mismatches),
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


SELECTION_CHECKS = (
    "one_verdict_per_swept_question",
    "selection_obeys_rules",
    "verdicts_schema",
)
PACKET_CHECKS = ("packet_hash_matches", "card_schema")


@dg.multi_asset(
    name="select_and_seal",
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    # The seal decides every output at once; a missed card has only its status, and a subset of the
    # outputs (or of the checks) may be asked for from the UI: each is reported only if selected.
    can_subset=True,
    deps=[
        dg.AssetDep("verbatim_markets"),
        dg.AssetDep("copy_errors"),
        dg.AssetDep("sweeps"),
        # The previous card is decided (sealed or missed) first, so backfills run cards in time order
        # and a missed card never holds the ones after it.
        dg.AssetDep(
            "card_status", partition_mapping=dg.TimeWindowPartitionMapping(start_offset=-1, end_offset=-1)
        ),
    ],
    outs={
        "ranked_candidates": dg.AssetOut(
            description="Every swept question's verdict: selected with its rank and place, or excluded "
            "with the first rule that excluded it and the number that did. Written only by the seal.",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": SLATE_LAWS},
            is_required=False,
        ),
        "card_questions": dg.AssetOut(
            description="The sealed card's questions in label order (M01…), with seal prices and sources.",
            kinds={"polars", "parquet"},
            is_required=False,
        ),
        "packet": dg.AssetOut(
            description="The sealed card: total doubt, sweep completeness, rule version, and the packet "
            "text every seat receives with its SHA-256 identifier.",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": SLATE_LAWS},
            is_required=False,
        ),
        "card_status": dg.AssetOut(
            description="Whether the card sealed or was missed (overtaken by a later card of its kind, "
            f"{SEAL_ORDER}), and by which card.",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": SEAL_ORDER},
        ),
    },
    internal_asset_deps={
        "ranked_candidates": {dg.AssetKey("verbatim_markets"), dg.AssetKey("copy_errors")},
        "card_questions": {
            dg.AssetKey("verbatim_markets"),
            dg.AssetKey("copy_errors"),
            dg.AssetKey("sweeps"),
        },
        "packet": {
            dg.AssetKey("verbatim_markets"),
            dg.AssetKey("copy_errors"),
            dg.AssetKey("sweeps"),
        },
        "card_status": {
            dg.AssetKey("verbatim_markets"),
            dg.AssetKey("copy_errors"),
            dg.AssetKey("sweeps"),
            dg.AssetKey("card_status"),
        },
    },
    check_specs=[
        dg.AssetCheckSpec("one_verdict_per_swept_question", asset="ranked_candidates", blocking=True),
        dg.AssetCheckSpec(
            "selection_obeys_rules",
            asset="ranked_candidates",
            blocking=True,
            description="The selected set re-checked against every rule, independently of the selection.",
        ),
        dg.AssetCheckSpec("verdicts_schema", asset="ranked_candidates", blocking=True),
        dg.AssetCheckSpec("packet_hash_matches", asset="packet", blocking=True),
        dg.AssetCheckSpec("card_schema", asset="packet", blocking=True),
    ],
)
def select_and_seal(
    context: dg.AssetExecutionContext, record: RecordResource, clock: ClockResource
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    outputs = context.op_execution_context.selected_output_names
    checks = context.selected_asset_check_keys
    for item in _decide(context, record, clock):
        if isinstance(item, dg.AssetCheckResult):
            selected = dg.AssetCheckKey(item.asset_key, item.check_name) in checks  # type: ignore[arg-type]
        else:
            selected = item.output_name in outputs
        if selected:
            yield item


def _decide(
    context: dg.AssetExecutionContext, record: RecordResource, clock: ClockResource
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    card = card_from_key(context.partition_key)
    decision = decide_card(record.card_record, card, owner=context.run.run_id, clock=clock.now)
    if decision.status == MISSED:
        assert decision.missed is not None and decision.card_status is not None
        context.log.warning(f"{decision.missed.describe()}; its sweep and receipts are kept, it never seals")
        yield dg.Output(
            decision.card_status,
            output_name="card_status",
            metadata={"status": MISSED, "overtaken_by": decision.missed.overtaken_by},
        )
        return
    if decision.status == REFUSED:
        for name in decision.checks:
            asset = "packet" if name in PACKET_CHECKS else "ranked_candidates"
            if name in (*SELECTION_CHECKS, *PACKET_CHECKS):
                yield dg.AssetCheckResult(
                    check_name=name,
                    asset_key=asset,
                    passed=not decision.checks[name],
                    metadata={
                        "problems": len(decision.checks[name]),
                        "first_problems": _md_list(decision.checks[name]),
                    },
                )
        raise dg.Failure(
            f"card {card.key} is not sealed: blocking checks failed: {', '.join(decision.failed_checks)}",
            metadata={name: _md_list(problems) for name, problems in decision.checks.items() if problems},
        )
    assert decision.ranked is not None and decision.sealed_card is not None and decision.seal is not None
    verdicts = decision.ranked.verdicts
    counts = verdicts.filter(pl.col("rule").is_not_null())["rule"].value_counts()
    by_rule = dict(zip(counts["rule"].to_list(), counts["count"].to_list(), strict=True))
    if decision.overtook:
        context.log.warning(
            f"card {card.key} sealed after earlier {decision.kind} cards that never did; now missed: "
            + ", ".join(decision.overtook)
        )
    yield dg.Output(
        verdicts,
        output_name="ranked_candidates",
        metadata={
            "swept": verdicts.height,
            "selected": int((verdicts["verdict"] == "selected").sum()),
            "total_doubt_bits": round(decision.ranked.selection.total_doubt_bits, 6),
            "kind": decision.kind,
            **{f"excluded_{rule}": int(by_rule.get(rule, 0)) for rule in RULE_ORDER},
        },
    )
    for name in SELECTION_CHECKS:
        yield dg.AssetCheckResult(
            check_name=name, asset_key="ranked_candidates", passed=True, metadata={"problems": 0}
        )
    questions, packet = decision.sealed_card.questions, decision.sealed_card.packet
    packet_row = packet.row(0, named=True)
    yield dg.Output(questions, output_name="card_questions", metadata={"questions": questions.height})
    yield dg.Output(
        packet,
        output_name="packet",
        metadata={
            "packet_id": packet_row["packet_id"],
            "kind": decision.kind,
            "questions": packet_row["questions"],
            "total_doubt_bits": round(packet_row["total_doubt_bits"], 6),
            "sweep_complete": packet_row["sweep_complete"],
            "sealed": decision.seal.describe(),
            "reproduced": decision.reproduced,
            "card": dg.MetadataValue.md(_card_preview(questions)),
        },
    )
    yield dg.AssetCheckResult(
        check_name="packet_hash_matches",
        asset_key="packet",
        passed=True,
        metadata={"packet_id": packet_row["packet_id"], "bytes": len(decision.sealed_card.packet_bytes)},
    )
    yield dg.AssetCheckResult(check_name="card_schema", asset_key="packet", passed=True)
    yield dg.Output(
        decision.card_status,
        output_name="card_status",
        metadata={"status": SEALED, "overtook": ", ".join(decision.overtook) or "none"},
    )
