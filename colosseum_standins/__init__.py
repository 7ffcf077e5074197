"""The project's local servers, not its rules: what speaks the real services' protocols on loopback for
the tests, the demos and ``colosseum dev``. The simulated exchange (Polymarket's and Kalshi's
routes, with faults), the sparring server of house players, the guest model server (one model
name served over OpenAI's protocol, answered by house players: a model maker's server, for trials),
the local ledger (the chain and gists,
offline), an S3-compatible object store and a throwaway PostgreSQL, and the loopback helpers that
serve them. They may import ``colosseum_core`` (the ledger's protocol, the house players' names),
never the wiring nor dagster.

Imported by: the wiring and the commands (``colosseum dev``, the ``serve`` commands, the debate's
chain resource), the benchmarks and the tests; never by ``colosseum_core`` (``.importlinter``).
"""
