"""A game (COMPELLE-GAME-1): two miners, one motion, Pro and Con, the debater prompt on every turn.

``concession`` reads the Δ that ends a game; ``turns`` what a turn passes on (cut to its bound) and
how the debate so far becomes messages; ``play`` plays a game through the shared providers and the
judge panel (``colosseum_core.debate.judging``); ``pairing`` pairs a round by a seeded shuffle;
``epoch_games`` pairs, plays and judges an epoch's games into its three tables, whose schemas are
``schemas``'. The close, verify, the title fight and the wiring import it; it imports the title
fight's pairings (``crown.fight``) and nothing else of ``crown``.
"""
