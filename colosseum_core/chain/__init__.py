"""The chain a subnet's miners commit their strategies to, and the gists their pointers name: the
service, not any arena's rules.

``ledger`` is the project's own interface (the current block, the neurons with the block each
registered at, the latest commitment per hotkey with its block, the weights validators set, gist
revisions by id and sha); ``http`` reads it from the local ledger (``colosseum_standins.ledger``)
or any server speaking its routes, every response a receipt; ``gists`` reads GitHub's gist API
(the real one, or the local ledger's copy of its shape); ``bittensor`` adapts the Bittensor SDK
(the optional ``[chain]`` extra) to the same interface.
"""
