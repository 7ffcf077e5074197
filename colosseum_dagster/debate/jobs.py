"""The debate arena's jobs."""

import dagster as dg

from colosseum_dagster.debate.keys import ARENA, ENTRY_GROUP
from colosseum_dagster.resources import ARENA_TAG

debate_entries_job = dg.define_asset_job(
    "debate_entries_job",
    selection=dg.AssetSelection.groups(ENTRY_GROUP),
    description="One epoch's entries: every miner's commitment resolved and checked in the spec's order, "
    "the intent panel asked about every strategy the first two checks let through.",
    tags={ARENA_TAG: ARENA},
)
