"""Stage 5 of a card: when its questions settled on the exchange, and every answer scored.

``resolution`` reads a market's settlement from the exchange's receipts (COLOSSEUM-SETTLEMENT-1),
``watch`` decides which cards still wait and what is news, ``scoring`` scores every answer
(COLOSSEUM-SCORING). Imports the stages before it; the board, site, audit, the wiring and the
tests may import it.
"""
