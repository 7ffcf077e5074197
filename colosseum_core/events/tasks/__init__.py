"""Tasks for the challenge and Solve-or-Object events: schema, exact checkers, checking, verification.

``task`` (the schema), ``answers`` and ``reading``, ``checking`` (exact checkers, and program
checkers in the sandbox), ``verification`` (the verified rule) and ``replay`` (verify's replay of
recorded runs).

Imported by: the challenge and Solve-or-Object events, their wiring and commands, the benchmarks and
the tests. It imports no kind of event (``.importlinter``); programs run in
``colosseum_core.sandbox``.
"""
