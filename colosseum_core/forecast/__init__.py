"""The forecasting arena: a card swept, copied, selected, sealed, answered, settled, scored, on the board.

One subpackage per stage of a card's pipeline, in its order: ``sweep`` (the sweep and the verbatim
copy with its re-check), ``selection`` (SLATE-LAWS, the price at seal, the rotation and the
independent selection audit), ``sealing`` (the card, its packet and the seal step), ``answering``
(the seats, how they are asked, their replies read and signed), ``settlement`` (when a question
settled, the watch, the scores), ``board`` (the tallies and the boards), then the public board's
pages (``site``) and the arena's part of verify (``audit``). A stage imports only the stages before
it (the ``forecast-stages`` contract in ``.importlinter``). At the top, what every stage uses: the
arena as the platform sees it (``arena``), the rules' versions (``rules``), the card schedule
(``schedule``) and the auditors' table contracts (``schemas``).

Imported by: the arena's wiring and commands (``colosseum_dagster``), the registry
(``colosseum_core.arenas``), the benchmarks and the tests; never by the platform or another arena.
"""
