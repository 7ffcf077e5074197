"""Stage 6 of the arena: the boards from every card's scores.

``tallies`` is the one pass over every scored answer, ``leaderboard`` re-aggregates it into the
leaderboard and the calibration board.

Imported by: the pages (``site``), verify (``audit``), the wiring and the tests; it imports the
stages before it.
"""
