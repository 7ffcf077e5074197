"""Kalshi's public trade API (``api.elections.kalshi.com/trade-api/v2``), read for the debate arena's
topics: open events with their nested markets, every page a receipt, parsed in both of Kalshi's
shapes (the current fixed-point strings and the older integer cents).

Imported by: the debate's topics and the tests; it imports no arena.
"""
