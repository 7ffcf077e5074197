"""Versions of every published rule set and formula. A change of rule changes its version."""

SLATE_LAWS = "SLATE-LAWS-3.7"
COLOSSEUM_SCORING = "COLOSSEUM-SCORING-2.1"
# How a market is copied from Polymarket's response into the record, and how the copy is re-checked.
VERBATIM_COPY = "VERBATIM-COPY-1"
# How a seat's reply is read: the strict grammar, then the published recovery steps in order.
COLOSSEUM_READING = "COLOSSEUM-READING-2"
# The reading before strict meant ASCII and quotations of the packet were told apart; old records keep it.
COLOSSEUM_READING_1 = "COLOSSEUM-READING-1"
# When a question counts as settled or void, read from the exchange's receipts (docs/decisions.md).
COLOSSEUM_SETTLEMENT = "COLOSSEUM-SETTLEMENT-1"
# When a card may seal and when it is missed (forecast/sealing/seal_step.py). Version 1 made a card wait for
# every earlier swept card of its kind, which could lock the arena for good; version 2 never waits.
SEAL_ORDER = "COLOSSEUM-SEAL-ORDER-2"
# How "one of a kind" tells one real-world event listed under different event ids (SLATE-LAWS-3.7
# §4 as read in forecast/selection/one_of_a_kind.py). Version 1 knew market, event and game ids and
# question stems; version 2 adds the event title on the event's New York date and a fixture's two
# teams on the game's New York date, and names itself in the value of every exclusion they make.
ONE_OF_A_KIND_READING = "COLOSSEUM-ONE-OF-A-KIND-2"
# The reading before the title and team keys; cards judged under it are re-derived under it.
ONE_OF_A_KIND_READING_1 = "COLOSSEUM-ONE-OF-A-KIND-1"
