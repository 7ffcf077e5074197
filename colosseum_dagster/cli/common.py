"""What every command shares: user errors (``errors.UserError``), the record's root, reaching a
server, and run plumbing.

Commands that only need colosseum_core import nothing from Dagster, so they start fast; commands
that run jobs load the same Definitions the UI and the daemon use.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import dataclasses
import datetime as dt
import os
import re
import socket
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from colosseum_core.settings import DATA_ENV, GAMMA_URL_ENV, SPARRING_URL_ENV
from colosseum_dagster.cli.errors import UserError

LISTEN_WAIT_S = 5.0
RAW = argparse.RawDescriptionHelpFormatter
DATA_HELP = f"record root (default ${DATA_ENV} or ./data)"


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped a run: its one line says which run, now marked canceled, and how
    to resume it; ``main`` prints it alone, without a stack, and exits 130."""


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 1-65535."""
    port = int(text) if text.isdigit() else -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1-65535)")
    return port


def refuse_a_taken_port(host: str, port: int, flag: str = "--port") -> None:
    """A user error, before a server is announced, if ``host:port`` cannot be bound (another server
    holds it): the server itself would say so in two lines of its own and exit 3."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server itself binds
            sock.bind((host, port))
    except OSError as exc:
        raise UserError(
            f"cannot serve on {host}:{port}: {exc.strerror or exc} (is another server there?): stop it, "
            f"or pass another {flag}"
        ) from None


def data_home(data: str | None) -> Path:
    """The record's root for a command that may create it; a user error if the path names a file."""
    from colosseum_core.record.storage import data_dir, is_remote

    root = data_dir(data)
    if not is_remote(root) and root.exists() and not root.is_dir():
        raise UserError(
            f"the record's root {root} is a file, not a folder: point --data or ${DATA_ENV} at a folder"
        )
    return root


def record_root(data: str | None) -> Path:
    """The record a command reads; a user error if there is none there, or if it is in the layout
    from before arenas had folders (the message says how to move it)."""
    from colosseum_core.record.layout import LegacyLayoutError, Record

    root = data_home(data)
    if not (root / "warehouse").is_dir():
        raise UserError(
            f"no record at {root} (no warehouse/ directory): run a card or an epoch first (colosseum "
            f"forecast card run latest, or colosseum debate topics current), or point --data or ${DATA_ENV} "
            "at a record"
        )
    try:
        Record(root).check_layout()
    except LegacyLayoutError as exc:
        raise UserError(str(exc)) from None
    return root


def not_a_record_yet(root: Path) -> str | None:
    """Why a record whose warehouse/ holds no table is not one yet (None when it holds one): the one
    answer ``verify`` and ``board build`` give it, before anything slow."""
    from colosseum_core.record.layout import Record
    from colosseum_core.record.storage import is_remote

    if is_remote(root) or Record(root).holds_a_table():
        return None
    return (
        f"{root} is not a record yet: its warehouse/ holds no table of any arena; run a card, an epoch "
        "or an event first (e.g. colosseum forecast card run latest)"
    )


