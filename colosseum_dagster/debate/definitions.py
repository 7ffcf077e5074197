"""The debate arena's Definitions, merged into the platform's (``colosseum_dagster.definitions``)."""

import dagster as dg

from colosseum_dagster.debate.entries import epoch_entries
from colosseum_dagster.debate.jobs import debate_entries_job
from colosseum_dagster.debate.resources import ChainResource, DebateModelsResource
from colosseum_dagster.debate.sensors import debate_epoch_sensor

debate_defs = dg.Definitions(
    assets=[epoch_entries],
    jobs=[debate_entries_job],
    sensors=[debate_epoch_sensor],
    resources={"chain": ChainResource(), "debate_models": DebateModelsResource()},
)
