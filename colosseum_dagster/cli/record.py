"""Commands over any arena's record: ``verify``, ``board build``, ``catalog refresh`` and ``sql``."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from colosseum_dagster.cli.arguments import add_record_options, command, command_group
from colosseum_dagster.cli.common import (
    DATA_HELP,
    UserError,
    data_home,
    not_a_record_yet,
    record_root,
    utc,
)


def _refuse_an_unwritable_board(out: Path) -> None:
    """Refuse before building (which verifies the record first, seconds to minutes) if the board
    could not be put at ``out``: ``out`` or the nearest part of its folder that exists is a file, or
    that folder cannot be written in (the build stages the site beside ``out``, then swaps it in)."""
    out = out.absolute()
    if out.exists() and not out.is_dir():
        raise UserError(f"cannot build the board at {out}: it is a file, not a folder")
    existing = next(p for p in out.parents if p.exists())
    if not existing.is_dir():
        raise UserError(f"cannot build the board at {out}: {existing} is a file, not a folder")
    try:
        Path(tempfile.mkdtemp(prefix=f".{out.name}.probe-", dir=existing)).rmdir()
    except OSError as exc:
        raise UserError(
            f"cannot build the board at {out}: {existing} cannot be written in ({exc.strerror or exc})"
        ) from None


# A build takes seconds to a minute: the second waits about one, then is refused naming the first.
BOARD_WAIT_S = 90.0


def cmd_board_build(args: argparse.Namespace) -> int:
    root = record_root(args.data)
    said = not_a_record_yet(root)
    if said is not None:
        raise UserError(said)
    _refuse_an_unwritable_board(Path(args.out))
    # Imported once the record and the output are known good: the arenas take a second or more.
    from colosseum_core.arenas import PUBLIC_SITE
    from colosseum_core.record.layout import Record
    from colosseum_core.record.ledger import file_sha256
    from colosseum_core.record.locks import LockBusy
    from colosseum_core.site.plugin import BuildRefused
    from colosseum_core.site.publish import UnverifiedRecordError, publish_site
    from colosseum_core.trust.bundle import MANIFEST_NAME
    from colosseum_core.trust.keys import KeyStore

    record = Record(root)
    arenas = ", ".join(p.plugin.arena.name for p in PUBLIC_SITE.present(record)) or "none"
    print(f"board: building {args.out} from {root} (arenas: {arenas})", file=sys.stderr)
    try:
        published = publish_site(
            PUBLIC_SITE,
            record,
            KeyStore.for_data(root),
            Path(args.out),
            built_at=args.at or dt.datetime.now(dt.UTC),
            writer="colosseum board build",
            wait_s=args.wait,
            check=True,
        )
    except LockBusy as exc:
        # The UI's public_board_job, or another board build, is writing this record's site.
        raise UserError(f"the public site of {root}: {exc}") from None
    except BuildRefused as exc:
        print(f"board: {exc}", file=sys.stderr)
        return 2
    except UnverifiedRecordError as exc:
        print(f"board: refused: the record at {root} does not verify, so it is not signed:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    problems = published.problems or []
    built = published.report
    report = {
        "site": str(published.site),
        "arenas": built.summary,
        "files": built.files,
        "bytes": built.bytes,
        "manifest_sha256": file_sha256(published.site / MANIFEST_NAME),
        "signed_by": published.arena_key_id,
        "held": {name: held.document() for name, held in published.held.items()},
        "problems": problems,
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(
            f"site {report['site']}: {built.headline}; "
            f"{report['files']} files, manifest {report['manifest_sha256'][:16]}… signed by arena key "
            f"{report['signed_by'][:16]}…; open {published.site / 'index.html'}"
        )
        for problem in problems:
            print(f"PROBLEM {problem}")
    for name, held in published.held.items():
        # One arena's trouble is its own: the others were published; this one is named and fails the command.
        print(f"board: {name}: {held.headline}", file=sys.stderr)
        for problem in held.problems[1:]:
            print(f"  {problem}", file=sys.stderr)
    return 1 if problems or published.held else 0


# Problems that follow from one cause shown under it in the text report (--json lists them all).
SHOWN_DOWNSTREAM = 5
# The exit status of a site that checks but whose signer only the site itself vouches for.
EXIT_UNPINNED = 3


def _pinned_keys(given: list[str]) -> list[str]:
    """``--key`` values as key ids: a key id as it is, or a public key file (PEM) as its key's id."""
    from colosseum_core.verify.site import key_id_from

    try:
        return [key_id_from(value) for value in given]
    except ValueError as exc:
        raise UserError(f"--key: {exc}") from None


