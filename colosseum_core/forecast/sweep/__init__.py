"""Stage 1 of a card: its sweep of open markets and their verbatim copy, re-checked.

``card_sweep`` runs a card's sweep and lays it out as ``raw_sweep`` and ``sweeps``; ``copy`` copies
every swept market from its receipt exactly as published (VERBATIM-COPY-1); ``copy_check`` re-checks
the copy with code of its own; ``copy_step`` runs the two side by side.

Imported by: every later stage, the wiring and commands, the benchmarks and the tests; it imports
only the arena's top modules.
"""
