"""``select_card``: every swept question gets a verdict under SLATE-LAWS-3.7, and the card is what is left.

The rules run in their fixed, published order (``names.RULE_ORDER``). The screening rules (1–8)
judge each question on its own published fields, all at once, and a question excluded by several
carries the first of them. The ranking by doubt then orders what still stands, and rules 9–11 walk
that ranked list. The whole selection is a pure function of (markets, seal, history, cut): no clock,
no randomness, and no dependence on the order of the input rows.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import math
from typing import Final

import polars as pl

from colosseum_core.forecast.rules import ONE_OF_A_KIND_READING
from colosseum_core.forecast.selection.gradeable import gradeable_screen
from colosseum_core.forecast.selection.inputs import SELECTION_COLUMNS, conform, utc_seal
from colosseum_core.forecast.selection.malformed import malformed_screen
from colosseum_core.forecast.selection.names import (
    EXCLUDED,
    MALFORMED,
    ONCE_EVER,
    ONE_OF_A_KIND,
    ONE_PER_FAMILY,
    RULE_ORDER,
    RULES_VERSION,
    SELECTED,
    THE_CUT,
)
from colosseum_core.forecast.selection.once_ever import once_ever_matches
from colosseum_core.forecast.selection.one_of_a_kind import check_reading, one_of_a_kind_reasons
from colosseum_core.forecast.selection.one_per_family import one_per_family_reason
from colosseum_core.forecast.selection.open_market import open_screen
from colosseum_core.forecast.selection.priced import priced_screen
from colosseum_core.forecast.selection.pricing import with_seal_price
from colosseum_core.forecast.selection.ranking import id_order, rank_by_doubt
from colosseum_core.forecast.selection.real_money import event_interest, real_money_screen
from colosseum_core.forecast.selection.settles_soon import settles_soon_screen
from colosseum_core.forecast.selection.texts import fixed3_text
from colosseum_core.forecast.selection.the_cut import CARD_SIZE, the_cut_reason, with_places
from colosseum_core.forecast.selection.tomorrow_only import tomorrow_only_screen
from colosseum_core.screens import Screen, first_rule
from colosseum_core.stems import with_question_stem

VERDICT_SCHEMA: Final[dict[str, pl.DataType]] = {
    "market_id": pl.String(),
    "event_id": pl.String(),
    "question": pl.String(),
    "verdict": pl.String(),
    "rule": pl.String(),
    "value": pl.String(),
    "rank": pl.Int64(),
    "place": pl.Int64(),
    "doubt_bits": pl.Float64(),
    "price": pl.Float64(),
    "price_source": pl.String(),
    "interest": pl.Float64(),
    "end_date_ts": pl.Datetime("us", "UTC"),
    "rules": pl.String(),
}
# The card's own columns, first, in this order; the market's other verbatim columns follow.
CARD_COLUMNS: Final = (
    "place",
    "rank",
    "market_id",
    "event_id",
    "question",
    "price",
    "price_source",
    "doubt_bits",
    "interest",
    "end_date_ts",
    "rules",
)
_ROW: Final = "_row"
# Columns that describe a row of the input table rather than the market; not carried onto the card.
_NOT_CARRIED: Final = frozenset({"id", _ROW})


@dataclasses.dataclass(frozen=True)
class Selection:
    """The outcome of the selection rules for one card.

    ``verdicts`` holds one row per input market: its verdict, the first rule that excluded it and
    the value that did, its ``rank`` in the ranking by doubt (every question that reached the
    ranking) and its ``place`` on the list the cut reads (what ``one_per_family`` and
    ``one_of_a_kind`` left). ``card`` holds the selected questions in place order, places 1..cut.
    ``one_of_a_kind`` is the reading of that rule the card was judged under.
    """

    verdicts: pl.DataFrame
    card: pl.DataFrame
    total_doubt_bits: float
    counts_by_rule: dict[str, int]
    seal: dt.datetime
    cut: int
    rules: str = RULES_VERSION
    one_of_a_kind: str = ONE_OF_A_KIND_READING


@functools.lru_cache(maxsize=8)
def screens(seal: dt.datetime) -> tuple[Screen, ...]:
    """The screening rules 1–7, in their published order (rule 8, ``once_ever``, needs the history).

    Kept for the few seals in use: building the expressions costs more than running them on a
    small sweep, and an expression is an immutable value.
    """
    return (
        malformed_screen(),
        open_screen(),
        gradeable_screen(),
        priced_screen(),
        tomorrow_only_screen(seal),
        settles_soon_screen(seal),
        real_money_screen(),
    )


_OUTCOME_SCHEMA: Final[dict[str, pl.DataType]] = {
    _ROW: pl.UInt32(),
    "rule": pl.String(),
    "value": pl.String(),
    "rank": pl.Int64(),
    "place": pl.Int64(),
}


def _outcomes(frame: pl.LazyFrame, **columns: pl.Expr | str) -> pl.LazyFrame:
    """One outcome row per question of ``frame``: the given columns, the rest of ``_OUTCOME_SCHEMA`` null."""
    given = {name: pl.col(value) if isinstance(value, str) else value for name, value in columns.items()}
    return frame.select(
        [
            pl.col(_ROW).cast(dtype)
            if name == _ROW
            else given.get(name, pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in _OUTCOME_SCHEMA.items()
        ]
    )


def _prepare(markets: pl.DataFrame, ordered: tuple[Screen, ...]) -> pl.DataFrame:
    """The columns the rules read, the price at seal, the event interest, and the first screen (1–7)
    that excludes each question (``_first``), in one query."""
    return (
        conform(markets)
        .lazy()
        .select(SELECTION_COLUMNS)
        .with_row_index(_ROW)
        .pipe(with_seal_price)
        .with_columns(interest=event_interest())
        .with_columns(_first=first_rule(ordered))
        .collect()
    )


def _screen(
    frame: pl.DataFrame, ordered: tuple[Screen, ...], history: pl.DataFrame | None, seal: dt.datetime
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the questions still standing after rules 1–8, with their ``stem``; the outcome of the rest)."""
    # Each rule writes its value only for the questions it is the first to exclude.
    excluded = [
        _outcomes(
            frame.lazy().filter(pl.col("_first") == screen.rule), rule=pl.lit(screen.rule), value=screen.value
        )
        for screen in ordered
    ]
    # A stem is needed only from here on, so it is computed only for what is still standing.
    standing = with_question_stem(frame.filter(pl.col("_first").is_null()).drop("_first"))
    earlier = once_ever_matches(standing, history, seal)
    excluded.append(_outcomes(earlier.lazy(), rule=pl.lit(ONCE_EVER), value="value"))
    return standing.join(earlier, on=_ROW, how="anti"), pl.concat(excluded).collect()