def _print_report(report: object, path: str) -> None:
    from colosseum_core.verify.report import OK, VerifyReport

    assert isinstance(report, VerifyReport)
    counts = ", ".join(f"{n:,} {what}" for what, n in report.checked.items())
    verdict = report.verdict()
    if report.problems:
        causes = f" from {len(report.causes)} cause(s) listed first" if report.causes else ""
        verdict = f"FAILED: {len(report.problems)} problem(s){causes}"
    elif verdict != OK:
        verdict = "UNPINNED: every check passed, but nothing outside the site vouches for its signer"
    print(f"verify {path} ({report.kind}): {counts}; {report.seconds:.1f}s; {verdict}")
    by_arena = "; ".join(
        f"{arena} " + ", ".join(f"{n:,} {what}" for what, n in counts_of.items() if n)
        for arena, counts_of in report.per_arena.items()
        if any(counts_of.values())
    )
    if by_arena:
        print(f"per arena: {by_arena}")
    if report.signer is not None:
        print(f"signer: {report.signer.describe()}")
    for note in report.notes:
        print(f"note: {note}")
    grouped = set()
    for cause in report.causes:
        print(f"PROBLEM {cause.problem}")
        if cause.downstream:
            readers = f" (read by {', '.join(cause.readers)})" if cause.readers else ""
            print(f"  and {len(cause.downstream)} problem(s) downstream of it{readers}:")
            for line in cause.downstream[:SHOWN_DOWNSTREAM]:
                print(f"    - {line}")
            if len(cause.downstream) > SHOWN_DOWNSTREAM:
                print(f"    - … {len(cause.downstream) - SHOWN_DOWNSTREAM} more (--json lists every one)")
        grouped |= {cause.problem, *cause.downstream}
    for problem in report.problems:
        if problem not in grouped:
            print(f"PROBLEM {problem}")


def cmd_verify(args: argparse.Namespace) -> int:
    from colosseum_core.record.layout import WAREHOUSE
    from colosseum_core.record.storage import record_path
    from colosseum_core.trust.bundle import ENVELOPE_NAME

    last: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        # At most a line a second per stage, and always the last one, so long audits show life.
        now = time.monotonic()
        if args.quiet or (done < total and now - last.get(stage, 0.0) < 1.0):
            return
        last[stage] = now
        print(f"verify: {stage} {done}/{total}", file=sys.stderr)

    path = record_path(args.path)
    anchor_record = record_path(args.record) if args.record else None
    try:
        # Every refusal the path alone decides comes before the audits are imported (a second or more).
        if not path.exists():
            raise ValueError(f"{path} does not exist")
        if anchor_record is not None and not (anchor_record / WAREHOUSE).is_dir():
            raise ValueError(f"--record {anchor_record}: not a record (it has no warehouse/ directory)")
        if (path / WAREHOUSE).is_dir() and not (path / ENVELOPE_NAME).exists():
            said = not_a_record_yet(path)
            if said is not None:
                raise ValueError(said)
        keys = _pinned_keys(args.key)
        from colosseum_core.arenas import AUDITS, PUBLIC_SITE
        from colosseum_core.verify import verify_path
        from colosseum_core.verify.report import FAILED, OK

        report = verify_path(
            path,
            AUDITS,
            workers=args.workers,
            progress=progress,
            keys=keys,
            record=anchor_record,
            public_site=PUBLIC_SITE,
        )
    except ValueError as exc:
        if args.json:
            print(json.dumps({"path": str(path), "ok": False, "error": str(exc)}, indent=1))
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(report.summary(), indent=1, default=str))
    else:
        _print_report(report, args.path)
    verdict = report.verdict()
    return 0 if verdict == OK else 1 if verdict == FAILED else EXIT_UNPINNED


