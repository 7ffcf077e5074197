"""King of the hill: streaks, title fights, the crown from epoch to epoch, and the weights.

One module per published rule: ``streak`` (200 Elo above the king for 20 consecutive epochs),
``fight`` (the title fight's motions and decision; its sides are ``pairing.fight_pairings``),
``reign`` (the crown's step from one sealed epoch to the next) and ``weights`` (winner-take-all,
with the deposed king's tail); ``closing`` closes an epoch with them: its ratings, the crown, the
title fight's decision and the weights, sealed.

Imported by: the debate's part of verify (``audit``), its pages (``site``), the debate's wiring and
the tests. It reads the games' tables (``game``) and imports the layers below them; nothing below it
imports it (the games play a title fight from ``pairing``, not from here).
"""
