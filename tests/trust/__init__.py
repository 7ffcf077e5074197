"""Keys, signatures, bundles and commitments (colosseum_core/trust)."""
