"""The debate arena's jobs and the topics' schedule."""

import dagster as dg

from colosseum_dagster.debate.keys import ARENA, CROWN_GROUP, ENTRY_GROUP, GAME_GROUP, TOPICS, TOPICS_GROUP
from colosseum_dagster.resources import ARENA_TAG

debate_entries_job = dg.define_asset_job(
    "debate_entries_job",
    selection=dg.AssetSelection.groups(ENTRY_GROUP),
    description="One epoch's entries: every miner's commitment resolved and checked in the spec's order, "
    "the intent panel asked about every strategy the first two checks let through.",
    tags={ARENA_TAG: ARENA},
)

debate_games_job = dg.define_asset_job(
    "debate_games_job",
    selection=dg.AssetSelection.groups(GAME_GROUP),
    description="One epoch's games on the latest sealed topic rotation: the entered miners paired by a "
    "Swiss rounds, each paired from the results before it (or the pairings given in the run's config), "
    "every game played and judged.",
    tags={ARENA_TAG: ARENA},
)

debate_close_job = dg.define_asset_job(
    "debate_close_job",
    selection=dg.AssetSelection.groups(CROWN_GROUP),
    description="One epoch's close: the title fight if a streak is due one, the ratings, the crown and the "
    "weights sealed, the weights set on the chain.",
    tags={ARENA_TAG: ARENA},
)

debate_epoch_job = dg.define_asset_job(
    "debate_epoch_job",
    selection=dg.AssetSelection.groups(ENTRY_GROUP, GAME_GROUP, CROWN_GROUP),
    description="One epoch end to end: its entries, its games on the latest sealed topic rotation, the "
    "title fight if one is due, the epoch sealed with its ratings, crown and weights, the weights set.",
    tags={ARENA_TAG: ARENA},
)

debate_topics_job = dg.define_asset_job(
    "debate_topics_job",
    selection=dg.AssetSelection.groups(TOPICS_GROUP),
    description="One topic rotation: Polymarket and Kalshi by 24 h volume, the web search, the evergreen "
    "list; the topic rules applied; twelve motions sealed.",
    tags={ARENA_TAG: TOPICS},
)

debate_topics_schedule = dg.build_schedule_from_partitioned_job(
    debate_topics_job,
    name="debate_topics_schedule",
    description="A new rotation of motions at 00, 06, 12 and 18 UTC.",
    default_status=dg.DefaultScheduleStatus.STOPPED,
)
