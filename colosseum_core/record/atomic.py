"""Atomic file writes: a reader never sees a half-written file, a failed write leaves nothing behind.

On this disk: a temporary sibling, fsynced, then one rename. In a bucket: one PUT of the whole
bytes, which S3 makes visible all at once (``storage.py`` says what is relied on there).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from colosseum_core.record.storage import RecordPath, is_remote, put_object


def temp_path_for(path: Path) -> Path:
    """A sibling temp name that never matches a ``*.parquet`` / ``*.json.gz`` read glob."""
    return path.with_name(f".{path.name}.tmp-{uuid.uuid4().hex}")


@contextlib.contextmanager
def atomic_target(path: RecordPath) -> Iterator[Path]:
    """Yield a temp path to write; on success it replaces ``path`` in one rename (in a bucket: one
    PUT of its bytes), on error it vanishes."""
    if is_remote(path):
        with tempfile.TemporaryDirectory(prefix="colosseum-put-") as scratch:
            tmp = Path(scratch) / path.name
            yield tmp
            put_object(path, tmp.read_bytes())
        return
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


def write_bytes_atomic(path: RecordPath, data: bytes, *, create_only: bool = False) -> None:
    """Write ``data`` at ``path`` all at once. ``create_only``: what is written once and never
    replaced (receipts, seals); in a bucket the PUT is conditional, so a second writer is refused
    (``FileExistsError``) instead of replacing the object."""
    if is_remote(path):
        put_object(path, data, create_only=create_only)
        return
    with atomic_target(path) as tmp:
        tmp.write_bytes(data)
