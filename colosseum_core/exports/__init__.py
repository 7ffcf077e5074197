"""The record's results in the field's formats (COLOSSEUM-EXPORTS-1): Inspect AI eval logs, a Hugging
Face dataset folder and Every Eval Ever records.

An arena turns its sealed units into plain ``UnitLog``s (``units.py``: one per seat or contender and
unit of play, every sample with its input, output, score and the record's identifiers); this package
writes them with the field's own libraries (``inspect_logs.py`` with inspect-ai's log API, ``eee.py``
checked against Every Eval Ever's schema) and lays the sealed tables out as a dataset (``hf.py``).

Exports are derived files, never part of the record: an ``.eval`` file is a zip whose entries carry the
time it was written, so its bytes differ on every export; its content is the same. Nothing here is
sealed or hashed into a seal.

Knows no arena (``.importlinter``); inspect-ai is imported by ``inspect_logs.py`` alone, and only
there in the whole project (the ``exports`` extra).

Imported by: each arena's ``exports.py``, ``colosseum export`` (``colosseum_dagster/cli/export.py``),
the tests.
"""

from typing import Final

EXPORTS_RULES: Final = "COLOSSEUM-EXPORTS-1"
