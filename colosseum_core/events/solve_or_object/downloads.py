"""What a Solve-or-Object event publishes beside its tables (COLOSSEUM-EVENT-DOWNLOADS-1,
``events.site.downloads``): its bank as the event froze it, ``soo_bank.json`` (the file's exact
bytes, whose SHA-256 the manifest names), ``soo_bank.parquet`` (one row per pair) and
``soo_items.parquet`` (the event's items in the order they were asked, with their answers and
defects); and their check on a site's copy: the bank file hashes to the frozen SHA-256, the items
are the manifest's in order, every reply is to one of them, and the bank's rows are the file's.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from colosseum_core.events.kind import DownloadsCopy
from colosseum_core.events.site.downloads import EVENT_DOWNLOADS, Download
from colosseum_core.events.site.downloads_check import differs
from colosseum_core.record import with_ids
from colosseum_core.record.tables import parquet_bytes
from colosseum_core.verify.report import Outcome

SOO_BANK_FILE: Final = "soo_bank.json"
SOO_BANK, SOO_ITEMS = "soo_bank", "soo_items"
BANK_SCHEMA: Final[dict[str, pl.DataType]] = {
    "bank": pl.String(),
    "bank_sha256": pl.String(),
    "position": pl.Int64(),  # the pair's place in the bank's file, from 1
    "pair_id": pl.String(),
    "topic": pl.String(),
    "statement": pl.String(),
    "answer_type": pl.String(),
    "answer": pl.String(),
    "reference_program": pl.String(),
    "twin_statement": pl.String(),
    "edit_start": pl.Int64(),  # the edit, in the sound statement's characters: [start, end) → replacement
    "edit_end": pl.Int64(),
    "replacement": pl.String(),
    "defect_class": pl.String(),
    "explanation": pl.String(),
    "certificate": pl.String(),  # JSON, or null
    "downloads": pl.String(),
}
ITEM_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "position": pl.Int64(),  # the order the event asks its items in, from 1
    "item_id": pl.String(),
    "pair_id": pl.String(),
    "role": pl.String(),
    "statement": pl.String(),
    "answer_type": pl.String(),
    "answer": pl.String(),
    "defective": pl.Boolean(),
    "defect_class": pl.String(),
    "edit_start": pl.Int64(),  # the edit's place in the twin's own statement: [start, end)
    "edit_end": pl.Int64(),
    "bank_sha256": pl.String(),
    "downloads": pl.String(),
}


def bank_downloads(event: str, manifest: Mapping[str, Any]) -> list[Download]:
    """The bank as the event froze it: its file's exact bytes (refused unless they hash to the
    manifest's SHA-256), one row per pair, and the event's items in the order asked."""
    from colosseum_core.events.solve_or_object.bank import load_bank
    from colosseum_core.events.solve_or_object.run import DEFAULT_CONTENDERS

    base = (
        DEFAULT_CONTENDERS.parent
    )  # where a manifest names its bank file from, as the event's audit reads it

    frozen = manifest["bank"]
    path = base / frozen["file"]
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != frozen["sha256"]:
        raise ValueError(
            f"event {event} manifest field bank.sha256: {frozen['sha256']}, but {frozen['file']} hashes to "
            f"{digest} (the bank changed since the event froze it)"
        )
    bank = load_bank(path, root=base)
    raw = {p["pair_id"]: p for p in json.loads(data)["pairs"]}
    pairs = [
        {
            "bank": bank.name,
            "bank_sha256": digest,
            "position": position,
            "pair_id": pair.pair_id,
            "topic": pair.topic,
            "statement": pair.sound.statement,
            "answer_type": pair.sound.answer_type,
            "answer": pair.sound.answer,
            "reference_program": pair.reference_program,
            "twin_statement": pair.twin.statement,
            "edit_start": raw[pair.pair_id]["twin"]["edit"]["start"],
            "edit_end": raw[pair.pair_id]["twin"]["edit"]["end"],
            "replacement": raw[pair.pair_id]["twin"]["edit"]["replacement"],
            "defect_class": pair.twin.defect_class,
            "explanation": pair.explanation,
            "certificate": json.dumps(pair.twin.certificate, sort_keys=True)
            if pair.twin.certificate
            else None,
            "downloads": EVENT_DOWNLOADS,
        }
        for position, pair in enumerate(bank.pairs, start=1)
    ]
    items = []
    for position, item_id in enumerate(frozen["items"], start=1):
        item = bank.item(item_id)
        items.append(
            {
                "event": event,
                "position": position,
                "item_id": item.item_id,
                "pair_id": item.pair_id,
                "role": item.role,
                "statement": item.statement,
                "answer_type": item.answer_type,
                "answer": item.answer,
                "defective": item.defective,
                "defect_class": item.defect_class,
                "edit_start": item.edit_start,
                "edit_end": item.edit_end,
                "bank_sha256": digest,
                "downloads": EVENT_DOWNLOADS,
            }
        )
    return [
        Download(f"downloads/{SOO_BANK_FILE}", SOO_BANK_FILE, data),
        Download(
            f"downloads/{SOO_BANK}.parquet",
            SOO_BANK,
            parquet_bytes(with_ids(pl.DataFrame(pairs, schema=BANK_SCHEMA, orient="row"))),
        ),
        Download(
            f"downloads/{SOO_ITEMS}.parquet",
            SOO_ITEMS,
            parquet_bytes(with_ids(pl.DataFrame(items, schema=ITEM_SCHEMA, orient="row"))),
        ),
    ]


def downloads(manifest: Mapping[str, Any], frames: Mapping[str, pl.DataFrame]) -> list[Download]:
    return bank_downloads(manifest["event"], manifest)


def check_downloads(out: Outcome, copy: DownloadsCopy) -> None:
    """The bank file is the one the event froze, its items the manifest's and every reply to one of
    them, and the bank's rows the ones the frozen file gives."""
    where, manifest, frames, files, root = copy.where, copy.manifest, copy.frames, copy.files, copy.root
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
            differs(
                out,
                f"{where}{file}",
                stored,
                pl.read_parquet(io.BytesIO(given[file].data)),
                "the rows the frozen bank file gives",
            )
