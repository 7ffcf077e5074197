"""The chain a subnet's miners commit their strategies to, and the gists their pointers name: the
service, not any arena's rules.

``ledger`` is the project's own interface (the current block, the neurons with the block each
registered at, the latest commitment per hotkey with its block, the weights validators set, gist
revisions by id and sha); ``http`` reads it from the local ledger (``colosseum_standins.ledger``)
or any server speaking its routes, every response a receipt; ``gists`` reads GitHub's gist API
(the real one, or the local ledger's copy of its shape); ``bittensor`` adapts the Bittensor SDK
(the optional ``[chain]`` extra) to the same interface.

Imported by: the debate arena (its entries read the chain and the gists), the debate's wiring and
commands, the local ledger (``colosseum_standins.ledger``, which serves its routes) and the tests.
It knows no arena's rules and imports none.
"""

# Where the chain is read: set it to a real ledger's host; unset means the local ledger.
LEDGER_URL_ENV = "COLOSSEUM_LEDGER_URL"
LOCAL_LEDGER_URL = "http://127.0.0.1:8797"
# Where gist revisions are read: GitHub's API in production; the local ledger serves its shape offline.
GISTS_URL_ENV = "COLOSSEUM_GISTS_URL"
