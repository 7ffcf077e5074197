"""King of the hill as pure rules: streaks, the title fight's motions and decision, the weights, and
the crown's step over many epochs (COMPELLE-CROWN-1, COMPELLE-TITLE-FIGHT-1, COMPELLE-WEIGHTS-1)."""

from __future__ import annotations

import polars as pl
import pytest

from colosseum_core.debate.crown.fight import (
    HOLDS,
    INCONCLUSIVE,
    MIN_DECIDED,
    TAKES,
    FightTally,
    decide,
    fight_motions,
    tally,
)
from colosseum_core.debate.crown.reign import (
    CHANGED,
    CROWNED,
    HELD,
    NO_KING,
    VACATED,
    Crown,
    crown_after_fight,
    standing_before_fight,
)
from colosseum_core.debate.crown.streak import HOLD, LEAD, challenger, streaks_after
from colosseum_core.debate.crown.weights import TAIL_EPOCHS, TAIL_SHARE, weights
from colosseum_core.debate.pairing import fight_pairings


def test_a_streak_grows_only_while_the_lead_holds_and_the_miner_plays() -> None:
    ratings = {"king": 1000.0, "a": 1200.0, "b": 1199.99, "c": 1300.0}
    after = streaks_after({"a": 3, "b": 7, "c": 2}, ratings, "king", entered={"king", "a", "b"})
    # a leads by exactly 200 (counts); b is a hair under (resets); c sat the epoch out (resets).
    assert after == {"a": 4}
    assert streaks_after({"a": 3}, ratings, None, {"a"}) == {}
    # A challenger never rated is at the start, 1000.
    assert streaks_after({}, {"king": 790.0}, "king", {"king", "new"}) == {"new": 1}
    assert LEAD == 200.0 and HOLD == 20


def test_the_challenger_is_the_longest_streak_at_the_hold() -> None:
    ratings = {"a": 1500.0, "b": 1600.0, "c": 1700.0}
    assert challenger({"a": 19, "b": 5}, ratings) is None
    assert challenger({"a": 21, "b": 20, "c": 20}, ratings) == "a"
    assert challenger({"b": 20, "c": 20}, ratings) == "c"  # same streak: the higher rating


def _motions() -> pl.DataFrame:
    rows = []
    for r, rotation in enumerate(["2026-12-01T00Z", "2026-12-01T06Z", "2026-12-01T12Z"]):
        for position in range(1, 4):
            text = f"motion {position}" if position < 3 else f"motion {rotation}"
            rows.append(
                {"rotation": rotation, "position": position, "motion_id": f"m{r}{position}", "motion": text}
            )
    return pl.DataFrame(rows)


def test_the_fight_argues_the_most_recent_unique_motions_both_sides() -> None:
    picked = fight_motions(_motions(), "2026-12-01T06Z")
    # The later rotation (12Z) is after the epoch's; repeated texts count once, at their latest drawing.
    assert picked["motion_id"].to_list() == ["m11", "m12", "m13", "m03"]
    assert fight_motions(_motions(), "2026-12-01T12Z", limit=2)["motion_id"].to_list() == ["m21", "m22"]
    pairings = fight_pairings("0000100", "ch", "kg", ["x", "y"])
    assert [(p.round, p.pro, p.con, p.motion_id) for p in pairings] == [
        (1, "ch", "kg", "x"),
        (2, "kg", "ch", "x"),
        (3, "ch", "kg", "y"),
        (4, "kg", "ch", "y"),
    ]
    assert len({p.game_id for p in pairings}) == 4


def test_the_tally_counts_the_challengers_wins_by_rating_key() -> None:
    games = pl.DataFrame(
        {
            "status": ["decided", "decided", "decided", "draw", "void"],
            "winner": ["Pro", "Con", "Con", None, None],
            "pro_rating_key": ["ch", "kg", "ch", "ch", "kg"],
            "con_rating_key": ["kg", "ch", "kg", "kg", "ch"],
        }
    )
    assert tally(games, "ch") == FightTally(games=5, challenger_wins=2, king_wins=1, draws=1, voids=1)


@pytest.mark.parametrize(
    ("wins", "losses", "outcome", "bar"),
    [
        (15, 4, INCONCLUSIVE, 15),  # clears the bar (p 0.0096) but n 19 < 80
        (51, 29, TAKES, 51),  # n 80: the bar is 51
        (50, 30, HOLDS, 51),
        (63, 37, TAKES, 63),  # n 100
        (62, 38, HOLDS, 63),
        (4, 1, INCONCLUSIVE, None),  # a draw-heavy fight: n 5 has no bar at all
    ],
)
def test_the_decision_is_the_exact_bar_over_at_least_80_decided(
    wins: int, losses: int, outcome: str, bar: int | None
) -> None:
    decision = decide(FightTally(wins + losses + 7, wins, losses, 7, 0))
    assert decision.outcome == outcome
    assert decision.test.bar == bar
    assert decision.test.decided == wins + losses
    assert MIN_DECIDED == 80


