"""Rule 10, ``one_of_a_kind``: no two questions on one card are the same question in different clothes.

Two questions are alike when they share any of these keys (checked in this order for the text):
1. the same market id;
2. the same event (a family: after ``one_per_family`` only a repeated market id can still share one);
3. the same sports fixture: the same non-null game id, where the event's ``gameId`` and the market's
   ``gameId`` are one namespace (Gamma writes the same number in both, and "More Markets" child events
   share their parent's). A sports market (one with a ``sportsMarketType``) that carries no game id
   at all is keyed by its event's normalized title and its stamped start (event ``startTime``, else
   ``eventStartTime``, else ``gameStartTime``): the same fixture listed twice without an id;
4. the same normalized question stem (``stems.question_stem``).

Which one stays is decided on the card, in rank order: walking the ranked list, a question stays
unless it is alike to a better-ranked question that stayed. So a question alike only to a question
that was itself excluded is not excluded, and the verdict always names a market that is on the list
the cut reads. That walk is sequential by nature; here it is run as rounds of columnar joins (keep
every question that is the best-ranked live holder of each of its keys, then exclude every question
alike to one kept above it) that reach the same fixed point, on a real board in two or three rounds.
Each round settles at least the best-ranked open question, so a contrived chain (1 alike to 2, 2 to
3, 3 to 4, …) would take one round per link: after ``_MAX_ROUNDS`` whatever is still open is
finished by the walk itself, one question at a time, which gives the same verdicts by definition.
"""

from __future__ import annotations

import itertools
from operator import itemgetter
from typing import Final

import polars as pl

from colosseum_core.forecast.selection.stems import question_stem
from colosseum_core.forecast.selection.texts import instant_text

_MARKET, _EVENT, _FIXTURE, _STEM = 0, 1, 2, 3
_MAX_ROUNDS: Final = 8
_BEATEN_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rank": pl.Int64(),
    "blocker": pl.Int64(),
    "shown": pl.String(),
}
_KEY_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rank": pl.Int64(),
    "kind": pl.Int8(),
    "key": pl.String(),
    "shown": pl.String(),
}


def _present(column: str) -> pl.Expr:
    return pl.col(column).is_not_null() & (pl.col(column).str.len_bytes() > 0)


def _key(kind: int, key: pl.Expr, shown: pl.Expr) -> dict[str, pl.Expr]:
    return {"kind": pl.lit(kind, dtype=pl.Int8), "key": key, "shown": shown}


def kinship_keys(ranked: pl.DataFrame) -> pl.DataFrame:
    """Every key that makes two ranked questions alike, one row per (rank, key), as ``_KEY_SCHEMA``.

    Reads ``rank``, ``market_id``, ``event_id``, ``event_game_id``, ``game_id``,
    ``sports_market_type``, ``event_title``, the start stamps and ``stem``.
    """
    start = pl.coalesce("event_start_time_ts", "market_event_start_time_ts", "game_start_time_ts")
    sports_without_game = (
        ~_present("event_game_id") & ~_present("game_id") & pl.col("sports_market_type").is_not_null()
    )
    title_stem = question_stem(pl.col("event_title"))
    sports_key = pl.when(sports_without_game).then(
        pl.concat_str(pl.lit("sports:"), title_stem, pl.lit("@"), instant_text(start))
    )
    specs = [
        _key(_MARKET, pl.lit("market:") + pl.col("market_id"), pl.lit("same market id")),
        _key(_EVENT, pl.lit("event:") + pl.col("event_id"), pl.format("same event ({})", pl.col("event_id"))),
        *(
            _key(
                _FIXTURE,
                pl.when(_present(column)).then(pl.lit("game:") + pl.col(column)),
                pl.format("same fixture (game {})", pl.col(column)),
            )
            for column in ("event_game_id", "game_id")
        ),
        _key(
            _FIXTURE,
            sports_key,
            pl.format("same fixture ({} at {})", pl.col("event_title"), instant_text(start)),
        ),
        _key(_STEM, pl.lit("stem:") + pl.col("stem"), pl.lit("same question stem")),
    ]
    parts = [ranked.select(pl.col("rank").cast(pl.Int64), **spec) for spec in specs]
    return (
        pl.concat(parts)
        .cast(_KEY_SCHEMA)
        .filter(pl.col("key").is_not_null())
        .unique(["rank", "key"], keep="first", maintain_order=True)
    )


