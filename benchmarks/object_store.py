"""Object-store benchmark: s3fs (fsspec) against obstore, on the record's own shapes of traffic.

Both clients talk to the same S3-compatible server (moto's server mode, its own process on loopback)
and do what the record does: put receipts one at a time, each create-only (``If-None-Match: *``),
read them back, ask whether each exists, list their prefix, and put and get one Parquet table of a
few megabytes; local disk (the offline default's atomic rename) is the baseline. Loopback has no
network latency, so the figures are each client's own cost per request plus the server's: on a real
bucket every request adds its round trip (tens of milliseconds) to both alike, and then what
differs is how many requests a client makes and how many it can keep in flight.

    python benchmarks/object_store.py              # 500 receipts, an 8 MB table
    python benchmarks/object_store.py --json       # one JSON object, for scripts
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from colosseum_core.record.atomic import write_bytes_atomic  # noqa: E402
from colosseum_standins.object_store import (  # noqa: E402
    STANDIN_KEY_ID,
    STANDIN_REGION,
    STANDIN_SECRET,
)

BUCKET = "bench"


@contextlib.contextmanager
def moto_process() -> Iterator[str]:
    """moto's server in its own process, so that its work does not share the clients' interpreter."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        import httpx

        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{endpoint}/moto-api/", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError("moto's server did not answer within 30 s") from None
                time.sleep(0.1)
        yield endpoint
    finally:
        server.terminate()
        server.wait(timeout=10)


def receipts(count: int) -> list[tuple[str, bytes]]:
    """Receipt-shaped objects: gzipped JSON of about the size of an exchange's page receipt."""
    out = []
    for i in range(count):
        body = json.dumps({"request": {"url": f"https://gamma-api.polymarket.com/markets?offset={i}"},
                           "body": "x" * 6000 + str(i)}).encode()  # fmt: skip
        data = gzip.compress(body, mtime=0)
        out.append((f"receipts/sha256/{i % 256:02x}/{i:060x}.json.gz", data))
    return out


def timed(step: Callable[[], Any]) -> float:
    started = time.perf_counter()
    step()
    return time.perf_counter() - started


def bench_local(objects: list[tuple[str, bytes]], table: bytes) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        return {
            "put": timed(lambda: [write_bytes_atomic(root / k, d) for k, d in objects]),
            "get": timed(lambda: [(root / k).read_bytes() for k, _ in objects]),
            "exists": timed(lambda: [(root / k).exists() for k, _ in objects]),
            "list": timed(lambda: list((root / "receipts").rglob("*.json.gz"))),
            "table_put": timed(lambda: write_bytes_atomic(root / "t/data.parquet", table)),
            "table_get": timed(lambda: (root / "t/data.parquet").read_bytes()),
        }


def bench_s3fs(endpoint: str, objects: list[tuple[str, bytes]], table: bytes) -> dict[str, float]:
    import s3fs

    fs = s3fs.S3FileSystem(
        key=STANDIN_KEY_ID, secret=STANDIN_SECRET, endpoint_url=endpoint,
        client_kwargs={"region_name": STANDIN_REGION}, use_listings_cache=False,
    )  # fmt: skip
    root = f"{BUCKET}/s3fs"
    return {
        "put": timed(lambda: [fs.pipe_file(f"{root}/{k}", d, mode="create") for k, d in objects]),
        "get": timed(lambda: [fs.cat_file(f"{root}/{k}") for k, _ in objects]),
        "get_batched": timed(lambda: fs.cat([f"{root}/{k}" for k, _ in objects])),
        "exists": timed(lambda: [fs.exists(f"{root}/{k}") for k, _ in objects]),
        "list": timed(lambda: fs.find(f"{root}/receipts")),
        "table_put": timed(lambda: fs.pipe_file(f"{root}/t/data.parquet", table)),
        "table_get": timed(lambda: fs.cat_file(f"{root}/t/data.parquet")),
    }


def bench_obstore(endpoint: str, objects: list[tuple[str, bytes]], table: bytes) -> dict[str, float]:
    import asyncio

    import obstore
    from obstore.store import S3Store

    store = S3Store(
        BUCKET, prefix="obstore", endpoint=endpoint, access_key_id=STANDIN_KEY_ID,
        secret_access_key=STANDIN_SECRET, region=STANDIN_REGION, client_options={"allow_http": True},
    )  # fmt: skip

    def exists(key: str) -> bool:
        try:
            obstore.head(store, key)
        except FileNotFoundError:
            return False
        return True

    async def get_all() -> list[bytes]:
        async def one(key: str) -> bytes:
            return bytes(await (await obstore.get_async(store, key)).bytes_async())

        return await asyncio.gather(*(one(k) for k, _ in objects))

    return {
        "put": timed(lambda: [obstore.put(store, k, d, mode="create") for k, d in objects]),
        "get": timed(lambda: [bytes(obstore.get(store, k).bytes()) for k, _ in objects]),
        "get_batched": timed(lambda: asyncio.run(get_all())),
        "exists": timed(lambda: [exists(k) for k, _ in objects]),
        "list": timed(lambda: [o for batch in obstore.list(store, "receipts") for o in batch]),
        "table_put": timed(lambda: obstore.put(store, "t/data.parquet", table)),
        "table_get": timed(lambda: bytes(obstore.get(store, "t/data.parquet").bytes())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--receipts", type=int, default=500)
    parser.add_argument("--table-mb", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    objects = receipts(args.receipts)
    table = os.urandom(args.table_mb << 20)
    figures: dict[str, dict[str, float]] = {"local": bench_local(objects, table)}
    with moto_process() as endpoint:
        import boto3

        boto3.client(
            "s3", endpoint_url=endpoint, aws_access_key_id=STANDIN_KEY_ID,
            aws_secret_access_key=STANDIN_SECRET, region_name=STANDIN_REGION,
        ).create_bucket(Bucket=BUCKET)  # fmt: skip
        print(f"moto on {endpoint}; {args.receipts} receipts, a {args.table_mb} MB table", file=sys.stderr)
        figures["s3fs"] = bench_s3fs(endpoint, objects, table)
        figures["obstore"] = bench_obstore(endpoint, objects, table)
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    steps = ["put", "get", "get_batched", "exists", "list", "table_put", "table_get"]
    print(f"{'step':<14}" + "".join(f"{name:>12}" for name in figures) + f"{'s3fs/obstore':>14}")
    for step in steps:
        cells = "".join(
            f"{figures[name][step] * 1000:>10.0f}ms" if step in figures[name] else f"{'-':>12}"
            for name in figures
        )
        ratio = figures["s3fs"][step] / figures["obstore"][step]
        print(f"{step:<14}{cells}{ratio:>13.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
