"""Every versioned rule of the debate arena, recorded with what it produced."""

from __future__ import annotations

from typing import Final

# How a commitment names a strategy, and what a strategy may be (``strategy.py``).
COMPELLE_STRATEGY: Final = "COMPELLE-STRATEGY-1"
# The entry checks and their order (``entry/``): the registration window, the pinned revision, the
# intent panel's lopsided bar with the sitting king's exemption.
COMPELLE_ENTRY: Final = "COMPELLE-ENTRY-1"
# A game (``game/``): Pro opens, turns alternate up to the cap, a leading Δ concedes.
COMPELLE_GAME: Final = "COMPELLE-GAME-1"
# The judge panel (``judging/``): the valid vote, the hedge retry, deliberation, draw, void.
COMPELLE_JUDGING: Final = "COMPELLE-JUDGING-1"
# The transcript's fence (``judging/fence.py``): what of a turn is neutralised before the judges read
# it. FENCE-2 reads a turn label in any line head that names a side, after any line break, and a
# marker through every default-ignorable code point and combining mark. FENCE-1 is the fence games
# were judged through before it, when a game's rules named no fence ("COMPELLE-GAME-1
# COMPELLE-JUDGING-1"); it is kept exactly, so those games re-derive as they were played.
COMPELLE_FENCE: Final = "COMPELLE-FENCE-2"
COMPELLE_FENCE_1: Final = "COMPELLE-FENCE-1"
# Part 1's pairing of a round: a seeded shuffle (the Swiss bracket replaces it in part 2).
COMPELLE_PAIRING: Final = "COMPELLE-PAIRING-SHUFFLE-1"
# Ratings (``ratings.py``): Elo from 1000, K 32, a draw costs both sides 1.6 more, voids excluded,
# games replayed in (epoch, round, game id) order, keyed to each side's rating key.
COMPELLE_ELO: Final = "COMPELLE-ELO-1"
# Beside Elo (``strength.py``): Bradley–Terry over the same decided games, 95 % intervals from a
# bootstrap clustered by pair of miners, Newman's virtual-entrant prior so that a small field fits.
COMPELLE_BT: Final = "COMPELLE-BT-1"
# A round's pairing (``swiss.py``): by score within the epoch, then rating; no rematch within an
# epoch; whoever argued Pro less argues Pro; a bye for an odd count; a motion new to the pair.
COMPELLE_SWISS: Final = "COMPELLE-SWISS-1"
# The ratings table's rank (``crown/closing.py``): from COLOSSEUM-PLACEMENT-2 on (``statistics.placement``)
# the placement of each rating key's Bradley–Terry interval, 1 + the keys whose interval lies wholly
# above, the intervals rounded to 0.1 Elo first; a key with no rated game has none. COMPELLE-RANK-1
# is the rank of the epochs sealed before it, whose manifest names no placement rule: the row number
# by Elo, highest first, then by rating key. It is kept exactly, so those epochs re-derive as sealed.
COMPELLE_RANK_1: Final = "COMPELLE-RANK-1"
# King of the hill (``crown/``): the first epoch with entered miners crowns its top-rated one; a
# challenger 200 Elo above the king at the end of 20 consecutive epochs earns a title fight; the
# king locked out or deregistered vacates the crown to the top-rated entered miner.
COMPELLE_CROWN: Final = "COMPELLE-CROWN-1"
# The title fight (``crown/fight.py``; its sides and game ids in ``pairing.py``): the 100 most
# recent unique motions, both sides each, judged by the epoch's panel, decided by the exact binomial
# bar at α = 0.01 over at least 80 decided games.
COMPELLE_TITLE_FIGHT: Final = "COMPELLE-TITLE-FIGHT-1"
# The weights (``crown/weights.py``): the king 1.0; for five epochs after a title changes hands the
# deposed king 0.05 and the new king 0.95.
COMPELLE_WEIGHTS: Final = "COMPELLE-WEIGHTS-1"
# A model maker's trial (``trial/``): the first motions of the latest sealed rotation, both sides of
# each under every house strategy, the model against the house debater, judged by the house panel; the
# model's own vote beside the panel on every game the panel judged, never counted; its win rate, its
# agreement with the panel and its Pro share with Wilson 95 % intervals.
COMPELLE_TRIAL: Final = "COMPELLE-TRIAL-1"