def _walk_ranked_list(standing: pl.DataFrame, cut: int, reading: str) -> pl.DataFrame:
    """The outcome (rule, value, rank, place) of every question that reached the ranking."""
    ranked = rank_by_doubt(standing).with_columns(_family=one_per_family_reason())
    leaders = ranked.filter(pl.col("_family").is_null())
    alike = one_of_a_kind_reasons(leaders, reading)
    placed = with_places(leaders.join(alike, on="rank", how="anti")).with_columns(_cut=the_cut_reason(cut))
    selected_value = pl.format("doubt {} bits", fixed3_text(pl.col("doubt_bits")))
    return pl.concat(
        [
            _outcomes(
                ranked.lazy().filter(pl.col("_family").is_not_null()),
                rule=pl.lit(ONE_PER_FAMILY),
                value="_family",
                rank="rank",
            ),
            _outcomes(
                leaders.lazy().join(alike.lazy(), on="rank", how="inner"),
                rule=pl.lit(ONE_OF_A_KIND),
                value="reason",
                rank="rank",
            ),
            _outcomes(
                placed.lazy(),
                rule=pl.when(pl.col("_cut").is_not_null()).then(pl.lit(THE_CUT)),
                value=pl.coalesce("_cut", selected_value),
                rank="rank",
                place="place",
            ),
        ]
    ).collect()


