"""The challenge event: contenders author machine-checkable tasks for each other, then solve or object.

``authoring`` and its prompts, the commitments and the record sealed until the reveal (``sealing``),
the event's steps (``event``, ``run``), ``scoring`` and ``standings``, the house authors and
reviewers (``house``), its part of verify (``audit``), its pages (``pages``) and the kind the
registry lists (``kind``); its rules' versions in ``rules``.

Imported by: the registry of kinds (``colosseum_core.events.kinds``, by name), its own wiring and
commands (``colosseum_dagster.events.challenges``, ``colosseum_dagster.cli.events.challenges``) and
the tests; never by another kind nor by the arena's shared modules (``.importlinter``).
"""
