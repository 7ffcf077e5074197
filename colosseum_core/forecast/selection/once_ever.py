"""Rule 8, ``once_ever``: a question that appeared on any earlier card never appears again.

"Earlier cards" are the caller's to gather: every card of the same kind (FIGHT or CALIBRATION),
which is why cards are sealed in time order. The rule itself reads only the cards sealed strictly
before this seal (a card's key, ``YYYY-MM-DD-HHMM`` New York time, names its seal), so handing it
the whole record, this card included, changes nothing: re-selecting a sealed card reproduces it
instead of excluding its own questions. A key that does not read as a seal is kept, since "never
again" errs toward excluding. A question matches an earlier card's question by market id, or by the
same normalized question stem (a question re-listed under a new market id is the same question).
The verdict names the earliest card it appeared on and its label there; keys sort in seal order.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

import polars as pl

from colosseum_core.forecast.schedule import CARD_TIMEZONE_NAME, SLOTS
from colosseum_core.forecast.selection.inputs import seal_literal
from colosseum_core.stems import question_stem

HISTORY_SCHEMA: Final[dict[str, pl.DataType]] = {
    "card": pl.String(),
    "market_id": pl.String(),
    "label": pl.String(),
    "question": pl.String(),
}
_REQUIRED: Final = ("card", "market_id")
_KEY_FORMAT: Final = "%Y-%m-%d-%H%M"


def card_seal(key: pl.Expr) -> pl.Expr:
    """The UTC seal a card key names (null when the text is not a seal's key, as card_from_key reads it)."""
    # Only YYYY-MM-DD-HHMM with a seal hour is a key; anything else stays null and is kept as history.
    is_key = key.str.contains(f"^\\d{{4}}-\\d{{2}}-\\d{{2}}-({'|'.join(SLOTS)})$")
    local = pl.when(is_key).then(key.str.strptime(pl.Datetime("us"), _KEY_FORMAT, strict=False))
    # Seals are at 05:00, 10:00 and 18:00, never inside a daylight-saving jump.
    zoned = local.dt.replace_time_zone(CARD_TIMEZONE_NAME, ambiguous="earliest", non_existent="null")
    return zoned.dt.convert_time_zone("UTC")


def conform_history(history: pl.DataFrame | None) -> pl.DataFrame:
    """The earlier cards' questions as (card, market_id, label, question), typed; empty for none."""
    if history is None:
        return pl.DataFrame(schema=HISTORY_SCHEMA)
    missing = [name for name in _REQUIRED if name not in history.columns]
    if missing:
        raise ValueError(f"history needs the columns {', '.join(_REQUIRED)}; missing {', '.join(missing)}")
    return history.select(
        [
            (pl.col(name) if name in history.columns else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in HISTORY_SCHEMA.items()
        ]
    )


def once_ever_matches(frame: pl.DataFrame, history: pl.DataFrame | None, seal: dt.datetime) -> pl.DataFrame:
    """(``_row``, ``value``) for each question of ``frame`` already on a card sealed before ``seal``.

    Reads ``frame``'s ``_row``, ``market_id`` and ``stem`` columns.
    """
    sealed = card_seal(pl.col("card"))
    earlier = (
        conform_history(history)
        .filter(sealed.is_null() | (sealed < seal_literal(seal)))
        .with_columns(stem=question_stem(pl.col("question")))
    )
    by_id = frame.select("_row", "market_id").join(
        earlier.select("card", "label", "market_id").filter(pl.col("market_id").is_not_null()),
        on="market_id",
        how="inner",
    )
    by_stem = frame.select("_row", "stem").join(
        earlier.select("card", "label", "stem").filter(pl.col("stem").is_not_null()), on="stem", how="inner"
    )
    return (
        pl.concat([by_id.select("_row", "card", "label"), by_stem.select("_row", "card", "label")])
        .sort("_row", "card", "label", nulls_last=True)
        .group_by("_row", maintain_order=True)
        .first()
        .select(
            "_row",
            value=pl.when(pl.col("label").is_null())
            .then(pl.format("on card {}", pl.col("card")))
            .otherwise(pl.format("on card {} as {}", pl.col("card"), pl.col("label"))),
        )
    )
