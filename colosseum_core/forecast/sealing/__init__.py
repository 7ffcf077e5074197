"""Stage 3 of a card: the card decided from its copy, rendered as its packet, and sealed or missed.

``card`` turns the copy into every verdict and the rotated card, ``packet`` renders the exact bytes
every seat receives, ``seal_step`` decides once (the seal order), checks and seals. Imports the
sweep and the selection; answering, settlement, the board, site, audit, the wiring and the tests
may import it.
"""
