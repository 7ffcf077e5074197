"""The forecast's checks of a built site, run in verify's worker processes: a batch of its cards (answers'
identifiers and signatures, scores re-derived) and its board."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from colosseum_core.forecast.answering.answers import unsigned_lines
from colosseum_core.forecast.audit.board_reference import reference_problems
from colosseum_core.forecast.audit.record import answer_signature_problems
from colosseum_core.forecast.audit.rederive import board_problems, score_problems
from colosseum_core.forecast.board.leaderboard import build_boards
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.signatures import KeyIndex, parse_public_keys
from colosseum_core.verify.workers import (
    CONTENT_ID,
    DECODE_ERRORS,
    FILE_COLUMN,
    check_ids,
    guarded,
)

SITE_CARD_TABLES = ("answers", "answer_lines", "card_questions", "settlements", "scores")


def _site_frame(
    data: Path, table: str, cards: Sequence[str], verified: Collection[str]
) -> pl.DataFrame | None:
    path = data / f"{table}.parquet"
    if f"data/{table}.parquet" not in verified:
        return None  # missing, or bytes the signed manifest does not vouch for: named by the bundle check
    try:
        scan = pl.scan_parquet(path, hive_partitioning=False)
        if "card" in scan.collect_schema():
            scan = scan.filter(pl.col("card").is_in(list(cards)))
        return scan.collect()
    except DECODE_ERRORS:  # the parent names an unreadable download; without it, nothing here is checkable
        return None


def check_site_cards(site: str, cards: Sequence[str], verified: Collection[str]) -> Outcome:
    """A batch of the site's cards: answers' identifiers and signatures, and scores re-derived.

    ``verified``: the site's files whose bytes its signed manifest vouches for; no other is read.
    """
    base = Path(site)
    data = base / "data"
    out = Outcome()
    frames = {t: _site_frame(data, t, cards, verified) for t in SITE_CARD_TABLES}
    answers = frames["answers"]
    if answers is not None:
        answers = answers.with_columns(pl.lit("data/answers.parquet").alias(FILE_COLUMN))
        answers, problems = check_ids(answers, lambda f: f)
        out.count("rows", answers.height)
        out.problems += problems
        record_ids = answers[CONTENT_ID].unique().to_list()
        stored_ids = answers[ID_FIELD].unique().to_list() if ID_FIELD in answers.columns else []
        signatures = None
        if "data/answer_signatures.parquet" in verified:
            signatures = (
                pl.scan_parquet(data / "answer_signatures.parquet", hive_partitioning=False)
                .filter(pl.col("record_id").is_in(record_ids + stored_ids))
                .collect()
            )
        keys_all = (
            pl.read_parquet(data / "public_keys.parquet") if "data/public_keys.parquet" in verified else None
        )
        for (key,), card in answers.partition_by("card", as_dict=True).items():
            out.count("cards")
            guarded(
                out,
                f"data/answers.parquet card {key} signatures",
                lambda k=key, c=card: _site_signatures(str(k), c, signatures, keys_all, out),
            )
    lines = frames["answer_lines"]
    if frames["answers"] is not None and lines is not None:
        out.problems += unsigned_lines(frames["answers"], lines, "data/answer_lines.parquet")
    scores = frames["scores"]
    if scores is not None:
        for (key,), card_scores in scores.partition_by("card", as_dict=True).items():
            out.count("scores", card_scores.height)
            guarded(
                out,
                f"data/scores.parquet card {key}",
                lambda k=key, s=card_scores: _site_scores(str(k), s, frames, out),
            )
    return out


def _site_signatures(
    key: str, card: pl.DataFrame, signatures: pl.DataFrame | None, keys_all: pl.DataFrame | None, out: Outcome
) -> None:
    if keys_all is None:
        out.problems.append(
            f"data/public_keys.parquet: missing, so card {key}'s signatures cannot be verified"
        )
        return
    # A site's keys may be per card (a card column) or one list for every card.
    per_card = "card" in keys_all.columns
    keys_frame = (
        keys_all.filter(pl.col("card") == key).drop("card")
        if per_card
        else keys_all.unique(maintain_order=True)
    )
    records, key_problems = parse_public_keys(keys_frame)
    keys = KeyIndex(records)
    out.problems += [f"data/public_keys.parquet: {p}" for p in key_problems]
    record_ids = set(card[CONTENT_ID].to_list()) | set(
        card[ID_FIELD].to_list() if ID_FIELD in card.columns else []
    )
    mine = None if signatures is None else signatures.filter(pl.col("record_id").is_in(list(record_ids)))
    problems, checked = answer_signature_problems(
        key, card, card[CONTENT_ID].to_list(), mine, keys_frame, keys, every_seat=per_card
    )
    out.count("signatures", checked)
    out.problems += [f"data/answers.parquet: {p}" for p in problems]


def _site_scores(
    key: str, scores: pl.DataFrame, frames: Mapping[str, pl.DataFrame | None], out: Outcome
) -> None:
    needed = ("answer_lines", "answers", "card_questions", "settlements")
    parts = {}
    for table in needed:
        frame = frames[table]
        if frame is None:
            out.problems.append(
                f"data/scores.parquet card {key}: cannot be re-derived without data/{table}.parquet"
            )
            return
        parts[table] = frame.filter(pl.col("card") == key)
    problems = score_problems(key, scores, *(parts[t] for t in needed))
    out.problems += [f"data/scores.parquet: {p}" for p in problems]


def check_site_board(site: str, verified: Collection[str]) -> Outcome:
    """The site's boards rebuilt from its scores; only files the signed manifest vouches for are read."""
    base = Path(site)
    data = base / "data"
    out = Outcome()
    recorded: dict[str, Any] = {}
    source = {"leaderboard": "data/leaderboard.parquet", "calibration": "data/calibration.parquet"}
    for table, file in source.items():
        try:
            recorded[table] = pl.read_parquet(base / file) if file in verified else None
        except DECODE_ERRORS:
            return out  # named by the identifier check
    if "data/scores.parquet" not in verified:
        out.problems.append("data/scores.parquet: missing, so the board cannot be re-derived")
        return out
    scores = pl.read_parquet(data / "scores.parquet")
    built = build_boards(scores)
    problems, notes, rows = board_problems(None, recorded, source=source, built=built)
    out.count("board_rows", rows)
    out.problems += problems
    out.notes += notes
    if recorded["leaderboard"] is not None:
        out.problems += reference_problems(scores, recorded["leaderboard"], source["leaderboard"])
    published = data / "leaderboard.json"
    if "data/leaderboard.json" not in verified:
        out.problems.append("data/leaderboard.json: missing")
        return out
    try:
        document = json.loads(published.read_bytes())
        # The board publishes {"format", "formula", "rows": [...]}; a bare array of rows reads the same.
        rows_json = document.get("rows") if isinstance(document, dict) else document
        if not isinstance(rows_json, list) or not all(isinstance(r, dict) for r in rows_json):
            raise ValueError('neither {"rows": [...]} nor a JSON array of row objects')
        # No rows (no settled score yet) has no columns to infer: it reads as the board's empty table.
        as_frame = (
            pl.DataFrame(rows_json, infer_schema_length=None) if rows_json else built.leaderboard.clear()
        )
    except Exception as exc:
        out.problems.append(f"data/leaderboard.json: unreadable ({exc})")
        return out
    problems, _, rows = board_problems(
        None, {"leaderboard": as_frame}, source={"leaderboard": "data/leaderboard.json"}, built=built
    )
    out.count("board_rows", rows)
    out.problems += problems
    return out
