"""King of the hill: streaks, title fights, the crown from epoch to epoch, and the weights.

One module per published rule: ``streak`` (200 Elo above the king for 20 consecutive epochs),
``fight`` (the title fight's motions, sides and decision), ``reign`` (the crown's step from one
sealed epoch to the next) and ``weights`` (winner-take-all, with the deposed king's tail); ``closing``
closes an epoch with them: its ratings, the crown, the title fight's decision and the weights,
sealed. Verify, the site and the wiring import it; ``game`` imports only ``fight`` of it.
"""
