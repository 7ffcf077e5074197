"""What the site's landing page says of the forecasting arena, read from its published files alone.

Who leads in each kind is the top of that kind's seat board by FC SCORE (recorded as CROWN) under the
board's formula, as ``data/leaderboard.json`` publishes it; a CALIBRATION seat is shown by the house
players that answered for it (``data/scores.parquet``), the seat beside them. When it last changed: the
latest card of the kind with a scored answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import polars as pl

from colosseum_core.forecast.site import names
from colosseum_core.forecast.site.fields import format_field
from colosseum_core.forecast.site.pages import KINDS, _board_order
from colosseum_core.site.front import Front, FrontUnreadable, KindFront, Lead, PartFiles, Value

MEASURES: Final = (
    "Thirteen seats, one per company and model line, answer the same card of Polymarket questions three "
    "times a day, each call with a confidence from 1 to 10, and are scored once the questions settle. "
    "FC SCORE adds the confidence of every right call and takes away that of every wrong one; "
    "CONFIDENCE (0–100) and VS MARKET say how well the stated confidence held up, and whether it beat "
    "the market's price."
)


def forecast_front(files: PartFiles) -> Front:
    board = files.json("data/leaderboard.json")
    try:
        rows: list[dict[str, Any]] = list(board["rows"])
        formula = str(board["formula"])
    except (KeyError, TypeError) as exc:
        raise FrontUnreadable(f"{files.site_name('data/leaderboard.json')}: not the board ({exc})") from None
    seats = files.json("data/seats.json")
    try:
        seat_names = {str(s["id"]): names.seat_name(s["company"], s["line"]) for s in seats["seats"]}
    except (KeyError, TypeError) as exc:
        raise FrontUnreadable(
            f"{files.site_name('data/seats.json')}: not the seat registry ({exc})"
        ) from None
    scores = files.parquet("data/scores.parquet")
    if not scores.is_empty():
        scores = scores.filter((pl.col("result") != "void") & (pl.col("formula") == formula))
    return Front(
        measures=MEASURES,
        kinds=tuple(_kind(kind, rows, formula, seat_names, scores) for kind in KINDS),
        board="index.html",
        downloads="downloads.html",
        keys=(("keys.html", "Public keys that signed the answers"),),
    )


def _kind(
    kind: str, rows: Sequence[dict[str, Any]], formula: str, seat_names: dict[str, str], scores: pl.DataFrame
) -> KindFront:
    board = _board_order(
        r for r in rows if r["kind"] == kind and r["entrant_type"] == "seat" and r["formula"] == formula
    )
    if not board:
        return KindFront(kind, empty=f"no {kind} records yet")
    top = [r for r in board if r["crown"] == board[0]["crown"]]
    players = _players(scores, kind) if kind == "CALIBRATION" else {}

    def who(row: dict[str, Any]) -> Value:
        seat = str(row["entrant"])
        shown = seat_names.get(seat, seat)
        if seat in players:
            shown = f"{players[seat]} for {shown}"
        return Value.of("leaderboard", row, "entrant", shown)

    first = top[0]
    lead = Lead(
        title="Top seat by FC SCORE",
        who=tuple(who(r) for r in top),
        figures=(
            (
                "FC SCORE",
                Value.of("leaderboard", first, "crown", format_field("leaderboard", "crown", first)),
            ),
            ("n", Value.of("leaderboard", first, "n", str(first["n"]))),
        ),
        href=f"index.html#{kind.lower()}",
    )
    changed, href = _changed(scores, kind)
    return KindFront(kind, (lead,), changed, href)


def _players(scores: pl.DataFrame, kind: str) -> dict[str, str]:
    """Per seat, the readable names of the players that answered its scored ``kind`` questions, in the
    order they first did (a CALIBRATION seat is played by house players)."""
    if scores.is_empty():
        return {}
    found: dict[str, list[str]] = {}
    ordered = scores.filter(pl.col("kind") == kind).sort("card", "seat").select("seat", "gladiator")
    for seat, gladiator in ordered.unique(maintain_order=True).iter_rows():
        name = names.gladiator_name(str(gladiator))
        if name not in found.setdefault(str(seat), []):
            found[str(seat)].append(name)
    return {seat: " → ".join(line) for seat, line in found.items()}


def _changed(scores: pl.DataFrame, kind: str) -> tuple[Value | None, str | None]:
    """The latest card of ``kind`` with a scored answer: the last that moved its board."""
    if scores.is_empty():
        return None, None
    mine = scores.filter(pl.col("kind") == kind).sort("card", "id", descending=[True, False])
    if mine.is_empty():
        return None, None
    row = mine.row(0, named=True)
    return Value.of("scores", row, "card", f"card {row['card']}"), f"cards/{row['card']}.html"
