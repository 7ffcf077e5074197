"""Where the record's bytes live: a directory on this disk (the offline default), or an S3-compatible
bucket (the production profile: ``COLOSSEUM_DATA=s3://bucket/prefix``).

One path type serves both. A local root is a ``pathlib.Path``; a bucket root is a ``UPath``
(universal_pathlib: pathlib's interface over fsspec) whose filesystem is obstore's, chosen over
s3fs after ``benchmarks/object_store.py`` measured both on the record's traffic (obstore made
each request 2–5× cheaper on loopback). The record's code joins, reads, lists and tests paths the
same way for both; what differs is only how a write is made atomic (``atomic.py``) and how polars
is pointed at a bucket (``read_parquet``, ``scan_parquet``).

What S3 guarantees, and what the record relies on:

- A PUT is atomic: a reader sees the whole previous object or the whole new one, never a part.
  So a file's write is one PUT of its whole bytes: there is no temporary key and no rename (S3 has
  no rename: a copy and a delete, which is not atomic).
- Since December 2020 S3 is strongly consistent: a read or a list after a PUT sees it.
- A conditional PUT with ``If-None-Match: *`` (August 2024) creates an object only if no object
  has the key, atomically; the record uses it for what is immutable by content or by seal
  (receipts, seals), so two writers can never replace one with another: the second is refused.
- Other writes (a table of an unsealed partition, a ledger sidecar, a journal) are plain PUTs made
  by the partition's only writer, whose lock is PostgreSQL's (``locks_postgres.py``): a record on
  a bucket is shared between hosts, so a lock on one host's disk would not do.
- With versioning on, a replaced or deleted object's earlier bytes are kept by the bucket.
- A journal cannot be appended to in place: each append rewrites the object (a journal is one
  partition's and small), and the one PUT makes the new line and the old ones visible together.
"""

from __future__ import annotations

import atexit
import gc
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import polars as pl

from colosseum_core.settings import DATA_ENV, DEFAULT_DATA_DIR

if TYPE_CHECKING:
    from upath import UPath

OBJECT_STORE_SCHEMES = ("s3://",)

RecordPath: TypeAlias = "Path | UPath"


class ObjectStoreError(RuntimeError):
    """The object store cannot be used: its client is not installed, or it refused a request."""


def is_object_store_url(value: str | os.PathLike[str]) -> bool:
    return isinstance(value, str) and value.startswith(OBJECT_STORE_SCHEMES)


def is_remote(path: object) -> bool:
    """Whether ``path`` is in a bucket (anything but a ``pathlib.Path`` on this disk)."""
    return not isinstance(path, Path)


_registered = False


def _register_obstore() -> None:
    """Make obstore the filesystem fsspec (and so UPath) uses for ``s3://``."""
    global _registered
    if _registered:
        return
    try:
        import obstore.fsspec
        import upath  # noqa: F401
    except ImportError as exc:
        raise ObjectStoreError(
            f"a record on object storage needs the [production] extra (obstore, universal_pathlib): {exc}"
        ) from None
    obstore.fsspec.register("s3")
    atexit.register(_release_clients)
    _registered = True


def _release_clients() -> None:
    """Drop every obstore client while the interpreter still runs: one freed during its shutdown
    (fsspec keeps its filesystems in a class-level cache) could abort the process after its work."""
    import fsspec

    _stores.clear()
    fsspec.AbstractFileSystem.clear_instance_cache()
    for implementation in list(fsspec.registry.values()):
        clear = getattr(implementation, "clear_instance_cache", None)
        if clear is not None:
            clear()
    gc.collect()


def record_path(root: str | os.PathLike[str] | RecordPath) -> RecordPath:
    """The record's root as a path: an ``s3://`` URL on a bucket, anything else a local directory.

    The bucket's endpoint and credentials come from the standard variables (``AWS_ENDPOINT_URL``,
    ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``; ``AWS_ALLOW_HTTP=true`` for a
    server on loopback), as every S3 client reads them.
    """
    if isinstance(root, Path):
        return root
    if isinstance(root, str) and is_object_store_url(root):
        _register_obstore()
        from upath import UPath

        return UPath(root.rstrip("/"))
    if type(root).__module__.startswith("upath."):
        return root  # type: ignore[return-value]
    return Path(root)


def resolved_record_path(root: str | os.PathLike[str] | RecordPath) -> RecordPath:
    """``record_path``, made absolute when it is on this disk (a bucket's path is absolute already)."""
    path = record_path(root)
    return path if is_remote(path) else path.resolve()


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The record's root: an explicit override, else $COLOSSEUM_DATA, else ./data. An ``s3://`` URL
    (a record on object storage) is returned as its path in the bucket."""
    raw = override if override is not None else os.environ.get(DATA_ENV) or DEFAULT_DATA_DIR
    return resolved_record_path(raw)  # type: ignore[return-value]


def object_store_failure(exc: BaseException) -> str | None:
    """One line for a request the bucket refused or that never reached it (its URL and why); None if
    ``exc`` is not the object store's."""
    if isinstance(exc, ObjectStoreError):
        return str(exc)
    try:
        import obstore.exceptions
    except ImportError:
        return None
    if not isinstance(exc, obstore.exceptions.BaseError):
        return None
    said = str(exc).splitlines()[0].strip() if str(exc).strip() else type(exc).__name__
    endpoint = os.environ.get("AWS_ENDPOINT_URL") or "AWS S3"
    return f"the object store ({endpoint}) failed a request: {said[:400]}"


