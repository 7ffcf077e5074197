"""``build_rotation``: every candidate gets a verdict under COMPELLE-TOPICS-1; the rotation is what is left.

A rotation is one six-hour window of UTC, named by its start: ``2026-12-01T06Z`` holds 06:00 up to
12:00 (``rotation_key``, ``rotation_start``). Its motions are chosen in the rules' published order
(``names.RULE_ORDER``):

1. the filters, each candidate judged on its own fields: ``decided`` (priced above 95 % on either
   side) and ``past_end`` (ended at or before the rotation's start);
2. the dedup (``duplicate``), over what the filters let through;
3. the source order and its caps (``source_cap``): market items by 24 h volume, at most 6; then
   the search's items in its order, at most 3;
4. the evergreen list fills the rotation to its 12 motions, from the rotation's turn of the list
   (``rotation_full`` for the rest).

A candidate stopped by several rules carries the first, with the value that stopped it. The whole
choice is a pure function of (key, candidates, evergreen list): no clock (the instant is the key's),
no randomness, and no dependence on the order of the input rows (every order is total: tier, 24 h
volume, place in the source's answer, source, source id).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import re
from typing import Final

import polars as pl

from colosseum_core.debate.topics.candidates import CANDIDATE_SCHEMA, evergreen_candidates
from colosseum_core.debate.topics.context import motion_context
from colosseum_core.debate.topics.decided import decided_screen
from colosseum_core.debate.topics.duplicate import duplicate_screen, proposition_stem
from colosseum_core.debate.topics.evergreen import Evergreen, evergreen_offset
from colosseum_core.debate.topics.names import (
    EVERGREEN,
    EXCLUDED,
    KEPT,
    MARKET_SOURCES,
    ROTATION_FULL,
    ROTATION_HOURS,
    ROTATION_SIZE,
    RULE_ORDER,
    SEARCH,
    SOURCE_CAP,
    SOURCE_ORDER,
    SOURCES,
    TIER_OF_SOURCE,
    TOPICS_VERSION,
)
from colosseum_core.debate.topics.past_end import past_end_screen
from colosseum_core.screens import Screen, first_rule, rule_value

KEY_FORMAT: Final = "YYYY-MM-DDTHHZ"
_KEY: Final = re.compile(r"(?P<day>\d{4}-\d{2}-\d{2})T(?P<hour>00|06|12|18)Z", re.ASCII)
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MOTION_ID_HEX: Final = 16

MOTION_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rotation": pl.String(),
    "position": pl.Int64(),
    "motion_id": pl.String(),
    "source": pl.String(),
    "source_id": pl.String(),
    "motion": pl.String(),
    "context": pl.String(),
    "url": pl.String(),
    "citations": pl.List(pl.String()),
    "price_yes": pl.Float64(),
    "volume_24h": pl.Float64(),
    "end_date": pl.Datetime("us", "UTC"),
    "receipt_id": pl.String(),
    "rules": pl.String(),
    "evergreen_version": pl.String(),
}
VERDICT_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rotation": pl.String(),
    **CANDIDATE_SCHEMA,
    "stem": pl.String(),
    "precedence": pl.Int64(),
    "verdict": pl.String(),
    "rule": pl.String(),
    "value": pl.String(),
    "position": pl.Int64(),
    "rules": pl.String(),
}
_TIER_CAPS: Final = {tier: cap for tier, (_, _, cap) in enumerate(SOURCE_ORDER) if cap is not None}
_TIER_NAMES: Final = {TIER_OF_SOURCE[MARKET_SOURCES[0]]: "market item", TIER_OF_SOURCE[SEARCH]: "search item"}


class RotationKeyError(ValueError):
    """A rotation key that names no rotation."""


@dataclasses.dataclass(frozen=True)
class RotationPick:
    """Every candidate with its verdict (``VERDICT_SCHEMA``, in precedence order) and the rotation's
    motions (``MOTION_SCHEMA``, positions 1–12)."""

    candidates_with_verdicts: pl.DataFrame
    motions: pl.DataFrame
    key: str
    start: dt.datetime
    rules: str = TOPICS_VERSION


def rotation_key(instant: dt.datetime) -> str:
    """The key of the six-hour window of UTC that holds ``instant``: ``2026-12-01T06Z``."""
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError(f"naive datetime {instant!r}: pass an aware (UTC) instant")
    utc = instant.astimezone(dt.UTC)
    return f"{utc:%Y-%m-%d}T{utc.hour - utc.hour % ROTATION_HOURS:02d}Z"


def rotation_start(key: str) -> dt.datetime:
    """The UTC instant a rotation key names; ``RotationKeyError`` naming the key if it names none."""
    found = _KEY.fullmatch(key) if isinstance(key, str) else None
    why = f"expected {KEY_FORMAT} with HH one of 00, 06, 12, 18 (UTC)"
    if found is None:
        raise RotationKeyError(f"rotation key {key!r} is not a rotation: {why}")
    try:
        day = dt.date.fromisoformat(found["day"])
    except ValueError as exc:
        raise RotationKeyError(f"rotation key {key!r} is not a rotation: {exc}") from None
    return dt.datetime(day.year, day.month, day.day, int(found["hour"]), tzinfo=dt.UTC)


def rotation_index(key: str) -> int:
    """The rotation's count of six-hour windows since 1970-01-01T00Z (the evergreen list turns with it)."""
    return int((rotation_start(key) - _EPOCH) // dt.timedelta(hours=ROTATION_HOURS))


def motion_id(source: str, source_id: str, motion: str) -> str:
    """The first 16 hex digits of the SHA-256 of ``[source, source_id, motion]`` as compact JSON."""
    text = json.dumps([source, source_id, motion], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:MOTION_ID_HEX]


def _conform(candidates: pl.DataFrame) -> pl.DataFrame:
    missing = [name for name in CANDIDATE_SCHEMA if name not in candidates.columns]
    if missing:
        raise ValueError(f"candidates need the columns of CANDIDATE_SCHEMA; missing {', '.join(missing)}")
    frame = candidates.select([pl.col(name).cast(dtype) for name, dtype in CANDIDATE_SCHEMA.items()])
    unknown = frame.filter(~pl.col("source").is_in(SOURCES) | pl.col("source").is_null())["source"]
    if len(unknown):
        raise ValueError(
            f"a candidate from an unknown source {unknown[0]!r}; sources are {', '.join(SOURCES)}"
        )
    if (frame["source"] == EVERGREEN).any():
        raise ValueError("the candidates hold evergreen rows; the evergreen list is given on its own")
    if frame["motion"].is_null().any() or frame["source_id"].is_null().any():
        raise ValueError("every candidate needs its source_id and its motion")
    twins = frame.filter(pl.struct("source", "source_id").is_duplicated())
    if len(twins):
        raise ValueError(f"two candidates are {twins['source'][0]} {twins['source_id'][0]!r}; ids are unique")
    return frame


def screens(start: dt.datetime) -> tuple[Screen, ...]:
    """The filters, in their published order; the dedup reads what they let through."""
    return (decided_screen(), past_end_screen(start))


def _ordered(frame: pl.DataFrame, offset: int, count: int) -> pl.DataFrame:
    """The candidates in the source order, each with its ``precedence`` (0 first)."""
    # The evergreen list read as a circle from this rotation's offset; every other source keeps its
    # own place (the search's order; a market's place plays no part, its volume and id order it).
    turn = (pl.col("source_rank") - 1 + count - offset) % count
    place = (
        pl.when(pl.col("source") == EVERGREEN)
        .then(turn)
        .when(pl.col("source") == SEARCH)
        .then(pl.col("source_rank"))
        .otherwise(None)
    )
    return (
        frame.with_columns(
            tier=pl.col("source").replace_strict(TIER_OF_SOURCE, return_dtype=pl.Int64),
            market=pl.col("source").is_in(MARKET_SOURCES),
            stem=proposition_stem(pl.col("motion")),
            _place=place,
        )
        .sort(
            ["tier", "volume_24h", "_place", "source", "source_id"],
            descending=[False, True, False, False, False],
            nulls_last=True,
        )
        .with_row_index("precedence")
        .with_columns(pl.col("precedence").cast(pl.Int64))
    )


def _judged(frame: pl.DataFrame, start: dt.datetime) -> pl.DataFrame:
    filters = screens(start)
    dedup = duplicate_screen(first_rule(filters).is_null())
    ordered = (*filters, dedup)
    return frame.with_columns(rule=first_rule(ordered)).with_columns(value=rule_value(ordered))


def _capped(frame: pl.DataFrame) -> pl.DataFrame:
    """The caps and the fill, over the rows the screens kept (in precedence order)."""
    standing = pl.col("rule").is_null()
    frame = frame.with_columns(_seq=standing.cast(pl.Int64).cum_sum().over("tier"))
    counts = frame.filter(standing).group_by("tier").len()
    have = dict(zip(counts["tier"].to_list(), counts["len"].to_list(), strict=True))
    taken = {tier: min(have.get(tier, 0), cap) for tier, cap in _TIER_CAPS.items()}
    fill = ROTATION_SIZE - sum(taken.values())
    evergreen_tier = TIER_OF_SOURCE[EVERGREEN]
    if have.get(evergreen_tier, 0) < fill:
        raise ValueError(
            f"the rotation needs {fill} evergreen motions and {have.get(evergreen_tier, 0)} stand; "
            f"the list is too short for {ROTATION_SIZE} motions"
        )
    cap_of = pl.col("tier").replace_strict({**_TIER_CAPS, evergreen_tier: fill}, return_dtype=pl.Int64)
    over = standing & (pl.col("_seq") > cap_of)
    is_fill = pl.col("tier") == evergreen_tier
    name = pl.col("tier").replace_strict(_TIER_NAMES, default="evergreen motion", return_dtype=pl.String)
    return frame.with_columns(
        rule=pl.when(over)
        .then(pl.when(is_fill).then(pl.lit(ROTATION_FULL)).otherwise(pl.lit(SOURCE_CAP)))
        .otherwise(pl.col("rule")),
        value=pl.when(over & is_fill)
        .then(pl.format("{} {} of this rotation's turn; {} places were left to fill", name, "_seq", cap_of))
        .when(over)
        .then(pl.format("{} {} in the source order; the cap is {}", name, "_seq", cap_of))
        .otherwise(pl.col("value")),
    )


def build_rotation(key: str, candidates: pl.DataFrame, evergreen: Evergreen) -> RotationPick:
    """The rotation of ``key``: every candidate (and every evergreen motion) with its verdict, and the
    12 motions, positions 1–12 in the source order, each with its context parenthetical."""
    start = rotation_start(key)
    count = len(evergreen.motions)
    offset = evergreen_offset(rotation_index(key), count)
    everything = pl.concat([_conform(candidates), evergreen_candidates(evergreen)], how="vertical")
    judged = _capped(_judged(_ordered(everything, offset, count), start))
    kept = pl.col("rule").is_null()
    verdicts = judged.with_columns(
        rotation=pl.lit(key),
        verdict=pl.when(kept).then(pl.lit(KEPT)).otherwise(pl.lit(EXCLUDED)),
        position=pl.when(kept).then(kept.cast(pl.Int64).cum_sum()).otherwise(None),
        rules=pl.lit(TOPICS_VERSION),
    ).select([pl.col(name).cast(dtype) for name, dtype in VERDICT_SCHEMA.items()])
    chosen = verdicts.filter(pl.col("verdict") == KEPT).sort("position")
    assert chosen.height == ROTATION_SIZE, chosen.height
    assert set(verdicts["rule"].drop_nulls().unique().to_list()) <= set(RULE_ORDER)
    rows = chosen.to_dicts()
    motions = chosen.with_columns(
        motion_id=pl.Series(
            [motion_id(r["source"], r["source_id"], r["motion"]) for r in rows], dtype=pl.String
        ),
        context=pl.Series(
            [motion_context(r, at=start, evergreen_version=evergreen.version) for r in rows], dtype=pl.String
        ),
        evergreen_version=pl.lit(evergreen.version),
    ).select([pl.col(name).cast(dtype) for name, dtype in MOTION_SCHEMA.items()])
    return RotationPick(verdicts, motions, key, start)
