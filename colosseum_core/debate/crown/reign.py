"""The crown from epoch to epoch (COMPELLE-CROWN-1): one small step per sealed epoch.

``standing_before_fight`` takes the crown the previous epoch left and this epoch's ratings and
entries, and says who is king going into the title fight and who (if anyone) fights for it:

1. No king yet: the first epoch with entered miners crowns its top-rated entered miner.
2. A king whose registration no longer stands (deregistered, or a new commitment: a new rating
   key) or who was locked out by the intent panel vacates the crown, which goes the same way to the
   top-rated entered miner (no tail: the weights follow the crown at once).
3. Otherwise every entered challenger's streak is extended or reset (``streak``), and the longest
   streak at ``HOLD`` fights, if the king is entered to defend (else it waits, streak intact).

``crown_after_fight`` then applies the fight's decision: a challenger that takes the crown is king
from this epoch, the old king is deposed with the weights' tail, and every streak restarts against
the new king; a king that holds zeroes the challenger's streak. The top-rated tie-break is the
rating key, so the step is a function of the record alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Final

from colosseum_core.debate.crown.fight import FightDecision
from colosseum_core.debate.crown.streak import challenger, streaks_after
from colosseum_core.debate.crown.weights import TAIL_EPOCHS
from colosseum_core.debate.ratings import START

CROWNED: Final = "crowned"
VACATED: Final = "vacated"
HELD: Final = "held"
CHANGED: Final = "changed hands"
NO_KING: Final = "no king"


@dataclasses.dataclass(frozen=True)
class Crown:
    """The crown after an epoch."""

    epoch: str
    king: str | None  # rating key
    crowned_epoch: str | None
    deposed: str | None
    changed_epoch: str | None  # the last title fight that changed hands
    tail_left: int  # epochs of the deposed king's tail still to pay, this one included
    streaks: Mapping[str, int]
    event: str
    reason: str


@dataclasses.dataclass(frozen=True)
class BeforeFight:
    crown: Crown
    challenger: str | None  # rating key


def top_rated(ratings: Mapping[str, float], entered: Collection[str]) -> str | None:
    return min(entered, key=lambda key: (-ratings.get(key, START), key), default=None)


def _crowned(epoch: str, king: str | None, event: str, reason: str) -> Crown:
    if king is None:
        return Crown(epoch, None, None, None, None, 0, {}, NO_KING, "no entered miner to crown")
    return Crown(epoch, king, epoch, None, None, 0, {}, event, reason)


def standing_before_fight(
    previous: Crown | None,
    epoch: str,
    *,
    ratings: Mapping[str, float],
    entered: Collection[str],
    standing: Collection[str],
    locked_out: Collection[str],
) -> BeforeFight:
    """``entered``: the rating keys entered this epoch; ``standing``: every registration that still
    stands (entered, pending or rejected); ``locked_out``: keys the intent panel rejected."""
    if previous is None or previous.king is None:
        king = top_rated(ratings, entered)
        return BeforeFight(_crowned(epoch, king, CROWNED, "the first epoch with entered miners"), None)
    king = previous.king
    if king not in standing or king in locked_out:
        why = "was locked out by the intent panel" if king in locked_out else "is no longer registered"
        new = top_rated(ratings, set(entered) - set(locked_out))
        return BeforeFight(_crowned(epoch, new, VACATED, f"the king {king} {why}"), None)
    streaks = streaks_after(previous.streaks, ratings, king, entered)
    fighter = challenger(streaks, ratings) if king in entered else None
    crown = dataclasses.replace(
        previous,
        epoch=epoch,
        tail_left=max(previous.tail_left - 1, 0),
        streaks=streaks,
        event=HELD,
        reason="no challenger due a title fight",
    )
    return BeforeFight(crown, fighter)


def crown_after_fight(before: BeforeFight, decision: FightDecision | None) -> Crown:
    crown, fighter = before.crown, before.challenger
    if fighter is None or decision is None:
        return crown
    tally = decision.tally
    told = f"title fight {tally.challenger_wins}–{tally.king_wins} (n {decision.test.decided})"
    if decision.challenger_takes_title:
        return Crown(
            epoch=crown.epoch,
            king=fighter,
            crowned_epoch=crown.epoch,
            deposed=crown.king,
            changed_epoch=crown.epoch,
            tail_left=TAIL_EPOCHS,
            streaks={},
            event=CHANGED,
            reason=f"{told}: {decision.outcome}",
        )
    streaks = {k: v for k, v in crown.streaks.items() if k != fighter}
    return dataclasses.replace(crown, streaks=streaks, reason=f"{told}: {decision.outcome}")
