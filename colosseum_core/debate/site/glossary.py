"""The debate board's words for its numbers: the keys in plain language, the column tooltips, and how a
rating key and a house player are written.

Every column header carries a tooltip (``title``): its text comes from here, by the column's field
(``FIELD_TIPS``, or ``TABLE_TIPS`` where one field name means different things in different tables).
The standings page opens with ``STANDINGS_KEY``: one entry per column of its tables, named as the
column is headed, so a reader can go from a header to what it means.
"""

from __future__ import annotations

from typing import Any, Final

from colosseum_core.debate.house import HOUSE_FAMILIES
from colosseum_core.providers.house_models import parse_model
from colosseum_core.site.formats import NULL

# How many hex digits of a rating key's strategy hash a table shows; the whole key is the cell's
# tooltip, the miner's own page and the downloads'.
KEY_DIGITS: Final = 12
CALIBRATION: Final = "CALIBRATION"


def short_key(value: Any) -> str:
    """A rating key (``hotkey@block:SHA-256``) as a table shows it: the first ``KEY_DIGITS`` hex digits
    of its strategy hash and an ellipsis. The hotkey stands in its own column beside it."""
    if value is None:
        return NULL
    key = str(value)
    digest = key.rpartition(":")[2] or key
    return digest if len(digest) <= KEY_DIGITS else f"{digest[:KEY_DIGITS]}…"


def stands_in(kind: Any, model: Any) -> bool:
    """Whether the model that played is a house player standing in for the real one: a CALIBRATION
    epoch's call answered by a model the sparring server plays."""
    return kind == CALIBRATION and isinstance(model, str) and parse_model(model, HOUSE_FAMILIES) is not None


# What a house player stands in for, by the slot of the models document it answered for.
SEATS: Final[dict[str, str]] = {"debater": "the debate model"}


def seat(slot: str) -> str:
    return SEATS.get(slot, slot)


RATING_KEY_TIP: Final = (
    "Whose rating it is: the hotkey, the block it registered at and the SHA-256 of its strategy. "
    f"Shown as the hash's first {KEY_DIGITS} hex digits; hover for the whole key, or open the miner."
)
ELO_TIP: Final = (
    "Elo (COMPELLE-ELO-1): from 1000, at most 32 points change hands per game; a draw costs both "
    "sides 1.6 more; voids move nothing"
)
BT_TIP: Final = (
    "Bradley–Terry strength on the Elo scale (COMPELLE-BT-1): one fit over every rated game, so the "
    "order they were played in does not matter"
)

# One entry per column of the standings' tables, named as the column is headed (a term that names
# several columns lists them, separated by commas): what it means, in plain words.
STANDINGS_KEY: Final[tuple[tuple[str, str], ...]] = (
    (
        "Place, #",
        "The miner's place after this epoch: 1 + the number of miners whose Bradley–Terry interval lies "
        "wholly above its own, so two miners share a place only when their intervals overlap (epochs "
        "sealed before COLOSSEUM-PLACEMENT-2 show # instead, the order by Elo).",
    ),
    (
        "Miner",
        "The hotkey the miner registered on the chain. It leads to the miner's own page: every rating "
        "it has held, each rating key in full.",
    ),
    (
        "Elo",
        "The rating after every rated game so far. Everyone starts at 1000; a win takes points from "
        "the loser (up to 32 a game, more for beating someone rated higher); a draw costs both sides "
        "a further 1.6.",
    ),
    (
        "BT",
        "Bradley–Terry: the strength that best explains every rated game at once, on the same scale as "
        "Elo. Unlike Elo it does not depend on the order the games were played in.",
    ),
    (
        "BT low, BT high",
        "The 95 % interval of the Bradley–Terry strength: the games are drawn again at random, pair of "
        "miners by pair of miners, 1,999 times, and the middle 95 % of the strengths found is kept. "
        "Where two miners' intervals overlap, the games do not yet tell them apart.",
    ),
    ("n", "Rated games: the wins, draws and losses the ratings stand on. Few games, wide intervals."),
    ("W, D, L", "Wins, draws and losses in rated games."),
    (
        "Voids",
        "Games that were played but not rated: a provider's rate limit, or fewer than two valid "
        "votes from the judges. They move no rating.",
    ),
    (
        "Entered",
        "yes: the miner entered this epoch (registered in time, its strategy pinned and passed by the "
        "intent panel); no: its rating stands from earlier epochs.",
    ),
    ("Rating key", RATING_KEY_TIP),
    (
        "King",
        "The miner holding the crown. A challenger 200 Elo or more above the king for 20 epochs in a "
        "row earns a title fight, decided by an exact binomial test (see the crown's history).",
    ),
    ("uid", "The miner's slot number on the chain, which the weights are set by."),
    ("Role", "king, or deposed: a king who lost a title fight keeps a small share for five epochs."),
    (
        "Weight",
        "The share of the validator's weight set on the chain for the epoch: the king 1.00, or "
        "0.95 and 0.05 to the deposed king in the five epochs after a change.",
    ),
    (
        "CALIBRATION",
        "An epoch in which a house player (a deterministic stand-in on the arena's sparring server) "
        "played or judged instead of a real model. Where a house player spoke, its name comes first, "
        "with the seat it stands in for beside it.",
    ),
)

