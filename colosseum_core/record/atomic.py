"""Atomic file writes: a reader never sees a half-written file, a failed write leaves nothing behind."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path


def temp_path_for(path: Path) -> Path:
    """A sibling temp name that never matches a ``*.parquet`` / ``*.json.gz`` read glob."""
    return path.with_name(f".{path.name}.tmp-{uuid.uuid4().hex}")


@contextlib.contextmanager
def atomic_target(path: Path) -> Iterator[Path]:
    """Yield a temp path to write; on success it replaces ``path`` in one rename, on error it vanishes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_for(path)
    try:
        yield tmp
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    with atomic_target(path) as tmp:
        tmp.write_bytes(data)
