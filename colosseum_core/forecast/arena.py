"""The forecasting arena as the platform sees it: its name, its partitions, what seals, its views.

Cards are the arena's partitions (``card=2026-11-29-1000``). A card's sweep, copy, selection and
packet seal together; its answers, signatures, keys and status are written once. Analysts know two
tables by other names: ``forecast.cards`` (the packets) and ``forecast.verdicts`` (every swept
question's verdict).
"""

from __future__ import annotations

from colosseum_core.record.layout import ArenaRecord
from colosseum_core.record.seals import SealingPolicy

SELECTION_TABLES = ("ranked_candidates", "card_questions", "packet")
SEALED_TABLES = ("raw_sweep", "sweeps", "verbatim_markets", "copy_errors", *SELECTION_TABLES, "card_status")
WRITE_ONCE_TABLES = ("answers", "answer_lines", "answer_signatures", "public_keys", "card_status")

FORECAST = ArenaRecord(
    name="forecast",
    partition="card",
    sealing=SealingPolicy(
        sealed_tables=SEALED_TABLES,
        sealing_tables=("packet",),
        selection_tables=SELECTION_TABLES,
        write_once_tables=WRITE_ONCE_TABLES,
        content_id_field="packet_id",
        content_noun="packet",
    ),
    views={"verdicts": "ranked_candidates", "cards": "packet"},
)
