"""The debate arena's part of the public site (a plug-in of ``colosseum_core.site``): the standings,
the crown and its history, every epoch's bracket, every game with its raw transcript and the panel's
votes, the prompts in full, the judges' statistics and the record's tables as Parquet.

``build_debate_site`` writes it from the sealed epochs, ``debate_site_problems`` reads a built site
back from disk against the record, and ``DebateSite`` is what the shared engine publishes.

Imported by: the registry (``colosseum_core.arenas``: the one public site), the debate's part of
verify (``audit``) and the tests. It imports the close (``crown``) and the layers below, never the
wiring.
"""
