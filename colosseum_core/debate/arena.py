"""The debate arena as the platform sees it: two records, one by epoch and one by topic rotation.

An epoch is 360 blocks of the chain (``epochs``), and ``DEBATE``'s partitions are epochs
(``epoch=0014523``). Its entries (who plays, and why the others do not), the intent panel's calls,
and its games with their turns and judge calls are written once per epoch: running an epoch again
reproduces them byte for byte or is refused. The epoch's seal (``epoch_manifest``, naming the
tables it vouches for) is written by the tournament's sealing step (part 2 of the arena).

The topics are refreshed every six hours, on a clock of their own, so they are a record of their
own, ``DEBATE_TOPICS``, partitioned by rotation (``rotation=2026-12-01T06Z``): what each source
answered (``topic_sources``), every candidate with its verdict under the topic rules
(``topic_candidates``), and the rotation's twelve ``motions``, which seal it. Both records' views
are in the ``debate`` schema.
"""

from __future__ import annotations

from colosseum_core.record.layout import ArenaRecord
from colosseum_core.record.seals import SealingPolicy

ENTRY_TABLES = ("entries", "panel_calls")
GAME_TABLES = ("games", "turns", "judge_calls")
SELECTION_TABLES = ("epoch_manifest",)

DEBATE = ArenaRecord(
    name="debate",
    partition="epoch",
    sealing=SealingPolicy(
        sealed_tables=(*ENTRY_TABLES, *GAME_TABLES, *SELECTION_TABLES),
        sealing_table="epoch_manifest",
        selection_tables=SELECTION_TABLES,
        write_once_tables=(*ENTRY_TABLES, *GAME_TABLES),
        content_id_field="manifest_id",
        content_noun="epoch manifest",
    ),
    views={"panel_verdicts": "panel_calls"},
)

TOPIC_TABLES = ("topic_sources", "topic_candidates")
ROTATION_TABLES = ("motions",)

DEBATE_TOPICS = ArenaRecord(
    name="debate_topics",
    partition="rotation",
    sealing=SealingPolicy(
        sealed_tables=(*TOPIC_TABLES, *ROTATION_TABLES),
        sealing_table="motions",
        selection_tables=ROTATION_TABLES,
        write_once_tables=TOPIC_TABLES,
        content_id_field="rotation_id",
        content_noun="rotation",
    ),
    schema_name="debate",
)
