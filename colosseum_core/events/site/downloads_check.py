"""``colosseum verify`` on a built site: every event's downloads are there and agree (the events
audit's site tasks; what they hold is ``downloads``).

On any copy of the site, from the event's downloads alone: every table its kind publishes, its
``recipes.parquet`` (the recipes of the rules its manifest and standings name), a chess event's
``chess_white_clusters.parquet`` (White's share's clusters in the bootstrap's order: the order the
game pairs first appear in ``chess_games``) and a Solve-or-Object event's bank (``soo_bank.json``,
whose SHA-256 must be the manifest's, ``soo_bank.parquet`` and ``soo_items.parquet``) are there; the
recipes and the clusters are what the tables give, White's share and its interval re-derive from the
clusters, every reply is to an item of the event, and the bank's rows are the frozen file's.

When the site lives in a record (its ``site/``): every table download is the record's file
byte for byte, and every derived one what the record gives now.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import polars as pl

from colosseum_core.events.arena import EVENTS
from colosseum_core.events.site.build import DOWNLOADED
from colosseum_core.events.site.downloads import (
    RECIPES,
    SOO_BANK,
    SOO_BANK_FILE,
    SOO_ITEMS,
    WHITE_CLUSTERS,
    bank_downloads,
    event_downloads,
    event_recipes,
    white_clusters,
)
from colosseum_core.statistics.bootstrap import BootstrapSpec, ratio_intervals
from colosseum_core.verify.canonical import frame_difference
from colosseum_core.verify.reading import audit_record
from colosseum_core.verify.report import Outcome
from colosseum_core.verify.workers import guarded

# An event's download, wherever the events board lives in the site.
EVENT_FILE: Final = re.compile(
    r"^(?P<folder>(?:[^/]+/)*events/(?P<event>[0-9a-z][0-9a-z._-]*)/)downloads/"
    r"(?P<name>[a-z][a-z0-9_]*)\.(?P<ext>parquet|json)$"
)
# What each kind of event publishes beside its tables.
DERIVED: Final[Mapping[str, tuple[str, ...]]] = {
    "chess": (f"{RECIPES}.parquet", f"{WHITE_CLUSTERS}.parquet"),
    "solve-or-object": (f"{RECIPES}.parquet", SOO_BANK_FILE, f"{SOO_BANK}.parquet", f"{SOO_ITEMS}.parquet"),
    "challenge": (f"{RECIPES}.parquet",),
}


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
        kind = manifest["kind"]
        wanted = [f"{t}.parquet" for t in DOWNLOADED[kind]] + list(DERIVED[kind])
        for file in wanted:
            if file not in files:
                out.problems.append(
                    f"{folder}downloads/{file}: missing from the site ({kind} events publish it)"
                )
        frames = {f.removesuffix(".parquet"): read(f) for f in files if f.endswith(".parquet")}
        _agree(out, folder, manifest, frames, files, root)
        if record is not None:
            _as_recorded(out, folder, manifest, files, root, record)
        out.count("events_downloads_checked")

    guarded(out, f"{folder}downloads", run)
    return out


def _differs(out: Outcome, name: str, stored: pl.DataFrame, wanted: pl.DataFrame, what: str) -> None:
    if (problem := frame_difference(name, stored, wanted, what)) is not None:
        out.problems.append(problem)


def _agree(
    out: Outcome,
    folder: str,
    manifest: Mapping[str, Any],
    frames: Mapping[str, pl.DataFrame],
    files: Mapping[str, str],
    root: Path,
) -> None:
    kind, event = manifest["kind"], manifest["event"]
    where = f"{folder}downloads/"
    if RECIPES in frames:
        _differs(
            out,
            f"{where}{RECIPES}.parquet",
            frames[RECIPES],
            event_recipes(manifest, frames),
            "the recipes of the rules the event's manifest and standings name",
        )
    if kind == "chess" and WHITE_CLUSTERS in frames and "chess_games" in frames:
        clusters = frames[WHITE_CLUSTERS]
        _differs(
            out,
            f"{where}{WHITE_CLUSTERS}.parquet",
            clusters,
            white_clusters(event, frames["chess_games"]),
            "the game pairs in the order chess_games first gives them",
        )
        _white_share(out, where, manifest, clusters, frames.get("chess_fit"))
    if kind == "solve-or-object":
        _bank(out, where, manifest, frames, files, root)


def _white_share(
    out: Outcome, where: str, manifest: Mapping[str, Any], clusters: pl.DataFrame, fits: pl.DataFrame | None
) -> None:
    """White's share and its interval from the published clusters, in their published order."""
    if fits is None or clusters.height == 0:
        return
    ordered = clusters.sort("cluster_index")
    spec = BootstrapSpec(
        seed=manifest["seeds"]["bootstrap"], replicates=manifest["ratings"]["bootstrap_replicates"]
    )
    again = ratio_intervals(
        ordered["white_points_twice"].to_numpy().reshape(-1, 1),
        ordered["games"].to_numpy().reshape(-1, 1),
        2,
        spec,
    )
    [fit] = fits.filter(pl.col("fit") == "all_games").iter_rows(named=True)
    for field, value in (
        ("white_share", again.point[0]),
        ("white_low", again.low[0]),
        ("white_high", again.high[0]),
    ):
        wanted = round(float(value), 4) if np.isfinite(value) else None
        if fit[field] != wanted:
            out.problems.append(
                f"{where}chess_fit.parquet fit all_games field {field}: {fit[field]!r}, the clusters of "
                f"{where}{WHITE_CLUSTERS}.parquet in their order give {wanted!r}"
            )


