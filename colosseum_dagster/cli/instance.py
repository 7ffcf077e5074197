"""The Dagster instance every command shares with ``make run``: one place that says where it lives.

``colosseum dev`` (``make run``) keeps its run history in ``$DAGSTER_HOME``, else in the checkout's
``.dagster_home/``; a command that runs a job records its run there too, so the UI shows every run,
from the CLI, a schedule or a sensor, with its logs. ``colosseum --ephemeral-instance …`` keeps a
throw-away instance instead.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from colosseum_dagster.cli.errors import UserError

WORKSPACE = "workspace.yaml"
HOME_DIR = ".dagster_home"
HOME_ENV = "DAGSTER_HOME"

# Set by the command line for the command it runs: its --ephemeral-instance, and its name for the
# tags of its runs.
_ephemeral = False
_command = "colosseum"
# One instance per home per process: a command's run, its catalog refresh and its partitions share it.
_instances: dict[Path, Any] = {}


def for_command(command: str, *, ephemeral: bool) -> None:
    global _ephemeral, _command
    _ephemeral, _command = ephemeral, command


def project_root(cwd: Path) -> Path | None:
    """The checkout whose ``workspace.yaml`` the UI loads: the working directory's, else the one this
    package is installed from (an editable install), so commands work from anywhere; None outside one."""
    for candidate in (cwd, Path(__file__).resolve().parents[2]):
        if (candidate / WORKSPACE).is_file():
            return candidate
    return None


def instance_home(cwd: Path | None = None) -> Path:
    """``$DAGSTER_HOME``, else the checkout's ``.dagster_home/``: created, with the checkout's
    dagster.yaml linked into it (a link, not a copy, so the instance follows the file as it changes)."""
    root = project_root(cwd or Path.cwd())
    given = os.environ.get(HOME_ENV)
    if not given and root is None:
        raise UserError(
            f"no Dagster instance: set ${HOME_ENV} to a folder, run from the repository's checkout "
            f"(its {HOME_DIR}/ is make run's), or pass --ephemeral-instance"
        )
    home = Path(given).expanduser().resolve() if given else (root / HOME_DIR).resolve()  # type: ignore[operator]
    home.mkdir(parents=True, exist_ok=True)
    linked = home / "dagster.yaml"
    config = root / "dagster.yaml" if root is not None else None
    if config is not None and config.exists() and not linked.exists() and not linked.is_symlink():
        with contextlib.suppress(FileExistsError):  # another command linked it a moment ago
            linked.symlink_to(config)
    return home


def shared_instance() -> Any:
    """The instance a command's runs go to: make run's (see the module's docstring), or a throw-away
    one under --ephemeral-instance."""
    import dagster as dg

    if _ephemeral:
        return dg.DagsterInstance.ephemeral()
    home = instance_home()
    if home not in _instances:
        _instances[home] = dg.DagsterInstance.from_config(str(home))
        reap_dead_cli_runs(_instances[home])
    return _instances[home]


def cli_tags() -> dict[str, str]:
    """The tags of a run this command starts: the command, its pid and host (``cli_run_tags``)."""
    from colosseum_dagster.resources import cli_run_tags

    return cli_run_tags(_command)


def reap_dead_cli_runs(instance: Any) -> None:
    """A command's run whose process died (``kill -9``, a power cut) would stay 'started' on the
    instance for ever, holding its pool slots (the catalog's, the providers'), so that no later run
    of any origin could take them: it is marked failed, saying why, and its slots freed."""
    import dagster as dg

    from colosseum_dagster.resources import IN_PROGRESS, PID_TAG, cli_run_gone

    for run in instance.get_runs(filters=dg.RunsFilter(statuses=list(IN_PROGRESS))):
        if PID_TAG in run.tags and cli_run_gone(run.tags):
            instance.report_run_failed(
                run,
                f"the command that ran it (pid {run.tags[PID_TAG]}) is gone: it was killed mid-run; "
                "the record resumes it when the command runs again",
            )
            instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)


def refuse_a_partition_in_flight(instance: Any, job: Any, key: str, root: Path) -> dict[str, str]:
    """A user error naming the run (and who started it) that writes ``job``'s arena's partition ``key``
    now; else the tags this command's run carries, so that others can name it in turn."""
    from colosseum_dagster.resources import ARENA_TAG, ARENAS_BY_NAME, partition_in_flight

    arena = ARENAS_BY_NAME.get(job.tags.get(ARENA_TAG))
    if arena is not None:
        writer = partition_in_flight(instance, arena, key, root)
        if writer is not None:
            raise UserError(f"{arena.partition} {key} is being written by {writer}; not started")
    return cli_tags()


# ------------------------------------------------------------------------------ make run's servers

SERVICES = "services.json"
# What each of make run's servers is called where a command says it uses it.
SERVICE_NAMES = {
    "exchange": "simulated exchange",
    "sparring": "sparring server",
    "ledger": "local ledger",
    "ui": "Dagster UI",
}
_announced: set[str] = set()


def _home_path() -> Path | None:
    """Where make run's instance is, without creating it; None when there is none to find."""
    given = os.environ.get(HOME_ENV)
    if given:
        return Path(given).expanduser().resolve()
    root = project_root(Path.cwd())
    return (root / HOME_DIR).resolve() if root is not None else None


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def announce_services(home: Path, services: dict[str, dict[str, Any]]) -> Path:
    """``colosseum dev`` says which servers it runs (each one's URL and pid, and the supervisor's pid),
    in ``<home>/services.json``, written whole (temp file and rename) so a reader never sees half."""
    import json
    import socket

    path = home / SERVICES
    doc = {"pid": os.getpid(), "host": socket.gethostname(), "services": services}
    temp = path.with_name(f".{SERVICES}.{os.getpid()}")
    temp.write_text(json.dumps(doc, indent=1) + "\n")
    temp.replace(path)
    return path


def withdraw_services(path: Path) -> None:
    """Remove the announcement when make run stops, if it is still this process's."""
    import json

    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()


def make_run_services() -> dict[str, dict[str, Any]]:
    """The servers make run announced on this instance, while its supervisor and each server live (an
    announcement left by a make run that was killed names nothing)."""
    import json
    import socket

    home = _home_path()
    try:
        doc = json.loads((home / SERVICES).read_text()) if home is not None else None
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("host") != socket.gethostname() or not _alive(doc.get("pid")):
        return {}
    services = doc.get("services")
    if not isinstance(services, dict):
        return {}
    return {
        name: svc
        for name, svc in services.items()
        if isinstance(svc, dict) and isinstance(svc.get("url"), str) and _alive(svc.get("pid"))
    }


def make_run_url(name: str, *, say: bool = True) -> str | None:
    """make run's server ``name`` (exchange, sparring, ledger), when it is up; said once on stderr."""
    import sys

    service = make_run_services().get(name)
    if service is None:
        return None
    url = str(service["url"]).rstrip("/")
    if say and name not in _announced:
        _announced.add(name)
        print(f"using make run's {SERVICE_NAMES.get(name, name)} at {url}", file=sys.stderr)
    return url


def make_run_serves(name: str, host: str, port: int, **same: object) -> str | None:
    """make run's server ``name`` when it is the one at ``host:port`` and started as ``same`` asks (its
    seed, its markets): a serve command then has nothing to start."""
    from urllib.parse import urlsplit

    service = make_run_services().get(name)
    if service is None or service.get("pid") == os.getpid():  # make run's server itself, starting
        return None
    parts = urlsplit(str(service["url"]))
    if (parts.hostname, parts.port) != (host, port):
        return None
    if any(key in service and service[key] != value for key, value in same.items()):
        return None
    return str(service["url"]).rstrip("/")


def wait_beside(url: str, what: str) -> int:
    """What a serve command does when make run already serves it on its port: says so, and stays until
    it is stopped (Ctrl-C, or the ``kill`` of a script that started it in the background), so a script
    written for either case runs as written."""
    import signal
    import sys

    # Ctrl-C or a kill's SIGTERM, even when a shell started it in the background with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        print(
            f"make run's {what} already serves {url}: using it (nothing else is started here); Ctrl-C "
            "ends this",
            file=sys.stderr,
            flush=True,
        )
        while True:
            signal.pause()
    except KeyboardInterrupt:
        return 0
