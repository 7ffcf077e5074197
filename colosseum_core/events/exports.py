"""The multi-event arena's sealed events as the exporters' unit logs: one per contender and event.

- chess: one sample per game the contender played (input: the line and its colour; the move prompts
  and replies as they went; output: the game's PGN; score: its points);
- Solve or Object: one sample per item (input: the prompt as sent; output: the reply; scores: the
  points and the Brier score of its p_defective);
- challenges: one sample per scored slot and ranking (input: the task's statement once revealed;
  output: the outcome's reason, the solver's reply staying sealed in the record until its key is
  published; score: units over the scale).

Reads the tables by name, so it needs no kind's module (nor python-chess). Imported by: the exports
command (through ``colosseum_core.arenas``) and the tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.exports.exchanges import last_exchange, read_exchange, tokens
from colosseum_core.exports.model_names import field_name
from colosseum_core.exports.units import Sample, Standing, Turn, UnitLog, Verdict, sample_id
from colosseum_core.record.layout import Record
from colosseum_core.record.receipts import ReceiptError
from colosseum_core.record.tables import RecordTables


def _iso(value: Any) -> str:
    return value.isoformat().replace("+00:00", "Z") if hasattr(value, "isoformat") else str(value)


def _rules(*values: str | None) -> tuple[str, ...]:
    return tuple(sorted({r for v in values if v for r in re.split(r"[\s,]+", v) if r}))


class _Event:
    def __init__(self, record: Record, event: str, sealed_at: str) -> None:
        self.record, self.event, self.sealed_at = record, event, sealed_at
        self.tables: RecordTables = record.tables(EVENTS)
        row = self.tables.read("event_manifests", event).row(0, named=True)
        self.kind: str = row["kind"]
        self.manifest: dict[str, Any] = json.loads(row["manifest"])
        self.frozen_at = _iso(row["frozen_at"])
        self.manifest_sha256: str = row["manifest_sha256"]
        self.event_class: str = row["class"]

    def contender(self, cid: str) -> tuple[str, dict[str, Any]]:
        found = next((c for c in self.manifest.get("contenders", []) if c.get("id") == cid), {"id": cid})
        name = field_name(
            found.get("protocol"),
            found.get("model") or found.get("engine") or cid,
            base_url=found.get("base_url"),
            kind=found.get("kind"),
        )
        return name, found

    def log(self, cid: str, task: str, samples: list[Sample], **more: Any) -> UnitLog:
        model, c = self.contender(cid)
        base = c.get("base_url")
        metadata = more.pop("metadata", {})
        # an engine is no model: it has no Every Eval Ever record
        standings = more.pop("standings", ())
        standings = standings if c.get("kind") != "engine" else ()
        return UnitLog(
            arena=EVENTS.name,
            task=task,
            unit=self.event,
            contender=cid,
            model=model,
            created=self.frozen_at,
            completed=self.sealed_at,
            samples=tuple(samples),
            settings=c.get("settings") or {},
            base_url=base if base and "://" in str(base) else None,
            metadata={
                "event": self.event,
                "event_kind": self.kind,
                "class": self.event_class,
                "manifest_sha256": self.manifest_sha256,
                "sealed_at": self.sealed_at,
                **({"stands_in_for": c["stands_in_for"]} if c.get("stands_in_for") else {}),
                **metadata,
            },
            standings=standings,
            **more,
        )


def _chess(ev: _Event) -> Iterator[UnitLog]:
    games = ev.tables.read("chess_games", ev.event)
    moves = ev.tables.read("chess_moves", ev.event).sort("game_id", "ply", "attempt")
    for st in ev.tables.read("chess_standings", ev.event).iter_rows(named=True):
        cid = st["contender"]
        samples = []
        for g in games.filter((pl.col("white") == cid) | (pl.col("black") == cid)).iter_rows(named=True):
            colour = "white" if g["white"] == cid else "black"
            opponent = g["black"] if colour == "white" else g["white"]
            prompt = f"Line {g['line_id']} ({g['eco']}): you play {colour} against {opponent}."
            turns = [Turn("user", prompt)]
            receipts: list[str] = []
            for m in moves.filter(
                (pl.col("game_id") == g["game_id"]) & (pl.col("contender") == cid)
            ).iter_rows(named=True):
                ids = list(m["receipt_ids"] or [])
                receipts += ids
                if ids:
                    try:
                        asked = read_exchange(ev.record.receipts, ids[-1]).prompt
                    except (ReceiptError, OSError):
                        asked = ""
                    turns.append(Turn("user", asked, {"ply": m["ply"], "attempt": m["attempt"]}))
                turns.append(
                    Turn(
                        "assistant",
                        m["text"] or m["san"] or "",
                        {
                            "ply": m["ply"],
                            "san": m["san"],
                            "accepted": m["accepted"],
                            "failure": m["failure"],
                            "row": m["id"],
                        },
                    )
                )
            tin, tout = tokens(ev.record.receipts, receipts)
            points = g["white_score"] if colour == "white" else 1.0 - g["white_score"]
            samples.append(
                Sample(
                    id=sample_id(g["game_id"]),
                    input=prompt,
                    output=g["pgn"] or "",
                    target="1-0" if colour == "white" else "0-1",
                    scores={
                        "points": Verdict(
                            points, answer=g["result"], explanation=f"{g['ended_by']} ({g['termination']})"
                        )
                    },
                    turns=tuple(turns),
                    metadata={
                        "event": ev.event,
                        "game_id": g["game_id"],
                        "colour": colour,
                        "opponent": opponent,
                        "round": g["round"],
                        "line_id": g["line_id"],
                        "plies": g["plies"],
                        "game_row": g["id"],
                        "rejected": g[f"{colour}_rejected"],
                        "forfeited_by": g["forfeited_by"],
                    },
                    input_tokens=tin,
                    output_tokens=tout,
                )
            )
        yield ev.log(
            cid,
            "colosseum-chess",
            samples,
            scorer="CHESS-GAME-1",
            rules=_rules(*games["rules"].unique().to_list()),
            metrics={
                "points": {
                    "mean": st["points"] / st["games"] if st["games"] else 0.0,
                    "rating": st["rating"],
                    "rating_low": st["low"],
                    "rating_high": st["high"],
                    "placement": float(st["placement"]),
                    "forfeit_rate": st["forfeit_rate"],
                    "rejected_rate": st["rejected_rate"],
                }
            },
            metadata={"standings_row": st["id"], "medal": st["medal"]},
            standings=(
                Standing(
                    "colosseum.chess.rating",
                    st["rating"],
                    st["low"],
                    st["high"],
                    st["games"],
                    "bootstrap over game clusters",
                ),
            ),
        )


def _solve_or_object(ev: _Event) -> Iterator[UnitLog]:
    replies = ev.tables.read("soo_replies", ev.event)
    for st in ev.tables.read("soo_standings", ev.event).iter_rows(named=True):
        cid = st["contender"]
        samples = []
        for r in replies.filter(pl.col("contender") == cid).sort("item_id").iter_rows(named=True):
            last = last_exchange(ev.record.receipts, r["receipt_ids"])
            tin, tout = tokens(ev.record.receipts, r["receipt_ids"])
            unreadable = r["outcome"] == "unreadable"
            samples.append(
                Sample(
                    id=sample_id(r["item_id"]),
                    input=last.prompt if last and last.prompt else r["item_id"],
                    output=r["text"] or "",
                    target="OBJECT" if r["role"] == "twin" else "ANSWER",
                    scores={
                        "points": Verdict(
                            r["points"],
                            answer=r["verdict"],
                            explanation=r["reason"],
                            failure=r["failure"] if unreadable else None,
                            metadata={"outcome": r["outcome"], "evidence": r["evidence"]},
                        ),
                        "brier": Verdict(r["brier_units"] / 10000, answer=str(r["p_defective"])),
                    },
                    metadata={
                        "event": ev.event,
                        "item_id": r["item_id"],
                        "pair_id": r["pair_id"],
                        "role": r["role"],
                        "reply_row": r["id"],
                        "prompt_sha256": r["prompt_sha256"],
                        "receipt_ids": list(r["receipt_ids"] or []),
                    },
                    stop=last.stop if last else None,
                    input_tokens=tin,
                    output_tokens=tout,
                    error=r["error"],
                )
            )
        yield ev.log(
            cid,
            "colosseum-solve-or-object",
            samples,
            scorer="SOO-SCORING-1",
            rules=_rules(st["rules"]),
            metrics={
                "points": {
                    "mean": st["score"],
                    "low": st["low"],
                    "high": st["high"],
                    "placement": float(st["placement"]),
                },
                "brier": {"mean": st["brier"], "low": st["brier_low"], "high": st["brier_high"]},
            },
            metadata={"standings_row": st["id"]},
            standings=(
                Standing(
                    "colosseum.soo.score",
                    st["score"],
                    st["low"],
                    st["high"],
                    st["items"],
                    "bootstrap over pairs",
                    bounds=(-1.0, 1.0),
                ),
                Standing(
                    "colosseum.soo.brier",
                    st["brier"],
                    st["brier_low"],
                    st["brier_high"],
                    st["items"],
                    "bootstrap over pairs",
                    lower_is_better=True,
                    bounds=(0.0, 1.0),
                ),
            ),
        )


def _challenges(ev: _Event) -> Iterator[UnitLog]:
    scores = ev.tables.read("challenge_scores", ev.event)
    reveals = {r["task_id"]: r for r in ev.tables.read("challenge_reveals", ev.event).iter_rows(named=True)}
    standings = ev.tables.read("challenge_standings", ev.event).filter(pl.col("basis") == "verified")
    for cid in standings["contender"].unique(maintain_order=True):
        samples = []
        for r in scores.filter(pl.col("contender") == cid).iter_rows(named=True):
            task = reveals.get(r["task_id"])
            statement = (
                json.loads(task["task"]).get("statement", "") if task else f"(no task: {r['outcome']})"
            )
            samples.append(
                Sample(
                    id=sample_id(r["ranking"], (r["task_id"] or r["id"])[:16], r["slot"] or 0),
                    input=statement,
                    output=r["reason"] or "",
                    scores={
                        r["ranking"]: Verdict(
                            r["units"] / r["scale"] if r["scale"] else 0.0,
                            answer=r["outcome"],
                            explanation=r["reason"],
                            metadata={"evidence": r["evidence"]},
                        )
                    },
                    metadata={
                        "event": ev.event,
                        "ranking": r["ranking"],
                        "task_id": r["task_id"],
                        "slot": r["slot"],
                        "score_row": r["id"],
                        "defective": task["defective"] if task else None,
                    },
                )
            )
        mine = standings.filter(pl.col("contender") == cid)
        yield ev.log(
            cid,
            "colosseum-challenges",
            samples,
            scorer="CHALLENGE-SCORING-1",
            rules=_rules(*mine["rules"].to_list()),
            metrics={
                s["ranking"]: {
                    "score": s["score"],
                    "low": s["low"],
                    "high": s["high"],
                    "placement": float(s["placement"]),
                }
                for s in mine.iter_rows(named=True)
            },
            standings=tuple(
                Standing(
                    f"colosseum.challenges.{s['ranking']}",
                    s["score"],
                    s["low"],
                    s["high"],
                    s["n"],
                    "bootstrap over slots",
                )
                for s in mine.iter_rows(named=True)
            ),
        )


_KINDS = {"chess": _chess, "solve-or-object": _solve_or_object, "challenge": _challenges}


def unit_logs(record: Record) -> Iterator[UnitLog]:
    tables = record.tables(EVENTS)
    for seal in record.seals(EVENTS).seals():
        if not tables.exists("event_manifests", seal.partition):
            continue
        ev = _Event(record, seal.partition, seal.sealed_at)
        export = _KINDS.get(ev.kind)
        if export is not None:
            yield from export(ev)
