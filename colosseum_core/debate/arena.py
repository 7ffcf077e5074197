"""The debate arena as the platform sees it: its name, its partitions (epochs), what is written once.

An epoch is 360 blocks of the chain (``epochs``), and the arena's partitions are epochs
(``epoch=0014523``). Its entries (who plays, and why the others do not) and the intent panel's calls
are written once per epoch: running an epoch again reproduces them byte for byte or is refused. The
epoch's seal (``epoch_manifest``, naming the tables it vouches for) is written by the tournament's
sealing step, once an epoch has its games (part 2 of the arena).
"""

from __future__ import annotations

from colosseum_core.record.layout import ArenaRecord
from colosseum_core.record.seals import SealingPolicy

ENTRY_TABLES = ("entries", "panel_calls")
SELECTION_TABLES = ("epoch_manifest",)

DEBATE = ArenaRecord(
    name="debate",
    partition="epoch",
    sealing=SealingPolicy(
        sealed_tables=(*ENTRY_TABLES, *SELECTION_TABLES),
        sealing_table="epoch_manifest",
        selection_tables=SELECTION_TABLES,
        write_once_tables=ENTRY_TABLES,
        content_id_field="manifest_id",
        content_noun="epoch manifest",
    ),
    views={"panel_verdicts": "panel_calls"},
)
