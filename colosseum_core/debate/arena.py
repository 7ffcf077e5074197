"""The debate arena as the platform sees it: two records, one by epoch and one by topic rotation.

An epoch is 360 blocks of the chain (``epochs``), and ``DEBATE``'s partitions are epochs
(``epoch=0014523``). Its entries (who plays, and why the others do not), the intent panel's calls,
and its games with their turns and judge calls are written once per epoch: running an epoch again
reproduces them byte for byte or is refused, and so are a title fight's games (``fight_games``,
``fight_turns``, ``fight_judge_calls``, empty when no fight was due). The epoch's close seals it:
its ratings, rating changes, the crown and the streaks, the title fight's decision and the weights,
and the ``epoch_manifest`` that names them (``crown.closing``).

The topics are refreshed every six hours, on a clock of their own, so they are a record of their
own, ``DEBATE_TOPICS``, partitioned by rotation (``rotation=2026-12-01T06Z``): what each source
answered (``topic_sources``), every candidate with its verdict under the topic rules
(``topic_candidates``), and the rotation's twelve ``motions``, which seal it.

A model maker's trial of the arena is a record of its own too, ``DEBATE_TRIALS``, partitioned by
trial (``trial=openai-qwen3-8b-1a2b3c4d``, ``colosseum_core.trial.trial_id``): its plan, written
once, then its games, turns, the house panel's calls, the model's own votes as a judge and its
``trial_manifest``, which seal it (``debate.trial``). A trial is CALIBRATION, never an epoch: no
board, crown or rating reads it. The three records' views are all in the ``debate`` schema.
"""

from __future__ import annotations

from colosseum_core.record.layout import ArenaRecord
from colosseum_core.record.seals import SealingPolicy

ENTRY_TABLES = ("entries", "panel_calls")
# The journals an epoch's games and its title fight's are played into, one entry per game as it ends
# (``journal/debate/<journal>/epoch=<key>.jsonl``).
GAMES_JOURNAL, FIGHT_JOURNAL = "games", "fight"
GAME_TABLES = ("games", "turns", "judge_calls")
FIGHT_TABLES = ("fight_games", "fight_turns", "fight_judge_calls")
CLOSING_TABLES = ("ratings", "rating_changes", "crown", "streaks", "title_fights", "weights")
SELECTION_TABLES = (*CLOSING_TABLES, "epoch_manifest")

DEBATE = ArenaRecord(
    name="debate",
    partition="epoch",
    sealing=SealingPolicy(
        sealed_tables=(*ENTRY_TABLES, *GAME_TABLES, *FIGHT_TABLES, *SELECTION_TABLES),
        sealing_tables=("epoch_manifest",),
        selection_tables=SELECTION_TABLES,
        # The weights as set on the chain come after the seal, once.
        write_once_tables=(*ENTRY_TABLES, *GAME_TABLES, *FIGHT_TABLES, "weight_sets"),
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
        sealing_tables=("motions",),
        selection_tables=ROTATION_TABLES,
        write_once_tables=TOPIC_TABLES,
        content_id_field="rotation_id",
        content_noun="rotation",
    ),
    schema_name="debate",
)

# The trial's plan is written once, before any game; its games and standings only by its seal.
TRIAL_PLAN = "trial_plan"
TRIAL_TABLES = ("trial_games", "trial_turns", "trial_judge_calls", "trial_model_votes", "trial_manifest")
# The journals a trial's games and the model's votes are played into, one entry per game as it ends.
TRIAL_GAMES_JOURNAL, TRIAL_VOTES_JOURNAL = "trial_games", "trial_votes"

DEBATE_TRIALS = ArenaRecord(
    name="debate_trials",
    partition="trial",
    sealing=SealingPolicy(
        sealed_tables=(TRIAL_PLAN, *TRIAL_TABLES),
        sealing_tables=("trial_manifest",),
        selection_tables=TRIAL_TABLES,
        write_once_tables=(TRIAL_PLAN,),
        content_id_field="trial_manifest_id",
        content_noun="trial manifest",
    ),
    schema_name="debate",
)