def listening(url: str, what: str, remedy: str) -> None:
    """Refuse to start a run against a server that is not there: it would only record failures."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{url} is not an http(s) URL for the {what}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    # A server started a moment ago (`colosseum exchange serve &`) gets a few seconds to listen.
    deadline = time.monotonic() + LISTEN_WAIT_S
    while True:
        try:
            with socket.create_connection((parts.hostname, port), timeout=3):
                return
        except ConnectionRefusedError:
            if time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            raise UserError(f"nothing is listening at {url}: {remedy}") from None
        except OSError as exc:
            raise UserError(f"cannot reach {url} ({exc}): {remedy}") from None


def utc(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} needs a UTC offset, e.g. 2026-11-29T10:00:00Z")
    return value.astimezone(dt.UTC)


def sweep_progress() -> Any:
    def report(progress: Any) -> None:
        stream = sys.stderr
        stream.write(
            f"\r  pages {progress.pages:>5}  requests {progress.requests:>5}  markets {progress.markets:>7}"
        )
        stream.flush()

    return report


@contextlib.contextmanager
def exchange_for_run(exchange: str | None, seed: int, markets: int) -> Iterator[str]:
    """The exchange URL a run should use: ``exchange``, else $COLOSSEUM_GAMMA_URL, else make run's,
    else a simulated exchange started in a child process (``simulated`` asks for one)."""
    from colosseum_dagster.cli.instance import make_run_url

    url = (
        None
        if exchange == "simulated"
        else exchange or os.environ.get(GAMMA_URL_ENV) or make_run_url("exchange")
    )
    if url:
        listening(
            url,
            "exchange",
            "start `colosseum exchange serve`, or pass --exchange "
            "(`--exchange simulated` starts one for the run)",
        )
        yield url
        return
    from colosseum_standins.simulated_exchange import exchange_process

    # Not waited for: it starts while the command loads Dagster, and its socket already listens.
    with exchange_process(seed=seed, markets=markets, wait_ready=False) as server:
        yield server.url


@contextlib.contextmanager
def sparring_for_run(*, arenas: Iterable[str] | None = None) -> Iterator[str]:
    """The house players' server: the configured one, else make run's, else one started in-process
    for the run, with the house players the arenas bring (``arenas.sparring_houses``): only those of
    ``arenas`` (by record name) when named, as a card or an epoch asks only its own arena's, which
    saves importing them all."""
    from colosseum_dagster.cli.instance import make_run_url

    url = os.environ.get(SPARRING_URL_ENV) or make_run_url("sparring")
    if url:
        listening(
            url,
            "sparring server",
            f"start `colosseum sparring serve`, or unset ${SPARRING_URL_ENV} to run one in-process",
        )
        yield url
        return
    from colosseum_core.arenas import sparring_houses
    from colosseum_standins.sparring import running_sparring

    # Not waited for as it stops: the command is about to end (a fifth of a second saved).
    with running_sparring(houses=sparring_houses(arenas), join_on_exit=False) as base_url:
        yield base_url


def dagster_instance() -> Any:
    """make run's instance ($DAGSTER_HOME, else the checkout's .dagster_home/), or a throw-away one
    under ``colosseum --ephemeral-instance``."""
    from colosseum_dagster.cli.instance import shared_instance

    return shared_instance()


def resource_config(data: Path, gamma_url: str | None) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "record": {"config": {"data_dir": str(data)}},
        "io_manager": {"config": {"data_dir": str(data)}},
    }
    if gamma_url:
        resources["exchange"] = {"config": {"gamma_url": gamma_url}}
    return resources


@dataclasses.dataclass(frozen=True)
class CatalogRefresh:
    """What ``refresh_catalog`` did: ``rebuilt`` when the catalog was written anew, the views it then
    holds, and why not when it could not be (``success`` false; the command's record is untouched)."""

    success: bool
    rebuilt: bool
    views: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()


def refresh_catalog(root: Path, verbose: bool) -> CatalogRefresh:
    """As a card run does: the catalog's views follow the record's new tables (an arena command calls
    it after its run, whatever the outcome). When the catalog already holds every view a rebuild
    would write, each made the same way, nothing is written: new partitions and columns of a known
    table show through its view without a rebuild.

    The rebuild is the ``duckdb_catalog`` asset's own core function, called in this process rather
    than as a second run (which cost a command half a second of Dagster's run set-up for 0.05 s of
    work), and reported to the instance as the asset's materialization, naming the command, so
    the UI shows when and by whom the catalog was last rebuilt. It writes a temp file and renames it
    into place, so a rebuild by the UI's run at the same moment cannot be torn; should the later
    rename carry an older list of tables, ``catalog_sensor`` asks for the missing view within 30 s.
    """
    import duckdb

    from colosseum_core.arenas import ARENAS
    from colosseum_core.record.catalog import catalog_current
    from colosseum_core.record.catalog import refresh_catalog as rebuild_catalog
    from colosseum_core.record.layout import Record

    record = Record(root)
    if catalog_current(record, ARENAS):
        print("  the DuckDB catalog: every view current, not rebuilt", file=sys.stderr)
        return CatalogRefresh(success=True, rebuilt=False)
    started = time.monotonic()
    try:
        views = rebuild_catalog(record, ARENAS)
    except (duckdb.Error, OSError) as exc:
        why = f"the DuckDB catalog at {record.catalog_path}: not rebuilt: {exc}"
        print(f"  {why}", file=sys.stderr)
        return CatalogRefresh(success=False, rebuilt=False, failures=(why,))
    took = time.monotonic() - started
    _report_catalog_materialization(record.catalog_path, views, took)
    if verbose:
        print(f"  the DuckDB catalog: {len(views)} views rebuilt in {took:.2f}s", file=sys.stderr)
    return CatalogRefresh(success=True, rebuilt=True, views=tuple(views))


def catalog_word(refresh: CatalogRefresh) -> str:
    """How a command's closing line names what became of the catalog."""
    if not refresh.success:
        return "NOT refreshed: " + "; ".join(refresh.failures)
    return "refreshed" if refresh.rebuilt else "current"


def _report_catalog_materialization(catalog_path: Path, views: list[str], took: float) -> None:
    import dagster as dg

    from colosseum_dagster.catalog import catalog_metadata, duckdb_catalog
    from colosseum_dagster.cli.instance import cli_tags
    from colosseum_dagster.resources import started_by

    dagster_instance().report_runless_asset_event(
        dg.AssetMaterialization(
            asset_key=duckdb_catalog.key,
            description="rebuilt by a colosseum command after its run",
            metadata={
                **catalog_metadata(views, catalog_path),
                "seconds": round(took, 3),
                "rebuilt by": started_by(cli_tags()),
            },
        )
    )


def execute_job(job_def: Any, *, instance: Any, **kwargs: Any) -> Any:
    """``job_def.execute_in_process`` as a command runs it: a failure is the result's to report, and
    Ctrl-C ends the run as CANCELED, not FAILURE, and raises :class:`RunInterrupted` naming it.

    Dagster's in-process executor turns Ctrl-C inside a step into an interruption and fails the run
    ("interrupted unexpectedly") unless it was already canceling, which only a UI or daemon can
    mark. The interruption is the user's word, so the run is recorded as canceled right after.
    """
    from dagster._core.utils import make_new_run_id

    from colosseum_dagster.cli.instance import cli_tags

    # Tagged with the command, its pid and host, so others can name it and a killed one is reaped.
    kwargs.setdefault("tags", cli_tags())
    run_id = make_new_run_id()
    try:
        result = job_def.execute_in_process(instance=instance, run_id=run_id, raise_on_error=False, **kwargs)
    except KeyboardInterrupt:
        # Before the executor's own handler was in place (or after it was taken down).
        _mark_canceled(instance, run_id)
        raise RunInterrupted(_interrupted_line(job_def.name, run_id, kwargs.get("partition_key"))) from None
    if _was_interrupted(result):
        _mark_canceled(instance, run_id)
        raise RunInterrupted(_interrupted_line(job_def.name, run_id, kwargs.get("partition_key")))
    return result


def _was_interrupted(result: Any) -> bool:
    from dagster._core.errors import DagsterExecutionInterruptedError
    from dagster._core.execution.plan.objects import ErrorSource

    for event in result.all_events:
        data = event.event_specific_data
        if event.is_step_failure and getattr(data, "error_source", None) == ErrorSource.INTERRUPT:
            return True
        error = getattr(data, "error", None)
        if (
            event.is_failure
            and error is not None
            and error.cls_name
            in (
                "KeyboardInterrupt",
                DagsterExecutionInterruptedError.__name__,
            )
        ):
            return True
    return False


def _mark_canceled(instance: Any, run_id: str) -> None:
    from dagster._core.storage.dagster_run import DagsterRunStatus

    run = instance.get_run_by_id(run_id)
    if run is not None and run.status != DagsterRunStatus.CANCELED:
        instance.report_run_canceled(run, message="Interrupted from the command line (Ctrl-C or SIGTERM).")


def _interrupted_line(job: str, run_id: str, partition: str | None) -> str:
    which = f"{job} for {partition}" if partition else job
    return f"interrupted: run {run_id[:8]} of {which} marked canceled; the same command resumes it"


def run_partition(
    job: str,
    partitions: str,
    key: str,
    root: Path,
    resources: dict[str, Any],
    *,
    verbose: bool,
    step_words: dict[str, str],
    ops: dict[str, Any] | None = None,
) -> Any:
    """Run ``job`` for ``key`` of the dynamic partitions ``partitions`` (added if new) through the real
    Definitions, in-process; then refresh the catalog, whatever the outcome. Refused (naming it) while
    another run writes the partition: the UI's, a sensor's, another command's."""
    from colosseum_dagster.arena_definitions import job_definition
    from colosseum_dagster.cli.instance import refuse_a_partition_in_flight
    from colosseum_dagster.progress import logger_config

    instance = dagster_instance()
    tags = refuse_a_partition_in_flight(instance, job_definition(job), key, root)
    instance.add_dynamic_partitions(partitions, [key])
    result = execute_job(
        job_definition(job),
        instance=instance,
        partition_key=key,
        tags=tags,
        run_config={
            "resources": resources,
            **({"ops": ops} if ops else {}),
            **logger_config(verbose, step_words),
        },
    )
    refresh_catalog(root, verbose)
    return result


_WRAPPED = re.compile(r"Error occurred while (handling output|executing op)")


def failure_messages(result: Any) -> list[str]:
    """Why a run failed, as its steps (or its resources) said it, without the stack."""
    messages = []
    for event in result.all_events:
        if not (event.is_step_failure or event.event_type_value == "RESOURCE_INIT_FAILURE"):
            continue
        error = getattr(event.event_specific_data, "error", None)
        # Dagster wraps an IO manager's refusal ("Error occurred while handling output …") and any
        # exception but a Failure ("Error occurred while executing op …"): the cause is the news.
        while error is not None and error.cause is not None and _WRAPPED.search(error.message):
            error = error.cause
        text = error.message if error is not None else event.message
        if error is not None and error.cls_name in vars(builtins):
            # A bug's "AttributeError: …" or "KeyError: …": the class is half of what it says.
            messages.append(text.strip())
            continue
        # "dagster._core.definitions.events.Failure: card X …": the class is not the news.
        messages.append(text.split(": ", 1)[1].strip() if ": " in text.split("\n")[0] else text.strip())
    return messages


def shown(value: object) -> str:
    """Text from outside (an exchange's, a model's) made safe for a terminal: every control, bidi or
    invisible code point is written as ⟨U+XXXX⟩, as the public board shows it, so an escape sequence
    cannot drive the terminal and an override cannot reorder what the reader sees."""
    from colosseum_core.site.formats import code_point_label, has_hidden, hidden

    text = str(value)
    if not has_hidden(text):
        return text
    return "".join(f"⟨{code_point_label(c)}⟩" if hidden(c) else c for c in text)
