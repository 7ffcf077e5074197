"""What makes the record checkable by anyone: Ed25519 keys and the signatures over rows of any arena
(``signing``), the signed manifest of a published bundle (``bundle``), and salted commitments that
fix a value before it is revealed (``commitments``, COLOSSEUM-COMMIT-1).

Imported by: the arenas that sign (the forecast's answers, the events), the site's publishing,
verify, the wiring (the board, the commands), the benchmarks and the tests. It imports the record
and no arena (``.importlinter``).
"""
