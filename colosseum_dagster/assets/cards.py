"""The card graph: raw sweep → verbatim markets (→ ranked candidates → packet → …).

Each asset body calls one colosseum_core function; this module only wires partitions, resources,
metadata and checks.
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl

from colosseum_core.forecast.card import card_kind, rank_candidates, seal_card, seal_order_problem
from colosseum_core.forecast.copy import copy_markets
from colosseum_core.forecast.copy_check import mismatch_lines, recheck_copy
from colosseum_core.forecast.packet import packet_id
from colosseum_core.forecast.schedule import Card, card_from_key
from colosseum_core.forecast.schemas import CardQuestions, Packet, Verdicts, schema_failures
from colosseum_core.forecast.selection import RULE_ORDER
from colosseum_core.forecast.selection_audit import audit_selection, verdict_partition_violations
from colosseum_core.forecast.sweep import sweep_card
from colosseum_core.rules import SLATE_LAWS, VERBATIM_COPY
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
    if (seal := record.seals.get(card.key)) is not None:
        raise dg.Failure(f"{seal.describe()}; its sweep cannot be re-run (a sealed card never changes)")
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


def _history(record: RecordResource, card: Card, kind: str) -> pl.DataFrame | None:
    """Questions of every earlier sealed card of this kind: "one question, one card, ever"."""
    questions = record.tables.scan("card_questions")
    if questions is None:
        return None
    return (
        questions.filter((pl.col("kind") == kind) & (pl.col("card") < card.key))
        .select("card", "market_id", "label", "question")
        .collect()
    )


def _swept_kinds(record: RecordResource) -> list[tuple[str, str]]:
    sweeps = record.tables.scan("sweeps")
    if sweeps is None:
        return []
    rows = sweeps.select("card", "exchange").collect().iter_rows()
    return [(key, card_kind(exchange)) for key, exchange in rows]


def _card_preview(questions: pl.DataFrame) -> str:
    lines = ["| label | question | price | source | doubt |", "|---|---|---|---|---|"]
    for row in questions.iter_rows(named=True):
        question = str(row["question"]).replace("|", "\\|")
        lines.append(
            f"| {row['label']} | {question} | {row['price']:.3f} | {row['price_source']} | "
            f"{row['doubt_bits']:.3f} |"
        )
    return "\n".join(lines)


@dg.multi_asset(
    name="select_and_seal",
    partitions_def=card_partitions,
    group_name=CARDS_GROUP,
    ins={
        "verbatim_markets": dg.AssetIn("verbatim_markets"),
        "copy_errors": dg.AssetIn("copy_errors"),
        "sweeps": dg.AssetIn("sweeps"),
        # The previous card seals first, so backfills run cards in time order.
        "previous_packet": dg.AssetIn(
            "packet",
            partition_mapping=dg.TimeWindowPartitionMapping(start_offset=-1, end_offset=-1),
            dagster_type=dg.Nothing,
        ),
    },
    outs={
        "ranked_candidates": dg.AssetOut(
            description="Every swept question's verdict: selected with its rank and place, or excluded "
            "with the first rule that excluded it and the number that did.",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": SLATE_LAWS},
        ),
        "card_questions": dg.AssetOut(
            description="The sealed card's questions in label order (M01…), with seal prices and sources.",
            kinds={"polars", "parquet"},
        ),
        "packet": dg.AssetOut(
            description="The sealed card: total doubt, sweep completeness, rule version, and the packet "
            "text every seat receives with its SHA-256 identifier. Writing it seals the card.",
            kinds={"polars", "parquet"},
            tags={"colosseum/rules": SLATE_LAWS},
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
            dg.AssetKey("packet"),
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
    context: dg.AssetExecutionContext,
    verbatim_markets: pl.DataFrame,
    copy_errors: pl.DataFrame,
    sweeps: pl.DataFrame,
    record: RecordResource,
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    card = card_from_key(context.partition_key)
    sweep = sweeps.row(0, named=True)
    kind = card_kind(sweep["exchange"])
    sealed = record.seals.seals()
    if record.seals.get(card.key) is None:
        problem = seal_order_problem(card, kind, [(s.card, s.kind) for s in sealed], _swept_kinds(record))
        if problem:
            raise dg.Failure(problem)
    history = _history(record, card, kind)
    ranked = rank_candidates(card, verbatim_markets, copy_errors, history)
    verdicts = ranked.verdicts
    selection = ranked.selection

    swept_ids = pl.concat([verbatim_markets["market_id"], copy_errors["market_id"].drop_nulls()]).unique()
    partition_problems = verdict_partition_violations(swept_ids.to_list(), verdicts)
    rule_problems = audit_selection(verbatim_markets, verdicts, seal=card.seal, history=history)
    verdict_schema = schema_failures(Verdicts, verdicts)
    counts = verdicts.filter(pl.col("rule").is_not_null())["rule"].value_counts()
    by_rule = dict(zip(counts["rule"].to_list(), counts["count"].to_list(), strict=True))
    yield dg.Output(
        verdicts,
        output_name="ranked_candidates",
        metadata={
            "swept": verdicts.height,
            "selected": int((verdicts["verdict"] == "selected").sum()),
            "total_doubt_bits": round(selection.total_doubt_bits, 6),
            "kind": kind,
            **{f"excluded_{rule}": int(by_rule.get(rule, 0)) for rule in RULE_ORDER},
        },
    )
    checks = {
        "one_verdict_per_swept_question": partition_problems,
        "selection_obeys_rules": rule_problems,
        "verdicts_schema": [verdict_schema] if verdict_schema else [],
    }
    for name, problems in checks.items():
        yield dg.AssetCheckResult(
            check_name=name,
            asset_key="ranked_candidates",
            passed=not problems,
            metadata={"problems": len(problems), "first_problems": _md_list(problems)},
        )
    failed = [name for name, problems in checks.items() if problems]
    if failed:
        raise dg.Failure(f"card {card.key} is not sealed: blocking checks failed: {', '.join(failed)}")

    sealed_card = seal_card(card, verdicts, verbatim_markets, sweep)
    packet_row = sealed_card.packet.row(0, named=True)
    hash_ok = packet_id(packet_row["packet_text"].encode("utf-8")) == packet_row["packet_id"]
    card_schema = schema_failures(CardQuestions, sealed_card.questions) or schema_failures(
        Packet, sealed_card.packet
    )
    if not hash_ok or card_schema:
        yield dg.AssetCheckResult(check_name="packet_hash_matches", asset_key="packet", passed=hash_ok)
        yield dg.AssetCheckResult(
            check_name="card_schema",
            asset_key="packet",
            passed=not card_schema,
            metadata={"failures": card_schema or "none"},
        )
        raise dg.Failure(f"card {card.key} is not sealed: its packet failed its checks")
    yield dg.Output(
        sealed_card.questions,
        output_name="card_questions",
        metadata={"questions": sealed_card.questions.height},
    )
    yield dg.Output(
        sealed_card.packet,
        output_name="packet",
        metadata={
            "packet_id": packet_row["packet_id"],
            "kind": kind,
            "questions": packet_row["questions"],
            "total_doubt_bits": round(packet_row["total_doubt_bits"], 6),
            "sweep_complete": packet_row["sweep_complete"],
            "card": dg.MetadataValue.md(_card_preview(sealed_card.questions)),
        },
    )
    yield dg.AssetCheckResult(
        check_name="packet_hash_matches",
        asset_key="packet",
        passed=True,
        metadata={"packet_id": packet_row["packet_id"], "bytes": len(sealed_card.packet_bytes)},
    )
    yield dg.AssetCheckResult(check_name="card_schema", asset_key="packet", passed=True)