def select_card(
    markets: pl.DataFrame,
    *,
    seal: dt.datetime,
    history: pl.DataFrame | None = None,
    cut: int = CARD_SIZE,
    one_of_a_kind: str = ONE_OF_A_KIND_READING,
) -> Selection:
    """Apply SLATE-LAWS-3.7 to the swept ``markets`` (the verbatim table) for the card sealed at ``seal``.

    ``history`` holds the questions of every earlier card of the same kind (columns at least
    ``card``, ``market_id``, ``label``, ``question``); ``cut`` is the card size; ``one_of_a_kind``
    the reading of that rule (today's, or the one a recorded card was judged under:
    ``one_of_a_kind.reading_of``). Bad market rows never raise: they are excluded as ``malformed``.
    A naive ``seal``, a ``cut`` below 1, an unknown reading, a table whose columns can not be read
    as the verbatim types, or a history without ``card`` and ``market_id`` raise ``ValueError``.
    """
    seal = utc_seal(seal)
    if isinstance(cut, bool) or not isinstance(cut, int) or cut < 1:
        raise ValueError(f"cut must be a positive integer, got {cut!r}")
    reading = check_reading(one_of_a_kind)

    source = markets.with_row_index(_ROW)
    ordered = screens(seal)
    frame = _prepare(markets, ordered)
    standing, screened_out = _screen(frame, ordered, history, seal)
    outcomes = pl.concat([screened_out, _walk_ranked_list(standing, cut, reading)])
    if outcomes.height != frame.height or not outcomes[_ROW].is_unique().all():
        raise AssertionError("the selection did not give every question exactly one verdict")

    judged = frame.join(outcomes, on=_ROW, how="left")
    # A malformed question's quotes contradict each other, so no price is read from them.
    malformed = pl.col("rule") == MALFORMED
    judged = judged.with_columns(
        [
            pl.when(malformed).then(None).otherwise(pl.col(name)).alias(name)
            for name in ("price_units", "price", "price_source", "doubt_bits")
        ]
    ).with_columns(
        verdict=pl.when(pl.col("rule").is_null()).then(pl.lit(SELECTED)).otherwise(pl.lit(EXCLUDED)),
        rules=pl.lit(RULES_VERSION),
    )
    ids, ids_descending = id_order("market_id")
    judged = judged.sort(
        [pl.col("rank"), *ids, pl.col("event_id"), pl.col("question")],
        descending=[False, *ids_descending, False, False],
        nulls_last=True,
        maintain_order=True,
    )

    leading = ["card"] if "card" in markets.columns else []
    verdicts = judged.join(source.select(_ROW, *leading), on=_ROW, how="left", maintain_order="left").select(
        *leading, *(pl.col(name).cast(dtype) for name, dtype in VERDICT_SCHEMA.items())
    )

    carried = [c for c in markets.columns if c not in CARD_COLUMNS and c not in _NOT_CARRIED]
    card = (
        judged.filter(pl.col("verdict") == SELECTED)
        .sort("place")
        .select(_ROW, *CARD_COLUMNS)
        .join(source.select(_ROW, *carried), on=_ROW, how="left", maintain_order="left")
        .drop(_ROW)
    )

    excluded = verdicts.filter(pl.col("verdict") == EXCLUDED)["rule"].value_counts()
    tally = dict(zip(excluded["rule"].to_list(), excluded["count"].to_list(), strict=True))
    return Selection(
        verdicts=verdicts,
        card=card,
        total_doubt_bits=math.fsum(card["doubt_bits"].to_list()),
        counts_by_rule={rule: int(tally.get(rule, 0)) for rule in RULE_ORDER},
        seal=seal,
        cut=cut,
        one_of_a_kind=reading,
    )
