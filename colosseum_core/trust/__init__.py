"""What makes the record checkable by anyone: Ed25519 keys and the signatures over rows of any arena
(``signing``), and the signed manifest of a published bundle (``bundle``)."""
