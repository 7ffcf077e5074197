"""``colosseum export``: the record's sealed units in the field's formats (``colosseum_core/exports``):
Inspect AI eval logs, a Hugging Face dataset folder and Every Eval Ever records.

A platform command: it reaches the arenas through their registry (``colosseum_core.arenas``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from colosseum_dagster.cli.arguments import add_record_options, command
from colosseum_dagster.cli.common import UserError, record_root

FORMATS = ("inspect", "hf", "eee")
EXTRA_HINT = "install the exports extra: pip install -e '.[exports]' (make install does)"


def _formats(text: str) -> tuple[str, ...]:
    asked = tuple(dict.fromkeys(f.strip() for f in text.split(",") if f.strip()))
    unknown = [f for f in asked if f not in FORMATS]
    if unknown or not asked:
        raise argparse.ArgumentTypeError(
            f"unknown format {', '.join(unknown) or repr(text)}: choose from {','.join(FORMATS)}"
        )
    return asked


def _project_version() -> str:
    try:
        return version("colosseum")
    except PackageNotFoundError:
        return "0.1.0"


def cmd_export(args: argparse.Namespace) -> int:
    root = record_root(args.data)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: it is a file, not a folder")
    if "inspect" in args.format:
        try:
            from colosseum_core.exports.inspect_logs import write_logs
        except ImportError:
            raise UserError(f"Inspect logs need inspect-ai: {EXTRA_HINT}") from None
    if "eee" in args.format:
        try:
            import jsonschema  # noqa: F401
        except ImportError:
            raise UserError(f"Every Eval Ever records are checked with jsonschema: {EXTRA_HINT}") from None
    from colosseum_core.arenas import ARENAS, unit_log_exporters
    from colosseum_core.exports.units import ExportError
    from colosseum_core.record.layout import Record

    record = Record(root)
    started = time.monotonic()

    def say(line: str) -> None:
        if not args.quiet:
            print(f"export: {line}", file=sys.stderr)

    report: dict[str, object] = {"record": str(root), "out": str(out.absolute())}
    if "inspect" in args.format or "eee" in args.format:
        logs = []
        try:
            for arena, unit_logs in unit_log_exporters().items():
                before = len(logs)
                logs.extend(unit_logs(record))
                say(f"{arena}: {len(logs) - before} logs from its sealed units")
        except ExportError as exc:
            raise UserError(str(exc)) from None
        if "inspect" in args.format:
            folder = out / "inspect"
            written = []
            for i, log in enumerate(logs, 1):
                written += write_logs([log], folder)
                if i == len(logs) or i % 10 == 0:
                    say(f"inspect: {i}/{len(logs)} logs written")
            # a log this export did not write is an older export's (a unit since re-exported)
            for stale in set(folder.glob("*.eval")) - set(written):
                stale.unlink()
            report["inspect"] = {
                "folder": str(folder),
                "logs": len(written),
                "samples": sum(len(log.samples) for log in logs),
            }
        if "eee" in args.format:
            from colosseum_core.exports.eee import write_records

            folder = out / "eee"
            try:
                records = write_records(logs, folder, version=_project_version())
            except ExportError as exc:
                raise UserError(str(exc)) from None
            say(f"eee: {len(records)} records written")
            report["eee"] = {"folder": str(folder), "records": len(records)}
    if "hf" in args.format:
        from colosseum_core.exports.hf import sealed_tables, write_dataset

        dataset = write_dataset(sealed_tables(record, ARENAS), out / "hf")
        say(f"hf: {len(dataset.configs)} configs, {sum(dataset.configs.values())} rows")
        report["hf"] = {
            "folder": str(dataset.folder),
            "configs": dataset.configs,
            "empty": list(dataset.empty),
            "versions": list(dataset.versions),
        }
    report["seconds"] = round(time.monotonic() - started, 2)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        parts = []
        if "inspect" in report:
            parts.append(f"{report['inspect']['logs']} Inspect logs")  # type: ignore[index]
        if "hf" in report:
            parts.append(f"a dataset of {len(report['hf']['configs'])} configs")  # type: ignore[index]
        if "eee" in report:
            parts.append(f"{report['eee']['records']} Every Eval Ever records")  # type: ignore[index]
        print(f"exported {', '.join(parts)} to {out} in {report['seconds']} s")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    export = command(
        sub,
        "export",
        cmd_export,
        "write the record's sealed cards, epochs and events in the field's formats: Inspect AI eval "
        "logs, a Hugging Face dataset folder, Every Eval Ever records",
        "examples:\n  colosseum export --out exports/\n"
        "  colosseum export --data /srv/record --out exports/ --format inspect --json\n"
        "  inspect view --log-dir exports/inspect      # then open the printed address\n"
        "  python -c \"import datasets; print(datasets.load_dataset('exports/hf', 'events_chess_games'))\"\n"
        "One Inspect log per seat or contender and unit of play (<out>/inspect/*.eval), the sealed "
        "tables as a dataset (<out>/hf: README.md card, data/<arena>_<table>/<unit>.parquet), one "
        "Every Eval Ever record per model and unit (<out>/eee/data/…). Derived files, never part of "
        "the record: export again at any time. Needs the exports extra for Inspect and EEE.",
    )
    export.add_argument("--out", default="exports", help="where to write (default ./exports)")
    export.add_argument(
        "--format",
        type=_formats,
        default=FORMATS,
        metavar="LIST",
        help=f"comma-separated, any of {','.join(FORMATS)} (default all)",
    )
    add_record_options(export)
    export.add_argument("--quiet", action="store_true", help="no progress on stderr")
