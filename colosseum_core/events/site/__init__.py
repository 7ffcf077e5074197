"""The multi-event arena's part of the one public site: every sealed event, its standings and games.

Imported by: the registry (``colosseum_core.arenas``: the one public site), the arena's part of
verify (``events.audit``), each kind's pages and audit, the benchmarks and the tests. It imports no
kind of event: a kind's pages reach it through ``events.kind``.
"""
