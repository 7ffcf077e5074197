"""The Compelle debate arena: miners' strategies committed on a chain, topics from markets, debates
between two miners judged by a two-model panel, Elo, a Swiss bracket and a crown.

``strategy`` reads a commitment (inline text, or a gist pointer pinned to a revision) and resolves
it to the strategy's bytes and hash; ``entry`` holds the entry checks, one module per published rule,
run in their order every epoch; ``prompts`` the prompts, verbatim and versioned; ``rules`` every
version the arena records with what it produced.

Its modules stand in layers, each importing only the layers below it (the ``debate-layers`` contract
in ``.importlinter``), from the bottom: ``rules``; the records (``arena``), ``settings``,
``epochs``, ``strategy``, ``prompts``, ``house``, the models document (``models``) and the pairings
(``pairing``); ``entry`` (with the intent panel), ``topics``, ``asking``, ``swiss``, ``ratings``,
``strength``; ``judging``, ``tournament``, ``rating_key``; ``game``; the close (``crown``); the
pages (``site``); its part of verify (``audit``) at the top.

Imported by: the registry (``colosseum_core.arenas``), the arena's wiring and commands
(``colosseum_dagster.debate``, ``colosseum_dagster.cli.debate``), the benchmarks and the tests;
never by the platform nor another arena.
"""