def _bank(
    out: Outcome,
    where: str,
    manifest: Mapping[str, Any],
    frames: Mapping[str, pl.DataFrame],
    files: Mapping[str, str],
    root: Path,
) -> None:
    frozen = manifest["bank"]
    if SOO_BANK_FILE in files:
        digest = hashlib.sha256((root / files[SOO_BANK_FILE]).read_bytes()).hexdigest()
        if digest != frozen["sha256"]:
            out.problems.append(
                f"{where}{SOO_BANK_FILE}: hashes to {digest}, but the event froze bank {frozen['sha256']}"
            )
            return
    items = frames.get(SOO_ITEMS)
    if items is not None:
        if items.sort("position")["item_id"].to_list() != list(frozen["items"]):
            out.problems.append(f"{where}{SOO_ITEMS}.parquet: not the manifest's items in the order asked")
        replies = frames.get("soo_replies")
        if replies is not None:
            known = {(r["item_id"], r["pair_id"], r["role"]) for r in items.iter_rows(named=True)}
            strays = [
                r
                for r in replies.select("contender", "item_id", "pair_id", "role").iter_rows(named=True)
                if (r["item_id"], r["pair_id"], r["role"]) not in known
            ]
            for r in strays[:5]:
                out.problems.append(
                    f"{where}soo_replies.parquet contender {r['contender']} item {r['item_id']}: not an item "
                    f"of {where}{SOO_ITEMS}.parquet"
                )
    try:
        given = {d.name.removeprefix("downloads/"): d for d in bank_downloads(manifest["event"], manifest)}
    except (OSError, ValueError) as exc:
        out.notes.append(f"{where}: the bank's rows were not re-read from the bank file ({exc})")
        return
    for file in (f"{SOO_BANK}.parquet", f"{SOO_ITEMS}.parquet"):
        if file in files and (root / files[file]).read_bytes() != given[file].data:
            stored = pl.read_parquet(root / files[file])
            _differs(
                out,
                f"{where}{file}",
                stored,
                pl.read_parquet(io.BytesIO(given[file].data)),
                "the rows the frozen bank file gives",
            )


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
    kind = manifest["kind"]
    wanted = {
        f"{t}.parquet": tables.read_bytes(t, event) for t in DOWNLOADED[kind] if tables.exists(t, event)
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
