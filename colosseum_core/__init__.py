"""Frontier Colosseum's domain logic: the platform (the record, trust, providers, statistics, the site
engine, verify, the exchanges' and the chain's clients, the sandbox, the settings) and the three
arenas beside it (``forecast``, ``debate``, ``events``), which the platform reaches only through
their registry (``arenas``). Pure Python over plain data.

Imported by: the wiring and the commands (``colosseum_dagster``), the local stand-ins
(``colosseum_standins``: the ledger's protocol, the house players), the benchmarks and the tests. It
never imports dagster, the wiring nor the stand-ins, its platform packages never import an arena,
and the arenas never import each other (``.importlinter``).
"""
