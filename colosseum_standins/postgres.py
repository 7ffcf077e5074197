"""A real PostgreSQL server on a free loopback port, from Debian's ``postgresql`` package, for the
production profile's tests and for trying that profile on one machine.

It is not a stand-in for PostgreSQL but the server itself, started in a scratch directory: ``initdb``
with trust authentication for one user, ``pg_ctl start`` listening on 127.0.0.1 only (its socket in
the same directory), one database created, everything stopped and left on disk on exit. PostgreSQL
refuses to run as root, so as root it runs as the ``postgres`` user the package creates, which owns
the directory. Durability is switched off (``fsync``, ``synchronous_commit``): the data is scratch.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pwd
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from colosseum_standins.loopback import free_port

POSTGRES_USER = "colosseum"
DEFAULT_DATABASE = "colosseum"
SERVER_ACCOUNT = "postgres"  # Debian's package creates it


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries here (Debian: ``apt-get install postgresql``)."""


@dataclasses.dataclass(frozen=True)
class PostgresServer:
    host: str
    port: int
    user: str
    database: str
    directory: Path

    @property
    def url(self) -> str:
        return self.url_for(self.database)

    def url_for(self, database: str) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{database}"


def server_binaries() -> Path:
    """The directory of ``initdb`` and ``pg_ctl``: Debian's newest ``/usr/lib/postgresql/<v>/bin``,
    else wherever ``PATH`` has them."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    if versions:
        return versions[-1].parent
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).parent
    raise PostgresUnavailable(
        "no PostgreSQL server here (initdb and pg_ctl): on Debian, `apt-get install postgresql`"
    )


def _as_server_account() -> tuple[list[str], int | None, int | None]:
    """The prefix that runs a command as the server's account, and that account's uid and gid; no
    prefix unless this process is root."""
    if os.geteuid() != 0:
        return [], None, None
    try:
        account = pwd.getpwnam(SERVER_ACCOUNT)
    except KeyError:
        raise PostgresUnavailable(
            f"running as root, PostgreSQL needs another account to run as, and {SERVER_ACCOUNT!r} "
            "does not exist (Debian's postgresql package creates it)"
        ) from None
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise PostgresUnavailable("running as root needs setpriv (util-linux) to start PostgreSQL")
    prefix = [setpriv, f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--clear-groups"]
    return prefix, account.pw_uid, account.pw_gid


def _run(argv: Sequence[str], what: str) -> None:
    done = subprocess.run(
        argv, capture_output=True, text=True, check=False, env={**os.environ, "LC_ALL": "C"}
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{what} failed ({done.returncode}): {(done.stderr or done.stdout).strip()[-2000:]}"
        )


@contextlib.contextmanager
def running_postgres(
    directory: Path | str, *, database: str = DEFAULT_DATABASE, host: str = "127.0.0.1"
) -> Iterator[PostgresServer]:
    """Start a server whose cluster lives in ``directory`` (created), with ``database`` in it.

    As root, the server runs as the ``postgres`` account, which must reach ``directory``: every
    root-owned parent that others cannot traverse is given search permission for others (``o+x``,
    not read: nothing in it is listed). Give it a scratch directory (pytest's are such), not one
    under a directory whose permissions matter.
    """
    binaries = server_binaries()
    prefix, uid, gid = _as_server_account()
    root = Path(directory).resolve()
    cluster, log = root / "cluster", root / "server.log"
    root.mkdir(parents=True, exist_ok=True)
    if uid is not None and gid is not None:
        os.chown(root, uid, gid)
        # The account must reach the directory through every parent (pytest's are 0700 root's).
        for parent in root.parents:
            if parent.stat().st_uid == 0 and not parent.stat().st_mode & 0o001:
                parent.chmod(parent.stat().st_mode | 0o001)
    _run(
        [*prefix, str(binaries / "initdb"), "-D", str(cluster), "-U", POSTGRES_USER, "--auth=trust",
         "-E", "UTF8", "--no-sync", "--no-instructions"],
        "initdb",
    )  # fmt: skip
    port = free_port(host)
    options = (
        f"-c listen_addresses={host} -p {port} -k {root} "
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    _run(
        [*prefix, str(binaries / "pg_ctl"), "-D", str(cluster), "-l", str(log), "-o", options,
         "-w", "-t", "60", "start"],
        "pg_ctl start",
    )  # fmt: skip
    server = PostgresServer(host, port, POSTGRES_USER, database, root)
    try:
        _run(
            [
                str(binaries.parent / "bin" / "createdb"),
                "-h",
                host,
                "-p",
                str(port),
                "-U",
                POSTGRES_USER,
                database,
            ],
            f"createdb {database}",
        )
        yield server
    finally:
        subprocess.run(
            [*prefix, str(binaries / "pg_ctl"), "-D", str(cluster), "-m", "fast", "-w", "stop"],
            capture_output=True,
            check=False,
        )
