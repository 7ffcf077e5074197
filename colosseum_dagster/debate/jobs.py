"""The debate arena's jobs and the topics' schedule."""

import dagster as dg

from colosseum_dagster.debate.keys import ARENA, CROWN_GROUP, ENTRY_GROUP, GAME_GROUP, TOPICS, TOPICS_GROUP
from colosseum_dagster.wiring import arena_job

debate_entries_job = arena_job(
    "debate_entries_job",
    ARENA,
    dg.AssetSelection.groups(ENTRY_GROUP),
    "One epoch's entries: every miner's commitment resolved and checked in the spec's order, "
    "the intent panel asked about every strategy the first two checks let through.",
)

debate_games_job = arena_job(
    "debate_games_job",
    ARENA,
    dg.AssetSelection.groups(GAME_GROUP),
    "One epoch's games on the latest sealed topic rotation: the entered miners paired by a "
    "Swiss rounds, each paired from the results before it (or the pairings given in the run's config), "
    "every game played and judged.",
)

debate_close_job = arena_job(
    "debate_close_job",
    ARENA,
    dg.AssetSelection.groups(CROWN_GROUP),
    "One epoch's close: the title fight if a streak is due one, the ratings, the crown and the "
    "weights sealed, the weights set on the chain.",
)

debate_epoch_job = arena_job(
    "debate_epoch_job",
    ARENA,
    dg.AssetSelection.groups(ENTRY_GROUP, GAME_GROUP, CROWN_GROUP),
    "One epoch end to end: its entries, its games on the latest sealed topic rotation, the "
    "title fight if one is due, the epoch sealed with its ratings, crown and weights, the weights set.",
)

debate_topics_job = arena_job(
    "debate_topics_job",
    TOPICS,
    dg.AssetSelection.groups(TOPICS_GROUP),
    "One topic rotation: Polymarket and Kalshi by 24 h volume, the web search, the evergreen "
    "list; the topic rules applied; twelve motions sealed.",
)

debate_topics_schedule = dg.build_schedule_from_partitioned_job(
    debate_topics_job,
    name="debate_topics_schedule",
    description="A new rotation of motions at 00, 06, 12 and 18 UTC.",
    default_status=dg.DefaultScheduleStatus.STOPPED,
)
