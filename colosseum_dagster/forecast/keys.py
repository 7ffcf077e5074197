"""The arena's asset keys: ``forecast/<table>``, the table named by the key's last part."""

from colosseum_dagster.wiring import ArenaNames

ARENA = "forecast"
NAMES = ArenaNames(ARENA)
key, op_name = NAMES.key, NAMES.op_name


# What the steps are called for a reader at a terminal (the CLI's progress lines), by step key.
STEP_WORDS = {
    op_name("raw_sweep"): "sweeping the exchange",
    op_name("verbatim_markets"): "copying the markets and re-checking the copy",
    op_name("card_status"): "selecting and sealing",
    op_name("sealed_card"): "reading back the sealed card",
    op_name("answer_card"): "asking the seats",
    op_name("settle_card"): "reading settlements",
    op_name("scores"): "scoring",
    op_name("boards"): "ranking",
}
