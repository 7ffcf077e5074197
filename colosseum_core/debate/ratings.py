"""Ratings (COMPELLE-ELO-1): Elo replayed from the recorded games, one rating per rating key.

Every rating starts at 1000. After each decided game the loser transfers Elo to the winner by the
canonical formula with K = 32; a draw costs both sides a further 1.6 on top of the usual
expected-score adjustment; a void touches neither the ratings nor the win/draw/loss records (it
is counted apart, so an outage cannot show as a losing streak). Games are applied in (epoch,
round, game id) order, whatever order the rows come in, with no rounding until display: the
shared library's sequential Elo (``colosseum_core.statistics.elo``) does the arithmetic.

A rating belongs to a rating key (``rating_key``: hotkey, block of registration, strategy hash), so
a new commitment or a re-registration starts at 1000, and ``standing`` drops the ratings whose
registration no longer stands (a deregistered hotkey's rating is not inherited by anyone).
"""

from __future__ import annotations

import dataclasses
from typing import Final

import polars as pl

from colosseum_core.debate.rules import COMPELLE_ELO
from colosseum_core.statistics.elo import VOID, sequential_elo
from colosseum_core.statistics.pairwise import A_WON, B_WON, DRAW

START: Final = 1000.0
K: Final = 32.0
DRAW_PENALTY: Final = 1.6
ORDER: Final = ("epoch", "round", "game_id")
RATING_SCHEMA: Final[dict[str, pl.DataType]] = {
    "rating_key": pl.String(),
    "hotkey": pl.String(),
    "strategy_hash": pl.String(),
    "rating": pl.Float64(),
    "games": pl.Int64(),  # rated games: wins + draws + losses
    "wins": pl.Int64(),
    "draws": pl.Int64(),
    "losses": pl.Int64(),
    "voids": pl.Int64(),
    "rules": pl.String(),
}
CHANGE_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "round": pl.Int64(),
    "game_id": pl.String(),
    "pro_rating_key": pl.String(),
    "con_rating_key": pl.String(),
    "result": pl.String(),  # pro, con, draw or void
    "pro_before": pl.Float64(),
    "pro_after": pl.Float64(),
    "con_before": pl.Float64(),
    "con_after": pl.Float64(),
    "rules": pl.String(),
}


class RatingsError(ValueError):
    """Games that cannot be rated: the message names the game, the field and the value."""


@dataclasses.dataclass(frozen=True)
class Ratings:
    ratings: pl.DataFrame  # RATING_SCHEMA, by rating then key
    changes: pl.DataFrame  # CHANGE_SCHEMA, in the order applied


def _result() -> pl.Expr:
    return (
        pl.when(pl.col("status") == "void")
        .then(pl.lit("void"))
        .when(pl.col("status") == "draw")
        .then(pl.lit("draw"))
        .when((pl.col("status") == "decided") & (pl.col("winner") == "Pro"))
        .then(pl.lit("pro"))
        .when((pl.col("status") == "decided") & (pl.col("winner") == "Con"))
        .then(pl.lit("con"))
        .otherwise(None)
    )


def elo_ratings(games: pl.DataFrame) -> Ratings:
    """Every rating key's Elo after ``games`` (the ``games`` table of any number of epochs)."""
    ordered = games.sort(*ORDER).with_columns(result=_result())
    unread = ordered.filter(pl.col("result").is_null())
    if unread.height:
        row = unread.row(0, named=True)
        raise RatingsError(
            f"game {row['game_id']} field status: {row['status']!r} with winner {row['winner']!r} is not "
            "decided (Pro or Con), draw or void"
        )
    missing = ordered.filter(pl.col("pro_rating_key").is_null() | pl.col("con_rating_key").is_null())
    if missing.height:
        raise RatingsError(f"game {missing['game_id'][0]} field pro_rating_key: a rated game names both keys")
    # A rating key is "hotkey@block:strategy hash" (``rating_key``): the sides' names are read from it.
    sides_played = [ordered[side].unique() for side in ("pro_rating_key", "con_rating_key")]
    keys = pl.concat(sides_played).unique().sort().to_list()
    sides = pl.DataFrame({"rating_key": pl.Series(keys, dtype=pl.String)}).with_columns(
        hotkey=pl.col("rating_key").str.split("@").list.first(),
        strategy_hash=pl.col("rating_key").str.split(":").list.last(),
    )
    code = {"pro": A_WON, "con": B_WON, "draw": DRAW, "void": VOID}
    # Encoded column-wise: an enum over the sorted keys stores each key as its index among them (a
    # Python lookup per game was most of a 200,000-game replay; a replace by dictionary, a fifth).
    index = pl.Enum(keys)
    encoded = ordered.select(
        a=pl.col("pro_rating_key").cast(index).to_physical(),
        b=pl.col("con_rating_key").cast(index).to_physical(),
        outcome=pl.col("result").replace_strict(code, return_dtype=pl.Int64),
    )
    run = sequential_elo(
        encoded["a"].to_numpy(),
        encoded["b"].to_numpy(),
        encoded["outcome"].to_numpy(),
        entrants=max(len(keys), 1),
        k=K,
        start=START,
        draw_penalty=DRAW_PENALTY,
    )
    ratings = (
        pl.DataFrame(
            {
                "rating_key": pl.Series(keys, dtype=pl.String),
                "rating": run.ratings[: len(keys)],
                "wins": run.wins[: len(keys)],
                "draws": run.draws[: len(keys)],
                "losses": run.losses[: len(keys)],
                "voids": run.voids[: len(keys)],
            }
        )
        .join(sides, on="rating_key", how="left")
        .with_columns(
            games=pl.col("wins") + pl.col("draws") + pl.col("losses"),
            rules=pl.lit(COMPELLE_ELO),
        )
        .select([pl.col(name).cast(dtype) for name, dtype in RATING_SCHEMA.items()])
        .sort(["rating", "rating_key"], descending=[True, False])
    )
    changes = ordered.select(
        "epoch",
        "round",
        "game_id",
        "pro_rating_key",
        "con_rating_key",
        "result",
        pro_before=pl.Series(run.before_a),
        pro_after=pl.Series(run.after_a),
        con_before=pl.Series(run.before_b),
        con_after=pl.Series(run.after_b),
        rules=pl.lit(COMPELLE_ELO),
    ).select([pl.col(name).cast(dtype) for name, dtype in CHANGE_SCHEMA.items()])
    return Ratings(ratings, changes)


def standing(ratings: pl.DataFrame, registered: pl.DataFrame) -> pl.DataFrame:
    """The ratings whose registration still stands: ``registered`` holds the rating keys of the
    hotkeys registered now (a deregistered hotkey's rating is dropped outright)."""
    return ratings.join(registered.select("rating_key"), on="rating_key", how="semi")
