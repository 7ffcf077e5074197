"""The debate arena's names in Dagster: asset keys ``debate/<table>``, ops ``debate__<name>``."""

from colosseum_dagster.wiring import ArenaNames

ARENA = "debate"
ENTRY_GROUP = "debate_entry"
GAME_GROUP = "debate_games"
CROWN_GROUP = "debate_crown"
TOPICS = "debate_topics"
TOPICS_GROUP = "debate_topics"
NAMES = ArenaNames(ARENA)
key, op_name = NAMES.key, NAMES.op_name


# What a CLI run's progress lines call each step.
STEP_WORDS = {
    op_name("epoch_entries"): "checking the epoch's entries and asking the intent panel",
    op_name("epoch_games"): "playing the epoch's games and asking the judges",
    op_name("topic_rotation"): "asking the topic sources and sealing the rotation",
    op_name("title_fight"): "playing the title fight, if one is due",
    op_name("epoch_close"): "rating the epoch, deciding the crown and sealing the epoch",
    "debate__weight_sets": "setting the weights on the chain",
}
