"""The debate arena's names in Dagster: asset keys ``debate/<table>``, ops ``debate__<name>``."""

import dagster as dg

ARENA = "debate"
ENTRY_GROUP = "debate_entry"
GAME_GROUP = "debate_games"
CROWN_GROUP = "debate_crown"
TOPICS = "debate_topics"
TOPICS_GROUP = "debate_topics"


def key(table: str) -> dg.AssetKey:
    return dg.AssetKey([ARENA, table])


def op_name(name: str) -> str:
    return f"{ARENA}__{name}"


# What a CLI run's progress lines call each step.
STEP_WORDS = {
    op_name("epoch_entries"): "checking the epoch's entries and asking the intent panel",
    op_name("epoch_games"): "playing the epoch's games and asking the judges",
    op_name("topic_rotation"): "asking the topic sources and sealing the rotation",
    op_name("title_fight"): "playing the title fight, if one is due",
    op_name("epoch_close"): "rating the epoch, deciding the crown and sealing the epoch",
    "debate__weight_sets": "setting the weights on the chain",
}
