"""What makes the record checkable by anyone: Ed25519 keys and the signatures over rows of any arena
(``signing``), the signed manifest of a published bundle (``bundle``), and salted commitments that
fix a value before it is revealed (``commitments``, COLOSSEUM-COMMIT-1)."""
