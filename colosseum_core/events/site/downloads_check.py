"""``colosseum verify`` on a built site: every event's downloads are there and agree (the events
audit's site tasks; what they hold is ``downloads``).

On any copy of the site, from the event's downloads alone: every table its kind publishes, its
``recipes.parquet`` (the recipes of the rules its manifest and standings name) and what its kind
derives beside them (``EventKind.derived``: a chess event's ``chess_white_clusters.parquet``, a
Solve-or-Object event's bank) are there; the recipes are what the tables give, and the rest is its
kind's check (``EventKind.check_downloads``: the clusters are what the games give and White's share
re-derives from them; every reply is to an item of the event and the bank's rows are the frozen
file's).

When the site lives in a record (its ``site/``): every table download is the record's file
byte for byte, and every derived one what the record gives now.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.kind import DownloadsCopy
from colosseum_core.events.site.build import DOWNLOADED
from colosseum_core.events.site.downloads import RECIPES, event_downloads, event_kind, event_recipes
from colosseum_core.verify.canonical import frame_difference
from colosseum_core.verify.reading import audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import guarded

# An event's download, wherever the events board lives in the site.
EVENT_FILE: Final = re.compile(
    r"^(?P<folder>(?:[^/]+/)*events/(?P<event>[0-9a-z][0-9a-z._-]*)/)downloads/"
    r"(?P<name>[a-z][a-z0-9_]*)\.(?P<ext>parquet|json)$"
)


def event_folders(verified: Sequence[str]) -> dict[str, list[str]]:
    """The events' downloads among a site's files, by the event's folder."""
    found: dict[str, list[str]] = {}
    for name in verified:
        match = EVENT_FILE.match(name)
        if match is not None:
            found.setdefault(match["folder"], []).append(name)
    return found


def check_event_downloads(site: str, folder: str, names: Sequence[str], record: str | None) -> Outcome:
    """One event's downloads: all there, agreeing with each other, and with ``record`` if given."""
    out = Outcome()
    root = Path(site)
    files = {n[len(folder) + len("downloads/") :]: n for n in names}

    def read(file: str) -> pl.DataFrame:
        return pl.read_parquet(root / files[file])

    def run() -> None:
        if "event_manifests.parquet" not in files:
            out.problems.append(f"{folder}downloads/event_manifests.parquet: missing from the site")
            return
        row = read("event_manifests.parquet").row(0, named=True)
        manifest = json.loads(row["manifest"])
        kind = event_kind(manifest)
        # Every table of its kind, the recipes, and what its kind derives beside them.
        wanted = [f"{t}.parquet" for t in DOWNLOADED[kind.name]] + [f"{RECIPES}.parquet", *kind.derived]
        for file in wanted:
            if file not in files:
                out.problems.append(
                    f"{folder}downloads/{file}: missing from the site ({kind.name} events publish it)"
                )
        frames = {f.removesuffix(".parquet"): read(f) for f in files if f.endswith(".parquet")}
        _agree(out, DownloadsCopy(f"{folder}downloads/", manifest, frames, files, root))
        if record is not None:
            _as_recorded(out, folder, manifest, files, root, record)
        out.count("events_downloads_checked")

    guarded(out, f"{folder}downloads", run)
    return out


def differs(out: Outcome, name: str, stored: pl.DataFrame, wanted: pl.DataFrame, what: str) -> None:
    if (problem := frame_difference(name, stored, wanted, what)) is not None:
        out.problems.append(problem)


def _agree(out: Outcome, copy: DownloadsCopy) -> None:
    where, manifest, frames = copy.where, copy.manifest, copy.frames
    if RECIPES in frames:
        differs(
            out,
            f"{where}{RECIPES}.parquet",
            frames[RECIPES],
            event_recipes(manifest, frames),
            "the recipes of the rules the event's manifest and standings name",
        )
    event_kind(manifest).check_downloads(out, copy)


def _as_recorded(
    out: Outcome, folder: str, manifest: Mapping[str, Any], files: Mapping[str, str], root: Path, record: str
) -> None:
    """Every download as the record gives it now, byte for byte."""
    event = manifest["event"]
    audit = audit_record(record)
    tables = audit.tables(EVENTS)
    if audit.seals(EVENTS).get(event) is None:
        out.problems.append(f"{folder}downloads: event {event} is not sealed in the record at {record}")
        return
    kind = event_kind(manifest)
    wanted = {
        f"{t}.parquet": tables.read_bytes(t, event) for t in DOWNLOADED[kind.name] if tables.exists(t, event)
    }
    frames = {t.removesuffix(".parquet"): pl.read_parquet(io.BytesIO(b)) for t, b in wanted.items()}
    recorded = json.loads(frames["event_manifests"]["manifest"][0])
    wanted |= {d.name.removeprefix("downloads/"): d.data for d in event_downloads(recorded, frames)}
    for file, path in sorted(files.items()):
        if file not in wanted:
            out.problems.append(f"{path}: not a download the record at {record} gives for event {event}")
        elif (root / path).read_bytes() != wanted[file]:
            out.problems.append(f"{path}: differs from what the record at {record} gives")
    for file in sorted(set(wanted) - set(files)):
        out.problems.append(
            f"{folder}downloads/{file}: missing from the site (the record at {record} has it)"
        )