def _finish_in_order(keys: pl.DataFrame, kept: pl.DataFrame, undecided: pl.DataFrame) -> pl.DataFrame:
    """The walk itself over the questions the rounds left open: (rank, blocker, shown) of those excluded."""
    holder = dict(keys.join(kept, on="rank", how="semi").select("key", "rank").iter_rows())
    open_keys = keys.join(undecided, on="rank", how="semi").sort("rank", "kind")
    beaten: list[tuple[int, int, str]] = []
    # Rows arrive grouped by rank (sorted), each group in key-kind order.
    for rank, group in itertools.groupby(
        open_keys.select("rank", "key", "shown").iter_rows(), key=itemgetter(0)
    ):
        rows = [(key, shown) for _, key, shown in group]
        blockers = [holder[key] for key, _ in rows if key in holder]
        if blockers:
            blocker = min(blockers)
            beaten.append((rank, blocker, next(shown for key, shown in rows if holder.get(key) == blocker)))
        else:
            holder.update((key, rank) for key, _ in rows)
    return pl.DataFrame(beaten, schema=_BEATEN_SCHEMA, orient="row")


def _walk(keys: pl.DataFrame, ranks: pl.DataFrame) -> pl.DataFrame:
    """The greedy walk down the ranked list: (rank, blocker, shown) for every question it excludes."""
    undecided = ranks
    kept = ranks.clear()
    excluded: list[pl.DataFrame] = [pl.DataFrame(schema=_BEATEN_SCHEMA)]
    for _ in range(_MAX_ROUNDS):
        if undecided.is_empty():
            break
        best = keys.group_by("key").agg(best=pl.col("rank").min())
        leading = (
            keys.join(undecided, on="rank", how="semi")
            .join(best, on="key")
            .group_by("rank")
            .agg(leads=(pl.col("rank") == pl.col("best")).all())
            .filter("leads")
            .select("rank")
        )
        keyless = undecided.join(keys, on="rank", how="anti")
        newly_kept = pl.concat([leading, keyless])
        kept = pl.concat([kept, newly_kept])
        undecided = undecided.join(newly_kept, on="rank", how="anti")

        held = keys.join(kept, on="rank", how="semi").select("key", blocker=pl.col("rank"))
        beaten = (
            keys.join(undecided, on="rank", how="semi")
            .join(held, on="key")
            .filter(pl.col("blocker") < pl.col("rank"))
            .sort("rank", "blocker", "kind")
            .group_by("rank", maintain_order=True)
            .first()
            .select("rank", "blocker", "shown")
        )
        excluded.append(beaten)
        undecided = undecided.join(beaten, on="rank", how="anti")
        # An excluded question holds no key any more: only kept and open questions compete.
        keys = keys.join(beaten, on="rank", how="anti")
    if not undecided.is_empty():
        excluded.append(_finish_in_order(keys, kept, undecided))
    return pl.concat(excluded)


def one_of_a_kind_reasons(ranked: pl.DataFrame) -> pl.DataFrame:
    """(rank, reason) for every question of ``ranked`` that is alike to a better-ranked one on the list.

    ``ranked`` holds the questions left after ``one_per_family``, each with its ``rank`` and ``stem``.
    """
    ranks = ranked.select(pl.col("rank").cast(pl.Int64))
    beaten = _walk(kinship_keys(ranked), ranks)
    names = ranked.select(blocker=pl.col("rank").cast(pl.Int64), blocker_market=pl.col("market_id"))
    return beaten.join(names, on="blocker", how="left").select(
        "rank", reason=pl.format("{} as market {}", pl.col("shown"), pl.col("blocker_market"))
    )
