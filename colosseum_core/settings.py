"""The platform's settings: where the record lives (the variable and its default, which
``record.storage.data_dir`` reads: every command and asset from one place), the services every
arena may talk to and the production profile's. It knows no arena: an arena's own settings live in
its package (the debate validator's hotkey in ``debate/settings.py``), and where the chain is read
lives with the chain's client (``chain/__init__.py``). It imports nothing of the project, so that
every layer may read it (the record's layout and locks do)."""

from __future__ import annotations

DATA_ENV = "COLOSSEUM_DATA"
DEFAULT_DATA_DIR = "data"

# The services a card talks to: set these to point at real hosts; unset means the local stand-ins.
GAMMA_URL_ENV = "COLOSSEUM_GAMMA_URL"
SPARRING_URL_ENV = "COLOSSEUM_SPARRING_URL"
SIMULATED_EXCHANGE_URL = "http://127.0.0.1:8765"
LOCAL_SPARRING_URL = "http://127.0.0.1:8766"


# Kalshi's public API: the simulated exchange serves its routes offline.
KALSHI_URL_ENV = "COLOSSEUM_KALSHI_URL"
SIMULATED_KALSHI_URL = f"{SIMULATED_EXCHANGE_URL}/trade-api/v2"
# The production profile's database (deploy/dagster.yaml): Dagster's instance, and the record's
# writer locks, which then hold across hosts (record/locks_postgres.py) instead of on one disk.
POSTGRES_URL_ENV = "COLOSSEUM_POSTGRES_URL"
# A record on object storage (COLOSSEUM_DATA=s3://…) keeps this host's own files (the DuckDB catalog,
# caches, private keys, the built site) in this local directory.
LOCAL_DIR_ENV = "COLOSSEUM_LOCAL_DIR"
