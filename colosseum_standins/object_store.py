"""An S3-compatible object store on a free loopback port, for the production profile's tests and for
trying a record on object storage on one machine.

It is ``moto``'s server mode (the ``[dev]`` extra): it speaks S3's REST protocol, including
conditional puts (``If-None-Match: *``), with one bucket created and versioned. It holds objects in
memory and forgets them when it stops. ``environment()`` gives the variables that point the S3
clients at it: the same variables point them at a real bucket (AWS or any S3-compatible service).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Iterator

from colosseum_standins.loopback import free_port

DEFAULT_BUCKET = "colosseum"
# moto accepts any credentials; real clients still insist on having some.
STANDIN_KEY_ID, STANDIN_SECRET, STANDIN_REGION = "colosseum", "colosseum-standin-secret", "us-east-1"


class ObjectStoreUnavailable(RuntimeError):
    """moto's server mode is not installed (``pip install 'moto[server]'``, part of the [dev] extra)."""


@dataclasses.dataclass(frozen=True)
class ObjectStoreServer:
    endpoint: str
    bucket: str

    def url(self, prefix: str = "") -> str:
        """The ``s3://`` URL of ``prefix`` in the bucket."""
        return f"s3://{self.bucket}/{prefix.strip('/')}".rstrip("/")

    def environment(self) -> dict[str, str]:
        """What points the S3 clients (s3fs, polars, DuckDB's httpfs) at this server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": STANDIN_KEY_ID,
            "AWS_SECRET_ACCESS_KEY": STANDIN_SECRET,
            "AWS_REGION": STANDIN_REGION,
            "AWS_ALLOW_HTTP": "true",
        }


@contextlib.contextmanager
def running_object_store(bucket: str = DEFAULT_BUCKET) -> Iterator[ObjectStoreServer]:
    """Start the server, create ``bucket`` with versioning on, yield it; stop the server on exit."""
    try:
        import boto3
        from moto.server import ThreadedMotoServer
    except ImportError as exc:
        raise ObjectStoreUnavailable(
            f"moto's server mode is not installed ({exc}): pip install 'moto[server]' (the [dev] extra)"
        ) from None
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        store = ObjectStoreServer(endpoint=f"http://127.0.0.1:{port}", bucket=bucket)
        env = store.environment()
        client = boto3.client(
            "s3",
            endpoint_url=store.endpoint,
            aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
            region_name=env["AWS_REGION"],
        )
        client.create_bucket(Bucket=bucket)
        client.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
        yield store
    finally:
        server.stop()
