"""A game (COMPELLE-GAME-1): two miners, one motion, Pro and Con, the debater prompt on every turn.

``concession`` reads the Δ that ends a game; ``turns`` what a turn passes on (cut to its bound) and
how the debate so far becomes messages; ``play`` plays a game through the shared providers and the
judge panel (``colosseum_core.debate.judging``); ``outcome`` re-derives a game's result from its
recorded turns and judge calls; ``epoch_games`` pairs (``pairing``, ``tournament``), plays and
judges an epoch's games, and its title fight's, into their three tables, whose schemas are
``schemas``'.

Imported by: the close (``crown``), verify (``audit``), the debate's wiring and commands and the
tests. It imports the layers below it (the judges, the entries, the pairings and the tournament, the
models document) and nothing of ``crown``.
"""
