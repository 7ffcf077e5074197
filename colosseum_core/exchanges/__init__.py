"""Clients of the exchanges the arenas read: Polymarket's Gamma and CLOB (and Kalshi, when an arena
needs it). They speak the real protocols; only a base URL tells the real host from a local stand-in.

Imported by: the arenas that read an exchange (the forecast's sweep, selection and settlement; the
debate's topics), the wiring's exchange resource and commands, the benchmarks and the tests. It
imports no arena (``.importlinter``).
"""