# Tooltips by field, for every table whose field names mean one thing wherever they are.
FIELD_TIPS: Final[dict[str, str]] = {
    "rank": "The miner's place after the epoch: 1 + the miners whose interval lies wholly above",
    "hotkey": "The miner's hotkey on the chain; opens the miner's own page",
    "rating": ELO_TIP,
    "bt_rating": BT_TIP,
    "bt_low": "2.5th percentile of 1,999 bootstrap replicates clustered by pair of miners",
    "bt_high": "97.5th percentile of 1,999 bootstrap replicates clustered by pair of miners",
    "games": "Rated games (wins + draws + losses): the n behind the rating",
    "bt_games": "Rated games behind the Bradley–Terry strength",
    "wins": "Rated games won",
    "draws": "Rated games drawn (the panel split even after deliberation)",
    "losses": "Rated games lost",
    "voids": "Games voided (a rate limit, or fewer than two valid votes): never rated",
    "entered": "yes: entered this epoch; no: its rating stands from earlier epochs",
    "rating_key": RATING_KEY_TIP,
    "uid": "The miner's slot number on the chain",
    "role": "king, or deposed (keeps a share for five epochs after losing the crown)",
    "weight": "The share of the validator's weight set on the chain",
    "epoch": "The epoch: one round of entries, games and ratings",
    "streak": "Consecutive epochs 200 Elo or more above the king; 20 earns a title fight",
    "lead": "Elo above the king after the epoch",
    "bar": "Least number of wins that clears the exact binomial bar at α = 0.01 for the decided n",
    "p_value": "P(X ≥ k) for X ~ Bin(n, ½): the challenger's wins under a fair coin",
    "challenger": "The challenger's rating key",
    "challenger_wins": "k: the challenger's wins among the decided games",
    "king_wins": "The king's wins among the decided games",
    "decided": "n: the decided games (draws and voids dropped); under 80 the king holds",
    "outcome": "What the title fight decided",
    "king_hotkey": "The king's hotkey",
    "king_rating": "The king's Elo after the epoch",
    "crowned_epoch": "The epoch the king was crowned in",
    "event": "What happened to the crown this epoch",
    "deposed": "The rating key of the king deposed by a title fight",
    "tail_left": "Epochs the deposed king still keeps 0.05 of the weight",
    "strategy_hash": "SHA-256 of the miner's strategy text as resolved",
    "rule": "The entry check that stopped the miner",
    "value": "What the check found",
    "game_id": "The game: epoch, round and number",
    "round": "The Swiss round (COMPELLE-SWISS-1)",
    "pro_hotkey": "The miner arguing for the motion",
    "con_hotkey": "The miner arguing against the motion",
    "motion": "The motion argued, verbatim",
    "result": "Pro, Con, draw or void, as the panel decided",
    "pro_before": "Pro's Elo before the game",
    "pro_after": "Pro's Elo after the game",
    "con_before": "Con's Elo before the game",
    "con_after": "Con's Elo after the game",
    "slot": "The judge's seat on the panel",
    "stage": "first reading, or deliberation after a split",
    "attempt": "The try: a hedge or malformed vote is asked again at temperature 1.0",
    "temperature": "The sampling temperature the judge was asked at",
    "model": "The model that answered; a house player in a CALIBRATION epoch",
    "reply": "The judge's reply, raw",
    "problem": "Why the reply is not a valid vote",
    "fell_back": "yes: the seat's first model failed and the next in its chain answered",
}
# Where a field means something else in one table.
TABLE_TIPS: Final[dict[tuple[str, str], str]] = {
    ("title_fights", "epoch"): "The epoch of the title fight",
    ("title_fights", "king"): "The king's rating key",
    ("title_fights", "games"): "Games played: both sides of each of the 100 most recent unique motions",
    ("title_fights", "draws"): "Games drawn (dropped from n)",
    ("title_fights", "voids"): "Games voided (dropped from n)",
    ("crown", "reason"): "Why, as recorded",
    ("streaks", "hotkey"): "The challenger's hotkey; opens the miner's own page",
    ("streaks", "rating"): "The challenger's Elo after the epoch",
    ("entries", "status"): "entered, or why not",
    ("entries", "verdict"): "The intent panel's verdict on the strategy",
    ("games", "reason"): "The panel's decision, as recorded",
    ("fight_games", "reason"): "The panel's decision, as recorded",
    ("judge_calls", "verdict"): "The vote read from the reply: PRO or CON",
    ("fight_judge_calls", "verdict"): "The vote read from the reply: PRO or CON",
}
# The judges' page's own table, by its headers.
JUDGES_TIPS: Final[dict[str, str]] = {
    "Games": "Swiss games (rated) or title-fight games (published, not rated)",
    "First-reading agreement": (
        "Games whose two judges gave the same first vote, of those with two valid first votes"
    ),
    "Deliberation settles a split": "Split first readings that deliberation turned into a 2-0 verdict",
    "Pro wins": "Decided games won by Pro: how far the panel leans to one side",
}


def tip(table: str, field: str | None) -> str:
    """The tooltip of a column of ``table`` holding ``field`` ("" if there is none)."""
    if field is None:
        return ""
    return TABLE_TIPS.get((table, field)) or FIELD_TIPS.get(field, "")
