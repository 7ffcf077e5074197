"""An epoch's tournament (COMPELLE-SWISS-1): each round paired from the record as it stands.

``next_round`` is the one place a round is paired, by the epoch that plays it and by ``verify``
replaying it: from the entered miners, the rotation's motions, every earlier epoch's games and this
epoch's games of the rounds before. What it reads of them:

* rating: each miner's Elo (COMPELLE-ELO-1) from every earlier epoch's games, by rating key (a
  new key starts at 1000); the rating an epoch pairs by is the one it began with;
* score: this epoch's results so far (a win 1, a draw ½, a void 0);
* side balance: Pro games less Con games over every epoch, by rating key;
* meetings and byes: this epoch's, by hotkey (a bye is an entered miner who played no game of a
  round); motions argued: every game of the pair, in (epoch, round, game id) order.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from colosseum_core.debate.ratings import ORDER, START, elo_ratings
from colosseum_core.debate.swiss import Round, Standing, swiss_round
from colosseum_core.record.tables import RecordTables

GAME_COLUMNS = (
    "epoch",
    "round",
    "game_id",
    "motion_id",
    "pro_hotkey",
    "con_hotkey",
    "pro_strategy_hash",
    "con_strategy_hash",
    "pro_rating_key",
    "con_rating_key",
    "status",
    "winner",
)


def games_before(tables: RecordTables, epoch: str) -> pl.DataFrame | None:
    """Every game the record holds of the epochs before ``epoch`` (None: there are none)."""
    scan = tables.scan("games")
    return scan.filter(pl.col("epoch") < epoch).collect() if scan is not None else None


def _games(frame: pl.DataFrame | None) -> pl.DataFrame:
    if frame is None or frame.height == 0:
        return pl.DataFrame(schema={c: (pl.Int64() if c == "round" else pl.String()) for c in GAME_COLUMNS})
    return frame.select(GAME_COLUMNS).sort(*ORDER)


def next_round(
    epoch: str,
    round_number: int,
    entered: pl.DataFrame,
    motion_ids: Sequence[str],
    earlier: pl.DataFrame | None,
    this_epoch: pl.DataFrame | None,
) -> Round:
    """Round ``round_number``'s pairing. ``entered`` holds ``hotkey`` and ``rating_key`` of every
    entered miner; ``this_epoch`` the epoch's games of the rounds before."""
    before, now = _games(earlier), _games(this_epoch)
    everything = pl.concat([before, now])
    rated = (
        {r["rating_key"]: r["rating"] for r in elo_ratings(before).ratings.iter_rows(named=True)}
        if before.height
        else {}
    )
    score: dict[str, float] = {}
    for game in now.iter_rows(named=True):
        if game["status"] == "draw":
            for side in ("pro", "con"):
                score[game[f"{side}_hotkey"]] = score.get(game[f"{side}_hotkey"], 0.0) + 0.5
        elif game["status"] == "decided":
            winner = game["pro_hotkey"] if game["winner"] == "Pro" else game["con_hotkey"]
            score[winner] = score.get(winner, 0.0) + 1.0
    balance: dict[str, int] = {}
    for key in everything["pro_rating_key"]:
        balance[key] = balance.get(key, 0) + 1
    for key in everything["con_rating_key"]:
        balance[key] = balance.get(key, 0) - 1
    players = [
        Standing(hotkey, score.get(hotkey, 0.0), rated.get(key, START), balance.get(key, 0))
        for hotkey, key in entered.select("hotkey", "rating_key").iter_rows()
    ]
    met = frozenset(frozenset(p) for p in now.select("pro_hotkey", "con_hotkey").iter_rows())
    hotkeys = set(entered["hotkey"])
    had_bye = frozenset(
        h
        for r in sorted(set(now["round"]))
        for h in hotkeys
        - set(now.filter(pl.col("round") == r)[["pro_hotkey", "con_hotkey"]].to_numpy().ravel())
    )
    argued: dict[frozenset[str], list[str]] = {}
    for pro, con, motion in everything.select("pro_hotkey", "con_hotkey", "motion_id").iter_rows():
        argued.setdefault(frozenset((pro, con)), []).append(motion)
    return swiss_round(
        epoch, round_number, players, met=met, had_bye=had_bye, motion_ids=motion_ids, argued=argued
    )
