"""Where the record lives. Every command and asset reads it from one place."""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "COLOSSEUM_DATA"
DEFAULT_DATA_DIR = "data"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The record's root: an explicit override, else $COLOSSEUM_DATA, else ./data."""
    raw = override if override is not None else os.environ.get(DATA_ENV) or DEFAULT_DATA_DIR
    return Path(raw).resolve()
