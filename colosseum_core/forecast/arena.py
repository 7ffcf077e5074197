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

# A model maker's trial (COLOSSEUM-TRIAL-1, ``forecast/trial.py``): a trial seat answers a sealed
# card's packet as a unit of its own, ``trial=<card>-<trial id>``, so it never enters the card's
# seats, its seal or the FIGHT board. Its answers are written once; its scores and its own board
# are written by its seal, once every question of the card has settled or voided. The seal vouches
# for the card's packet the trial seat answered.
TRIAL_ANSWER_TABLES = ("trial_answers", "trial_answer_lines")
TRIAL_SEALING_TABLES = ("trial_scores", "trial_board")

FORECAST_TRIALS = ArenaRecord(
    name="forecast_trials",
    partition="trial",
    sealing=SealingPolicy(
        sealed_tables=(*TRIAL_ANSWER_TABLES, *TRIAL_SEALING_TABLES),
        sealing_tables=("trial_board",),
        selection_tables=TRIAL_SEALING_TABLES,
        write_once_tables=TRIAL_ANSWER_TABLES,
        content_id_field="packet_id",
        content_noun="packet",
    ),
    schema_name="forecast",
)
