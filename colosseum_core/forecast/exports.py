"""The forecasting arena's sealed cards as the exporters' unit logs: one per seat and card, one
sample per question (input: the question as the packet quotes it; output: the seat's binding line;
once the card is settled, target the outcome and score its Brier score), the record's row ids and
the packet's in the metadata.

Imported by: the exports command (through ``colosseum_core.arenas``) and the tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import polars as pl

from colosseum_core.exports.exchanges import last_exchange, tokens
from colosseum_core.exports.model_names import field_name
from colosseum_core.exports.units import Sample, Standing, UnitLog, Verdict, recorded_settings
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record.layout import Record

TASK = "colosseum-forecast"


def _iso(value: Any) -> str:
    return value.isoformat().replace("+00:00", "Z") if hasattr(value, "isoformat") else str(value)


def card_logs(record: Record, card: str) -> Iterator[UnitLog]:
    tables = record.tables(FORECAST)
    seal = record.seals(FORECAST).get(card)
    answers = tables.read_if_present("answers", card)
    if seal is None or answers is None:
        return
    packet = tables.read("packet", card).row(0, named=True)
    questions = tables.read("card_questions", card).sort("position")
    lines = tables.read("answer_lines", card).filter(pl.col("binding"))
    scores = tables.read_if_present("scores", card)
    for a in answers.iter_rows(named=True):
        model = field_name(a["protocol"], a["model"])
        mine = {r["label"]: r for r in lines.filter(pl.col("seat") == a["seat"]).iter_rows(named=True)}
        scored = (
            {r["label"]: r for r in scores.filter(pl.col("seat") == a["seat"]).iter_rows(named=True)}
            if scores is not None
            else {}
        )
        last = last_exchange(record.receipts, a["receipt_ids"])
        tin, tout = tokens(record.receipts, a["receipt_ids"])
        samples = []
        for i, q in enumerate(questions.iter_rows(named=True)):
            line = mine.get(q["label"])
            said = f"{q['label']}: {line['call']} {line['confidence']}" if line else ""
            score = scored.get(q["label"])
            samples.append(
                Sample(
                    id=q["label"],
                    input=f"{q['question']}\n\nScheduled end: {q['end_date']}\n\n"
                    f"Resolution rules:\n{q['description']}",
                    output=said,
                    # The outcome is unknown until the market settles: an unsettled card exports
                    # with no target and no score, and again once its settlement is sealed.
                    target=str(score["outcome"]) if score and score.get("outcome") is not None else "",
                    scores={
                        "brier": Verdict(
                            value=float(score["brier"]),
                            answer=said or None,
                            explanation=score.get("result"),
                            metadata={"score_row": score.get("id"), "formula": score.get("formula")},
                        )
                    }
                    if score and score.get("brier") is not None
                    else {},
                    metadata={
                        "card": card,
                        "seat": a["seat"],
                        "label": q["label"],
                        "market_id": q["market_id"],
                        "event_id": q["event_id"],
                        "price_at_seal": q["price"],
                        "packet_id": packet["packet_id"],
                        "question_row": q["id"],
                        "answer_row": a["id"],
                        "answer_line_row": line["id"] if line else None,
                        "answer_status": line["status"] if line else "unanswered",
                        "receipt_ids": list(a["receipt_ids"] or []),
                    },
                    # The seat was asked once for the whole card: its stop reason and its tokens
                    # belong to the card's first sample, not to every question.
                    stop=last.stop if last and i == 0 else None,
                    input_tokens=tin if i == 0 else None,
                    output_tokens=tout if i == 0 else None,
                    error=a["error"] if i == 0 else None,
                )
            )
        briers = [s.scores["brier"].value for s in samples if s.scores]
        metrics = (
            {"brier": {"mean": sum(briers) / len(briers), "settled": float(len(briers))}} if briers else {}
        )
        yield UnitLog(
            arena=FORECAST.name,
            task=TASK,
            unit=card,
            contender=a["seat"],
            model=model,
            created=_iso(packet["seal"]),
            completed=seal.sealed_at,
            samples=tuple(samples),
            scorer="COLOSSEUM-SCORING-2.1",
            rules=tuple(r for r in (a["rules"], packet["rules"], packet["packet_format"]) if r),
            metrics=metrics,
            settings=recorded_settings(a["settings"]),
            metadata={
                "card": card,
                "seat": a["seat"],
                "kind": a["kind"],
                "house": a["house"],
                "protocol": a["protocol"],
                "answer_row": a["id"],
                "status": a["status"],
                "bad_formatting": a["bad_formatting"],
                "packet_id": packet["packet_id"],
                "sealed_at": seal.sealed_at,
                "seal_tables": dict(seal.tables),
            },
            standings=(
                Standing(
                    "colosseum.forecast.brier",
                    metrics["brier"]["mean"],
                    None,
                    None,
                    len(briers),
                    "mean over the card's settled questions",
                    lower_is_better=True,
                    bounds=(0.0, 1.0),
                ),
            )
            if briers
            else (),
        )


def unit_logs(record: Record) -> Iterator[UnitLog]:
    for seal in record.seals(FORECAST).seals():
        yield from card_logs(record, seal.partition)
