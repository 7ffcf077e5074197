"""Versions of every published rule set and formula. A change of rule changes its version."""

SLATE_LAWS = "SLATE-LAWS-3.7"
COLOSSEUM_SCORING = "COLOSSEUM-SCORING-2.1"
# How a market is copied from Polymarket's response into the record, and how the copy is re-checked.
VERBATIM_COPY = "VERBATIM-COPY-1"
# How a seat's reply is read: the strict grammar, then the published recovery steps in order.
COLOSSEUM_READING = "COLOSSEUM-READING-1"
# When a question counts as settled or void, read from the exchange's receipts (DESIGN's settlement rule).
COLOSSEUM_SETTLEMENT = "COLOSSEUM-SETTLEMENT-1"