def _bucket_and_key(path: RecordPath) -> tuple[str, str]:
    text = str(path)
    for scheme in OBJECT_STORE_SCHEMES:
        if text.startswith(scheme):
            bucket, _, key = text.removeprefix(scheme).partition("/")
            return bucket, key
    raise ObjectStoreError(f"{text} is not an object-store path")


_stores: dict[tuple[str | None, ...], Any] = {}
_STORE_SETTINGS = ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_REGION", "AWS_ALLOW_HTTP")


def _store(bucket: str) -> Any:
    """obstore's client for ``bucket``, as the environment configures it now (one per configuration)."""
    key = (bucket, *(os.environ.get(name) for name in _STORE_SETTINGS))
    if key not in _stores:
        from obstore.store import from_url

        _stores[key] = from_url(f"s3://{bucket}")
    return _stores[key]


def put_object(path: RecordPath, data: bytes, *, create_only: bool = False) -> None:
    """One PUT of ``data`` at ``path``; with ``create_only``, refused (``FileExistsError``) if an
    object is there already (``If-None-Match: *``)."""
    import obstore

    bucket, key = _bucket_and_key(path)
    try:
        obstore.put(_store(bucket), key, data, mode="create" if create_only else "overwrite")
    except obstore.exceptions.AlreadyExistsError:
        raise FileExistsError(f"{path} exists already: it is written once and never replaced") from None


def read_bytes(path: RecordPath) -> bytes:
    """The file's bytes; ``FileNotFoundError`` if there is none. In a bucket one GET (not a file
    object: fsspec's would first ask for the object's size, a second request)."""
    if not is_remote(path):
        return path.read_bytes()
    import obstore

    bucket, key = _bucket_and_key(path)
    try:
        return bytes(obstore.get(_store(bucket), key).bytes())
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such object") from None


def object_signatures(folder: RecordPath, name: str) -> dict[str, tuple[int, int, int, int]]:
    """Every object ``<folder>/<child>/<name>`` in a bucket, by child, with what says it changed:
    (size, last modified in ns, 0, the ETag as a number); one LIST, however many children."""
    import obstore

    bucket, key = _bucket_and_key(folder)
    prefix = key.rstrip("/") + "/"
    found: dict[str, tuple[int, int, int, int]] = {}
    for batch in obstore.list(_store(bucket), prefix):
        for meta in batch:
            child, _, rest = meta["path"].removeprefix(prefix).partition("/")
            if rest == name:
                etag = int(hashlib.sha256(str(meta.get("e_tag")).encode()).hexdigest()[:15], 16)
                modified = int(meta["last_modified"].timestamp() * 1_000_000_000)
                found[child] = (int(meta["size"]), modified, 0, etag)
    return found


def _polars_source(source: Any) -> tuple[Any, dict[str, str] | None]:
    """What polars needs to read ``source`` (a path, a glob or a list of them): the path strings and,
    in a bucket, the storage options that point polars at its endpoint (from the environment)."""
    paths = list(source) if isinstance(source, list | tuple) else [source]
    if not any(is_remote(p) for p in paths):
        return source, None
    options = {
        name: value
        for name, env in (
            ("aws_endpoint_url", "AWS_ENDPOINT_URL"),
            ("aws_access_key_id", "AWS_ACCESS_KEY_ID"),
            ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"),
            ("aws_region", "AWS_REGION"),
            ("aws_allow_http", "AWS_ALLOW_HTTP"),
        )
        if (value := os.environ.get(env))
    }
    strings = [str(p) for p in paths]
    return (strings if isinstance(source, list | tuple) else strings[0]), options


def read_parquet(source: Any, **kwargs: Any) -> pl.DataFrame:
    """``pl.read_parquet`` of a record file (or files) on this disk or in a bucket."""
    source, options = _polars_source(source)
    return pl.read_parquet(source, storage_options=options, **kwargs)


def scan_parquet(source: Any, **kwargs: Any) -> pl.LazyFrame:
    """``pl.scan_parquet`` of a record file (or files, or a glob) on this disk or in a bucket."""
    source, options = _polars_source(source)
    return pl.scan_parquet(source, storage_options=options, **kwargs)


def upload_tree(local: Path, target: RecordPath, *, last: Sequence[str] = ()) -> int:
    """Put every file under ``local`` at the same relative key under ``target`` in the bucket, the
    files named in ``last`` after all others (a site's signed manifest: a reader who finds the new
    manifest finds every file it lists), then delete what the bucket held there and ``local`` does
    not. The number of objects put."""
    import obstore

    bucket, prefix = _bucket_and_key(target)
    prefix = prefix.rstrip("/") + "/"
    files = sorted(p.relative_to(local).as_posix() for p in local.rglob("*") if p.is_file())
    ordered = [f for f in files if f not in last] + [f for f in last if f in files]
    store = _store(bucket)
    stale = {meta["path"] for batch in obstore.list(store, prefix) for meta in batch}
    for name in ordered:
        obstore.put(store, prefix + name, (local / name).read_bytes())
    for key in sorted(stale - {prefix + name for name in ordered}):
        obstore.delete(store, key)
    return len(ordered)


def download_tree(source: RecordPath, local: Path) -> int:
    """Get every object under ``source`` into ``local`` at the same relative path; how many."""
    import obstore

    bucket, prefix = _bucket_and_key(source)
    prefix = prefix.rstrip("/") + "/"
    store = _store(bucket)
    count = 0
    for batch in obstore.list(store, prefix):
        for meta in batch:
            path = local / meta["path"].removeprefix(prefix)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(bytes(obstore.get(store, meta["path"]).bytes()))
            count += 1
    return count
