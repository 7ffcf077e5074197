"""The debate arena's names in Dagster: asset keys ``debate/<table>``, ops ``debate__<name>``."""

import dagster as dg

ARENA = "debate"
ENTRY_GROUP = "debate_entry"


def key(table: str) -> dg.AssetKey:
    return dg.AssetKey([ARENA, table])


def op_name(name: str) -> str:
    return f"{ARENA}__{name}"


# What a CLI run's progress lines call each step.
STEP_WORDS = {op_name("epoch_entries"): "checking the epoch's entries and asking the intent panel"}