def cmd_catalog_refresh(args: argparse.Namespace) -> int:
    from colosseum_core.arenas import ARENAS
    from colosseum_core.record.catalog import refresh_catalog
    from colosseum_core.record.layout import Record

    record = Record(record_root(args.data))
    views = refresh_catalog(record, ARENAS)
    print(json.dumps({"catalog": str(record.catalog_path), "views": views}))
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    """One query over the catalog's views, read-only, with the duckdb the project installs."""
    import duckdb

    from colosseum_core.record.catalog import connect_catalog
    from colosseum_core.record.layout import Record

    record = Record(record_root(args.data))
    if not record.catalog_path.exists():
        raise UserError(f"no catalog at {record.catalog_path}: run `colosseum catalog refresh`")
    with connect_catalog(record) as con:
        try:
            result = con.sql(args.query)
        except duckdb.Error as exc:
            raise UserError(f"{type(exc).__name__}: {str(exc).splitlines()[0]}") from None
        if result is None:
            return 0
        if args.json:
            columns = [name for name, *_ in result.description]
            rows = [dict(zip(columns, row, strict=True)) for row in result.fetchall()]
            print(json.dumps(rows, indent=1, default=str))
        else:
            result.show(max_rows=args.max_rows, max_width=200)
    return 0


def cmd_record_migrate(args: argparse.Namespace) -> int:
    """Move a record from the layout before arenas had folders into its arena's folders."""
    from colosseum_core.arenas import ARENAS, LEGACY_ARENA
    from colosseum_core.record.catalog import refresh_catalog
    from colosseum_core.record.layout import Record
    from colosseum_core.record.migrate import MigrationError, migrate_to_arena_folders

    record = Record(data_home(args.data))
    if not record.warehouse.is_dir():
        raise UserError(f"no record at {record.root} (no warehouse/ directory): nothing to migrate")
    # Every writer takes its lock: the record-wide one, waited for, keeps runs out while folders move.
    from colosseum_dagster.resources import RECORD_WIDE_LOCK, RECORD_WIDE_WAIT_S

    with record.locks.hold(
        RECORD_WIDE_LOCK,
        owner=f"migrate-{os.getpid()}",
        purpose="moving the record",
        wait_s=RECORD_WIDE_WAIT_S,
    ):
        try:
            moves = migrate_to_arena_folders(record.root, LEGACY_ARENA)
        except MigrationError as exc:
            raise UserError(str(exc)) from None
        views = refresh_catalog(record, ARENAS) if moves else []
    report = {"data": str(record.root), "moved": [vars(m) for m in moves], "views": views}
    if args.json:
        print(json.dumps(report, indent=1))
    elif moves:
        for move in moves:
            print(f"moved {move.source} -> {move.target}")
        print(f"record {record.root}: {len(moves)} moved into {LEGACY_ARENA.name}/; catalog refreshed")
    else:
        print(f"record {record.root}: already in the arena layout; nothing to move")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    record = command_group(
        sub, "record", "the record itself", "example:\n  colosseum record migrate --data data/"
    )
    migrate = command(
        record,
        "migrate",
        cmd_record_migrate,
        "move a record from the layout before arenas had folders (warehouse/<table>/…) into "
        "warehouse/forecast/…; renames only, no byte changes",
        "examples:\n  colosseum record migrate\n  colosseum record migrate --data /srv/record --json\n"
        "Safe to run again: an interrupted migration is finished, a migrated record is left as it is.",
    )
    add_record_options(migrate)

    board = command_group(sub, "board", "the public board", "example:\n  colosseum board build data/site")
    build = command(
        board,
        "build",
        cmd_board_build,
        "build the static public board of every arena from the record, sign its manifest, re-check it",
        "examples:\n  colosseum board build site/\n  colosseum board build /srv/www/board --json\n"
        "One site for every arena the record holds: a landing page at its root (what each arena "
        "measures, who leads now, the way in), the forecasting board in forecast/, the debate arena's "
        "in debate/, the events' in events/, under one signed manifest. An arena whose record "
        "does not verify (or that may not be released yet: a card with a seat that has neither answered "
        "nor forfeited) is held: its last published pages are kept with a notice naming the problem, "
        "the others are built, and the command exits 1 naming it. Exit 2 when nothing can be published; "
        "exit 1 if the re-read site disagrees with the record.\n"
        "One build at a time per record: a build that finds another (the UI's public_board_job, or "
        "another board build) writing waits --wait seconds, then exits 2 naming it.",
    )
    build.add_argument("out", help="the site directory (replaced whole, atomically)")
    build.add_argument("--data", default=None, help=DATA_HELP)
    build.add_argument(
        "--at", type=utc, default=None, help="build instant (default now); picks the arena key"
    )
    build.add_argument("--json", action="store_true", help="machine-readable summary")
    build.add_argument(
        "--wait",
        type=float,
        default=BOARD_WAIT_S,
        metavar="SECONDS",
        help=f"how long to wait for another build of the record's site (default {BOARD_WAIT_S:g})",
    )

    verify = command(
        sub,
        "verify",
        cmd_verify,
        "recompute and check everything in a record directory or a built site",
        "examples:\n  colosseum verify data/\n  colosseum verify data/site/\n"
        "  colosseum verify downloaded-site/ --key 3f1c…e9 --json\n"
        "  colosseum verify downloaded-site/ --record data/\n"
        "A record: every identifier, receipt, signature, seal and journal of every arena; every verdict "
        "re-derived from its receipts, every settlement, score and board number re-derived. A site: "
        "its signed manifest, its signer, identifiers, signatures, scores and board, and its landing "
        "page written again from the arenas' files. A site's signer is "
        "checked against the arena keys its record publishes (a site in a record's data/site, or "
        "--record) or a pinned key (--key); with neither, only the site vouches for its own key, and "
        "the verdict is UNPINNED (exit 3). Exit 1 naming each failing record, causes first.",
    )
    verify.add_argument("path", help="a record's data directory or a built site's root")
    verify.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="KEY",
        help="the arena key a site must be signed by: its key id (64 hex digits) or its public key "
        "file (PEM, e.g. a trusted copy of keys/arena.pem); repeat for several",
    )
    verify.add_argument(
        "--record",
        default=None,
        metavar="DATA",
        help="check a site's signer against the arena keys this record publishes "
        "(default: the record the site is in, when it is DATA/site)",
    )
    verify.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    verify.add_argument("--json", action="store_true", help="machine-readable report")
    verify.add_argument("--quiet", action="store_true", help="no progress on stderr")

    catalog = command_group(sub, "catalog", "the DuckDB catalog", "example:\n  colosseum catalog refresh")
    refresh = command(
        catalog,
        "refresh",
        cmd_catalog_refresh,
        "rebuild colosseum.duckdb's views over the Parquet record",
        "examples:\n  colosseum catalog refresh\n  colosseum catalog refresh --data /srv/record",
    )
    refresh.add_argument("--data", default=None, help=DATA_HELP)

    sql = command(
        sub,
        "sql",
        cmd_sql,
        "run one SQL query over data/colosseum.duckdb's views (read-only)",
        'examples:\n  colosseum sql "SELECT card, kind, questions FROM forecast.cards"\n'
        "  colosseum sql \"SELECT * FROM forecast.leaderboard WHERE kind = 'CALIBRATION'\" --json\n"
        "Each arena has its schema: forecast.cards, forecast.verdicts, forecast.scores, …\n"
        "(one view per table).",
    )
    sql.add_argument("query", help="one SQL statement")
    add_record_options(sql, json_help="rows as a JSON array of objects")
    sql.add_argument("--max-rows", type=int, default=100, help="rows shown (default 100)")
