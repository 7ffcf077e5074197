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

from colosseum_dagster.cli.common import UserError

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
    return _instances[home]


def refuse_a_partition_in_flight(instance: Any, job: Any, key: str, root: Path) -> dict[str, str]:
    """A user error naming the run (and who started it) that writes ``job``'s arena's partition ``key``
    now; else the tags this command's run carries, so that others can name it in turn."""
    from colosseum_dagster.resources import ARENA_TAG, ARENAS_BY_NAME, cli_run_tags, partition_in_flight

    arena = ARENAS_BY_NAME.get(job.tags.get(ARENA_TAG))
    if arena is not None:
        writer = partition_in_flight(instance, arena, key, root)
        if writer is not None:
            raise UserError(f"{arena.partition} {key} is being written by {writer}; not started")
    return cli_run_tags(_command)
