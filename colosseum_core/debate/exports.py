"""The debate arena's sealed epochs as the exporters' unit logs: one per debater (a strategy's rating
key) and epoch, one sample per game and side (input: the motion and the side; the turns as they went,
its own as the assistant's; output: its last turn; score: 1, ½ or 0 by the game's decision, none for
a void game), and one per judge slot and model, one sample per judge call (score: agreement with the
game's decision; an unreadable reply is a format failure, its class kept).

Imported by: the exports command (through ``colosseum_core.arenas``) and the tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import polars as pl

from colosseum_core.debate.arena import DEBATE
from colosseum_core.exports.exchanges import last_exchange, tokens
from colosseum_core.exports.model_names import field_name
from colosseum_core.exports.units import (
    Sample,
    Standing,
    Turn,
    UnitLog,
    Verdict,
    recorded_settings,
    sample_id,
)
from colosseum_core.record.layout import Record

TASK = "colosseum-debate"
JUDGE_TASK = "colosseum-debate-judge"


def _rules(*values: str | None) -> tuple[str, ...]:
    return tuple(sorted({r for v in values if v for r in re.split(r"[\s,]+", v) if r}))


def _result(game: dict[str, Any], side: str) -> Verdict | None:
    if game["status"] == "draw":
        return Verdict(0.5, answer="draw", explanation=game["reason"])
    if not game["winner"]:
        return None  # a void game counts for no one
    return Verdict(1.0 if game["winner"] == side else 0.0, answer=game["winner"], explanation=game["reason"])


def _debater_logs(record: Record, epoch: str, sealed_at: str) -> Iterator[UnitLog]:
    tables = record.tables(DEBATE)
    games = tables.read("games", epoch)
    turns = tables.read("turns", epoch).sort("game_id", "turn")
    ratings = tables.read("ratings", epoch)
    for r in ratings.iter_rows(named=True):
        key = r["rating_key"]
        samples = []
        mine = turns.filter(pl.col("hotkey") == r["hotkey"])
        first = mine.row(0, named=True) if mine.height else None
        model = field_name(first["protocol"], first["model"]) if first else "none/none"
        for g in games.filter(
            (pl.col("pro_rating_key") == key) | (pl.col("con_rating_key") == key)
        ).iter_rows(named=True):
            side = "Pro" if g["pro_rating_key"] == key else "Con"
            said = turns.filter(pl.col("game_id") == g["game_id"])
            prompt = f"Motion: {g['motion']}\n\nContext: {g['context'] or ''}\n\nYou argue {side}."
            conversation = [Turn("user", prompt)]
            own_receipts: list[str] = []
            last_text, last_ids = "", None
            for t in said.iter_rows(named=True):
                ours = t["side"] == side
                conversation.append(
                    Turn(
                        "assistant" if ours else "user",
                        t["text"] or "",
                        {"turn": t["turn"], "side": t["side"], "status": t["status"], "row": t["id"]},
                    )
                )
                if ours:
                    own_receipts += list(t["receipt_ids"] or [])
                    last_text, last_ids = t["text"] or "", t["receipt_ids"]
            result = _result(g, side)
            last = last_exchange(record.receipts, last_ids)
            tin, tout = tokens(record.receipts, own_receipts)
            samples.append(
                Sample(
                    id=sample_id(g["game_id"], side),
                    input=prompt,
                    output=last_text,
                    target=side,
                    scores={"result": result} if result else {},
                    turns=tuple(conversation),
                    metadata={
                        "epoch": epoch,
                        "game_id": g["game_id"],
                        "side": side,
                        "round": g["round"],
                        "motion_id": g["motion_id"],
                        "game_row": g["id"],
                        "opponent": g["con_rating_key"] if side == "Pro" else g["pro_rating_key"],
                        "status": g["status"],
                        "ended_by": g["ended_by"],
                        "receipt_ids": own_receipts,
                    },
                    stop=last.stop if last else None,
                    input_tokens=tin,
                    output_tokens=tout,
                )
            )
        results = [s.scores["result"].value for s in samples if s.scores]
        yield UnitLog(
            arena=DEBATE.name,
            task=TASK,
            unit=epoch,
            contender=key,
            model=model,
            created=sealed_at,
            completed=sealed_at,
            samples=tuple(samples),
            scorer="COMPELLE-JUDGING-1",
            rules=_rules(r["elo_rules"], r["bt_rules"], *games["rules"].unique().to_list()),
            metrics={
                "result": {
                    "mean": sum(results) / len(results) if results else 0.0,
                    "elo": r["rating"],
                    "bt_rating": r["bt_rating"],
                    "bt_low": r["bt_low"],
                    "bt_high": r["bt_high"],
                    "rank": float(r["rank"]),
                }
            },
            settings=recorded_settings(first["settings"]) if first else {},
            metadata={
                "epoch": epoch,
                "role": "debater",
                "hotkey": r["hotkey"],
                "strategy_hash": r["strategy_hash"],
                "ratings_row": r["id"],
                "sealed_at": sealed_at,
            },
            standings=(
                Standing(
                    "colosseum.debate.bt_rating",
                    r["bt_rating"],
                    r["bt_low"],
                    r["bt_high"],
                    r["bt_games"],
                    f"bootstrap ({r['bt_rules']})",
                ),
            )
            if first
            else (),
        )


def _judge_logs(record: Record, epoch: str, sealed_at: str) -> Iterator[UnitLog]:
    tables = record.tables(DEBATE)
    games = {g["game_id"]: g for g in tables.read("games", epoch).iter_rows(named=True)}
    calls = tables.read("judge_calls", epoch).sort("game_id", "stage", "slot", "attempt")
    for (slot, name), mine in calls.group_by("slot", "model", maintain_order=True):
        first = mine.row(0, named=True)
        model = field_name(first["protocol"], str(name))
        samples = []
        for c in mine.iter_rows(named=True):
            g = games.get(c["game_id"])
            decision = (
                (g or {}).get("winner") or ("DRAW" if (g or {}).get("status") == "draw" else "")
            ).upper()
            last = last_exchange(record.receipts, c["receipt_ids"])
            tin, tout = tokens(record.receipts, c["receipt_ids"])
            verdict = Verdict(
                value=1.0 if c["verdict"] and c["verdict"] == decision else 0.0,
                answer=c["verdict"],
                explanation=c["problem"] or f"verdict {c['verdict']}, decision {decision or 'none'}",
                failure=c["invalid"],
            )
            samples.append(
                Sample(
                    id=sample_id(c["game_id"], c["stage"], c["attempt"]),
                    input=last.prompt if last and last.prompt else f"game {c['game_id']}",
                    output=c["reply"] or "",
                    target=decision,
                    scores={"agreement": verdict},
                    metadata={
                        "epoch": epoch,
                        "game_id": c["game_id"],
                        "slot": slot,
                        "stage": c["stage"],
                        "attempt": c["attempt"],
                        "invalid": c["invalid"],
                        "call_row": c["id"],
                        "receipt_ids": list(c["receipt_ids"] or []),
                    },
                    stop=last.stop if last else None,
                    input_tokens=tin,
                    output_tokens=tout,
                    error=c["error"],
                )
            )
        valid = [s for s in samples if s.scores["agreement"].answer]
        pro = sum(1 for s in valid if s.scores["agreement"].answer == "PRO")
        yield UnitLog(
            arena=DEBATE.name,
            task=JUDGE_TASK,
            unit=epoch,
            contender=f"{slot}:{name}",
            model=model,
            created=sealed_at,
            completed=sealed_at,
            samples=tuple(samples),
            scorer="COMPELLE-JUDGING-1",
            rules=("COMPELLE-JUDGING-1",),
            metrics={
                "agreement": {
                    "mean": sum(s.scores["agreement"].value for s in samples) / len(samples),
                    "pro_share": pro / len(valid) if valid else 0.0,
                    "invalid_share": 1 - len(valid) / len(samples),
                }
            },
            settings=recorded_settings(first["settings"]),
            metadata={"epoch": epoch, "role": "judge", "slot": slot, "sealed_at": sealed_at},
        )


def unit_logs(record: Record) -> Iterator[UnitLog]:
    for seal in record.seals(DEBATE).seals():
        if record.tables(DEBATE).exists("ratings", seal.partition):
            yield from _debater_logs(record, seal.partition, seal.sealed_at)
            yield from _judge_logs(record, seal.partition, seal.sealed_at)