def test_weights_are_winner_take_all_with_the_deposed_kings_tail() -> None:
    assert weights(None, None, 0, set()) == []
    assert weights("k", None, 0, {"k"}) == [("k", "king", 1.0)]
    assert weights("k", "d", 3, {"k", "d"}) == [("k", "king", 1 - TAIL_SHARE), ("d", "deposed", TAIL_SHARE)]
    assert weights("k", "d", 0, {"k", "d"}) == [("k", "king", 1.0)]
    assert weights("k", "d", 3, {"k"}) == [("k", "king", 1.0)]  # the deposed one deregistered


class Arena:
    """Epochs of the crown's step over given ratings, as the sealing step takes them."""

    def __init__(self) -> None:
        self.crown: Crown | None = None
        self.number = 0
        self.fights: list[tuple[str, str]] = []

    def epoch(
        self,
        ratings: dict[str, float],
        *,
        entered: set[str] | None = None,
        locked: set[str] = frozenset(),  # type: ignore[assignment]
        fight: tuple[int, int] | None = None,
    ) -> Crown:
        self.number += 1
        key = f"{self.number:07d}"
        playing = (set(ratings) if entered is None else entered) - locked
        before = standing_before_fight(
            self.crown, key, ratings=ratings, entered=playing, standing=set(ratings), locked_out=locked
        )
        decision = None
        if before.challenger is not None:
            assert fight is not None, f"epoch {key}: {before.challenger} is due a fight"
            decision = decide(FightTally(sum(fight), fight[0], fight[1], 0, 0))
            self.fights.append((key, decision.outcome))
        self.crown = crown_after_fight(before, decision)
        return self.crown


def test_the_crown_over_many_epochs() -> None:
    arena = Arena()
    assert arena.epoch({}).event == NO_KING
    first = arena.epoch({"king": 1010.0, "strong": 1005.0, "twin": 1000.0})
    assert (first.event, first.king, first.crowned_epoch) == (CROWNED, "king", "0000002")

    # A copied-king twin spikes 200 clear for a few epochs, falls back under once: its streak resets.
    for _ in range(5):
        arena.epoch({"king": 1000.0, "strong": 1000.0, "twin": 1250.0})
    assert arena.crown is not None and arena.crown.streaks == {"twin": 5}
    arena.epoch({"king": 1000.0, "strong": 1000.0, "twin": 1150.0})
    assert arena.crown.streaks == {}

    # The strong strategy holds a 200 lead for 20 epochs: at the 20th it fights, and loses.
    for _ in range(HOLD - 1):
        arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0})
    assert arena.crown.streaks == {"strong": HOLD - 1}
    lost = arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0}, fight=(45, 45))
    assert (lost.king, lost.event, lost.streaks) == ("king", HELD, {})
    assert "king holds" in lost.reason and "45–45 (n 90)" in lost.reason

    # It restarts from zero; 20 more epochs; an inconclusive (draw-heavy) fight zeroes it again.
    for _ in range(HOLD - 1):
        arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0})
    arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0}, fight=(40, 5))
    assert arena.crown.streaks == {} and arena.crown.king == "king"

    # The king sits an epoch out (pending): the due challenger waits, its streak intact.
    for _ in range(HOLD - 1):
        arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0})
    waited = arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0}, entered={"strong", "twin"})
    assert waited.streaks == {"strong": HOLD} and waited.king == "king"

    # Then it wins: the crown changes hands, the deposed king keeps its tail for five epochs.
    won = arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0}, fight=(70, 30))
    assert (won.king, won.deposed, won.event, won.changed_epoch) == ("strong", "king", CHANGED, won.epoch)
    paid = [weights(won.king, won.deposed, won.tail_left, {"strong", "king"})]
    for _ in range(TAIL_EPOCHS):
        crown = arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0})
        paid.append(weights(crown.king, crown.deposed, crown.tail_left, {"strong", "king"}))
    assert [len(w) for w in paid] == [2] * TAIL_EPOCHS + [1]
    assert [outcome for _, outcome in arena.fights] == [HOLDS, INCONCLUSIVE, TAKES]

    # The king locked out by the intent panel vacates the crown to the top-rated entered miner.
    vacated = arena.epoch({"king": 1000.0, "strong": 1300.0, "twin": 1000.0}, locked={"strong"})
    assert (vacated.event, vacated.king, vacated.deposed) == (VACATED, "king", None)
    assert "locked out" in vacated.reason
    # A king that deregisters vacates it too.
    gone = arena.epoch({"strong": 1300.0, "twin": 1000.0})
    assert (gone.event, gone.king) == (VACATED, "strong")
