"""The exchanges' clients and parsing (Polymarket, Kalshi)."""
