"""Stage 5 of a card: when its questions settled on the exchange, and every answer scored.

``resolution`` reads a market's settlement from the exchange's receipts (COLOSSEUM-SETTLEMENT-1),
``watch`` decides which cards still wait and what is news, ``scoring`` scores every answer
(COLOSSEUM-SCORING).

Imported by: the later stages, the pages (``site``), verify (``audit``), the wiring and commands and
the tests; it imports the stages before it.
"""
