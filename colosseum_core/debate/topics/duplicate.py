"""Rule 3 of COMPELLE-TOPICS-1, ``duplicate``: one proposition, one motion.

The proposition stem is the shared question stem (``colosseum_core.stems``) with its deadline phrases
taken out: "by April 30", "by March 31, 2027", "before 2027", "in 2026", "by end of year", "this
week" and their kin (``DEADLINES``). "Kraken IPO by March 31, 2026?" and "Kraken IPO in 2025?" are
then one proposition, "kraken ipo", asked with two deadlines.

* Market items dedup by event plus proposition stem (the method's "event slug plus proposition
  stem"; a Kalshi event ticker plays the slug's part): of a multi-deadline family within one event
  only the sibling with the most 24 h volume stays (ties by source id). The same stem in two
  different events is two topics, and both stay.
* Search and evergreen items dedup by the stem alone, against everything that stays before them
  in the source order (every market item, then the search's earlier items, then the list's).

The rule reads only candidates the filters (``decided``, ``past_end``) let through, so a decided
sibling never represents its family; it runs before the caps, over every candidate still standing.
An excluded row's value names the source id of the row that stays. A motion with no stem at all
(pure punctuation) is nobody's duplicate.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.debate.topics.names import DUPLICATE
from colosseum_core.screens import Screen
from colosseum_core.stems import question_stem

_MONTH: Final = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_BY: Final = r"(?:by|before|until|till|through|in|during|after)"
_UNIT: Final = r"(?:year|month|week|weekend|quarter|day|season)"
# On the stem, where punctuation is already a space and every letter lowercase; in the order applied.
DEADLINES: Final = (
    # by April 30 · by March 31 2027 · in June 2026 · before the end of March
    rf"\b{_BY}\s+(?:the\s+)?(?:end\s+of\s+)?{_MONTH}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:\s+\d{{4}})?\b",
    # in 2026 · before 2027 · by the end of 2026 · by Q3 2026 · in Q4
    rf"\b{_BY}\s+(?:the\s+)?(?:end\s+of\s+)?(?:q[1-4](?:\s+\d{{4}})?|\d{{4}})\b",
    # by end of year · before the end of the month · by the end of this week
    rf"\b{_BY}\s+(?:the\s+)?end\s+of\s+(?:the\s+|this\s+|next\s+)?{_UNIT}\b",
    # this week · next month · today
    rf"\b(?:this|next)\s+{_UNIT}\b",
    r"\b(?:today|tonight|tomorrow)\b",
)
_HUGE: Final = 2**62  # sorts after every real precedence


def proposition_stem(motion: pl.Expr) -> pl.Expr:
    """The stem of each motion with its deadline phrases taken out (String), null when nothing is left."""
    stem = question_stem(motion)
    for pattern in DEADLINES:
        stem = stem.str.replace_all(pattern, " ")
    stem = stem.str.replace_all(r"\s+", " ").str.strip_chars(" ")
    return pl.when(stem.str.len_bytes() > 0).then(stem).otherwise(None)


def duplicate_screen(standing: pl.Expr) -> Screen:
    """The rows another row already stands for.

    ``standing`` (Boolean) says which rows the filters let through. Reads ``stem`` (the proposition
    stem), ``event_key``, ``source``, ``source_id``, ``market`` (Boolean: a market item) and
    ``precedence`` (the source order: market items by 24 h volume then source id, then the search's
    items, then the evergreen list's in the rotation's turn; lower stands first).
    """
    eligible = standing & pl.col("stem").is_not_null()
    market = pl.col("market")
    # Rows that can not stand for anyone sort after every row that can.
    sibling_key = pl.when(eligible & market).then(pl.col("precedence")).otherwise(_HUGE)
    any_key = pl.when(eligible).then(pl.col("precedence")).otherwise(_HUGE)
    family = ("event_key", "stem")
    sibling_first = sibling_key.min().over(family)
    stem_first = any_key.min().over("stem")
    sibling_leader = pl.col("source_id").sort_by(sibling_key).first().over(family)
    stem_leader_id = pl.col("source_id").sort_by(any_key).first().over("stem")
    stem_leader_source = pl.col("source").sort_by(any_key).first().over("stem")
    as_sibling = eligible & market & (pl.col("precedence") > sibling_first)
    as_stem = eligible & ~market & (pl.col("precedence") > stem_first)
    return Screen(
        rule=DUPLICATE,
        excludes=(as_sibling | as_stem).fill_null(False),
        value=pl.when(market)
        .then(pl.format('event {} proposition "{}": kept as {}', "event_key", "stem", sibling_leader))
        .otherwise(pl.format('proposition "{}": kept as {} {}', "stem", stem_leader_source, stem_leader_id)),
    )
