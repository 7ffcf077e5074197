"""Settlement → scores per card, and the boards recomputed from the whole record.

``settlements`` reads the exchange's answers from the receipts the settlement sensor stored (never
from the network), so re-running it re-reads the same bytes. ``scores`` applies
COLOSSEUM-SCORING-2.1 to every answer whose question settled; rows once written are kept as they
are. ``leaderboard`` and ``calibration`` are recomputed from every card's scores on each run.
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl
from pydantic import Field

from colosseum_core.forecast.arena import FORECAST
from colosseum_core.forecast.board.leaderboard import build_boards, mixing_problems, read_scores
from colosseum_core.forecast.rules import COLOSSEUM_SCORING, COLOSSEUM_SETTLEMENT
from colosseum_core.forecast.settlement.resolution import observations, settle_card
from colosseum_core.forecast.settlement.scoring import merge_scores, rescoring_problems, score_card
from colosseum_core.record import with_ids
from colosseum_dagster.forecast.keys import ARENA, key, op_name
from colosseum_dagster.forecast.partitions import card_partitions
from colosseum_dagster.resources import RecordResource
from colosseum_dagster.wiring import table_out

SETTLEMENT_GROUP = "settlement"
BOARD_GROUP = "board"


class SettlementConfig(dg.Config):
    receipt_ids: list[str] = Field(
        default_factory=list,
        description="Receipts of the exchange's answers to read settlements from (the settlement "
        "sensor passes them). Empty: keep the card's settlements as they are and re-score.",
    )


@dg.multi_asset(
    name=op_name("settle_card"),
    partitions_def=card_partitions,
    group_name=SETTLEMENT_GROUP,
    ins={"card_questions": dg.AssetIn(key("card_questions"))},
    outs={
        "settlements": table_out(
            ARENA,
            "One row per settled or voided question: outcome, the prices that decided it, "
            "and the receipt it was read from. A settled row is never changed.",
            rules=COLOSSEUM_SETTLEMENT,
        ),
        "settlement_reviews": table_out(
            ARENA,
            "Observations that contradict a recorded settlement (un-resolved, changed "
            "winner), flagged for review; they never overwrite the settled outcome.",
        ),
    },
)
def settle_card_asset(
    context: dg.AssetExecutionContext,
    config: SettlementConfig,
    card_questions: pl.DataFrame,
    record: RecordResource,
) -> Iterator[dg.Output]:
    card = context.partition_key
    observed = observations(record.receipts, config.receipt_ids, card_questions["market_id"].to_list())
    settled = settle_card(
        card,
        card_questions,
        record.tables(FORECAST).read_if_present("settlements", card),
        record.tables(FORECAST).read_if_present("settlement_reviews", card),
        observed,
    )
    for review in settled.reviews.tail(settled.flagged).iter_rows(named=True):
        context.log.warning(
            f"card {card}: market {review['market_id']} ({review['label']}) flagged for review: "
            f"{review['problem']} (settled {review['settled_status']} {review['settled_outcome']}, "
            f"observed {review['observed_state']} {review['observed_outcome']} "
            f"in receipt {review['receipt_id']})"
        )
    statuses = dict(settled.settlements["status"].value_counts().iter_rows())
    yield dg.Output(
        settled.settlements,
        output_name="settlements",
        metadata={
            "added": settled.added,
            "settled": int(statuses.get("settled", 0)),
            "voids": int(statuses.get("void", 0)),
            "waiting": card_questions.height - settled.settlements.height,
            "receipts_read": len(config.receipt_ids),
        },
    )
    yield dg.Output(
        settled.reviews,
        output_name="settlement_reviews",
        metadata={"flagged_now": settled.flagged, "flagged_total": settled.reviews.height},
    )


@dg.asset(
    key_prefix=ARENA,
    partitions_def=card_partitions,
    group_name=SETTLEMENT_GROUP,
    kinds={"polars", "parquet"},
    tags={"colosseum/rules": COLOSSEUM_SCORING},
    ins={
        table: dg.AssetIn(key(table))
        for table in ("answer_lines", "answers", "card_questions", "settlements")
    },
    description="Every answer of the card scored against its settlement (COLOSSEUM-SCORING-2.1): p, "
    "Brier, the market's Brier at the sealed price, EDGE, win or loss, CROWN; forfeits as the least "
    "confident wrong answer; voids counted, not scored. Rows once written are never re-scored.",
    check_specs=[dg.AssetCheckSpec("scores_rederive", asset=key("scores"), blocking=True)],
)
def scores(
    context: dg.AssetExecutionContext,
    answer_lines: pl.DataFrame,
    answers: pl.DataFrame,
    card_questions: pl.DataFrame,
    settlements: pl.DataFrame,
    record: RecordResource,
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    fresh = score_card(answer_lines, answers, card_questions, settlements)
    merged = merge_scores(record.tables(FORECAST).read_if_present("scores", context.partition_key), fresh)
    results = dict(merged["result"].value_counts().iter_rows())
    yield dg.Output(
        merged,
        metadata={
            "rows": merged.height,
            **{f"results_{k}": int(v) for k, v in sorted(results.items())},
            "formula": COLOSSEUM_SCORING,
        },
    )
    problems = rescoring_problems(merged, answer_lines, answers, card_questions, settlements)
    yield dg.AssetCheckResult(
        check_name="scores_rederive",
        passed=not problems,
        metadata={"problems": len(problems), "first": "; ".join(problems[:5]) or "none"},
    )


@dg.multi_asset(
    name=op_name("boards"),
    group_name=BOARD_GROUP,
    deps=[dg.AssetDep(key("scores"))],
    outs={
        "leaderboard": table_out(
            ARENA,
            "Per seat and per gladiator, FIGHT and CALIBRATION apart: RECORD, SHARP, EDGE "
            "(with 95% question-clustered bootstrap intervals, seed recorded), CROWN, n, EARLY, "
            "forfeits, BAD FORMATTING, voids. Recomputed from every card's scores.",
            rules=COLOSSEUM_SCORING,
        ),
        "calibration": table_out(
            ARENA,
            "Per seat and per gladiator, per stated confidence 1–10: how often the call was "
            "right, against the probability the confidence states.",
        ),
    },
    check_specs=[
        dg.AssetCheckSpec("kinds_never_mix", asset=key("leaderboard"), blocking=True),
        dg.AssetCheckSpec("intervals_contain_points", asset=key("leaderboard"), blocking=True),
    ],
)
def boards(
    context: dg.AssetExecutionContext, record: RecordResource
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    cache = record.cache_root / FORECAST.name
    read = read_scores(record.tables(FORECAST), cache)
    if read is None:
        raise dg.Failure("no card has scores yet: nothing to put on a board")
    if not read.archive_written:
        context.log.warning(f"could not update the scores archive under {cache}: read every card file")
    all_scores = read.frame
    built = build_boards(all_scores)
    leaderboard, calibration = with_ids(built.leaderboard), with_ids(built.calibration)
    kinds = dict(leaderboard.group_by("kind").len().iter_rows())
    yield dg.Output(
        leaderboard,
        output_name="leaderboard",
        metadata={
            "scores": all_scores.height,
            "cards_scored": read.partitions,
            "archive_segments_reused": read.segments_reused,
            "archive_segments_rebuilt": read.segments_rebuilt,
            **{f"rows_{k}": int(v) for k, v in sorted(kinds.items())},
            "preview": dg.MetadataValue.md(_preview(leaderboard)),
        },
    )
    yield dg.Output(calibration, output_name="calibration", metadata={"rows": calibration.height})
    mixed = mixing_problems(all_scores, built)
    yield dg.AssetCheckResult(
        check_name="kinds_never_mix",
        asset_key=key("leaderboard"),
        passed=not mixed,
        metadata={"problems": len(mixed), "first": "; ".join(mixed[:5]) or "none"},
    )
    outside = leaderboard.filter(
        ~(pl.col("sharp").is_between(pl.col("sharp_low"), pl.col("sharp_high")))
        | ~(pl.col("edge").is_between(pl.col("edge_low"), pl.col("edge_high")))
    )
    yield dg.AssetCheckResult(
        check_name="intervals_contain_points",
        asset_key=key("leaderboard"),
        passed=outside.is_empty(),
        metadata={
            "outside": outside.height,
            "first": ", ".join(f"{r['kind']} {r['entrant']}" for r in outside.head(5).iter_rows(named=True))
            or "none",
        },
    )


def _preview(leaderboard: pl.DataFrame) -> str:
    seats = leaderboard.filter(pl.col("entrant_type") == "seat").sort(
        "kind", "crown", descending=[False, True]
    )
    lines = [
        "| kind | seat | n | RECORD | SHARP | EDGE | CROWN | EARLY |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in seats.iter_rows(named=True):
        sharp = (
            "—" if r["sharp"] is None else f"{r['sharp']:.1f} [{r['sharp_low']:.1f}, {r['sharp_high']:.1f}]"
        )
        edge = "—" if r["edge"] is None else f"{r['edge']:+.4f} [{r['edge_low']:+.4f}, {r['edge_high']:+.4f}]"
        lines.append(
            f"| {r['kind']} | {r['entrant']} | {r['n']} | {r['record']:+d} | {sharp} | {edge} | "
            f"{r['crown']:+d} | {'EARLY' if r['early'] else ''} |"
        )
    return "\n".join(lines)
