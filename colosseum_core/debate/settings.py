"""The debate arena's own settings (the platform's are in ``colosseum_core.settings``, where the
chain is read in ``colosseum_core.chain``)."""

# The hotkey that sets the debate validator's weights. Unset, the local ledger's house validator
# (``colosseum_standins.ledger``), which sets weights without a uid of its own so the miners' table
# holds miners only; production names the real validator's hotkey.
VALIDATOR_HOTKEY_ENV = "COLOSSEUM_VALIDATOR_HOTKEY"
