"""Stage 3 of a card: the card decided from its copy, rendered as its packet, and sealed or missed.

``card`` turns the copy into every verdict and the rotated card, ``packet`` renders the exact bytes
every seat receives, ``seal_step`` decides once (the seal order), checks and seals.

Imported by: the later stages, the pages (``site``), verify (``audit``), the wiring and commands and
the tests; it imports the sweep and the selection.
"""
