"""Clients of the exchanges the arenas read: Polymarket's Gamma and CLOB (and Kalshi, when an arena
needs it). They speak the real protocols; only a base URL tells the real host from a local stand-in."""
