"""The record's sealed tables as a Hugging Face dataset folder, which ``datasets.load_dataset`` reads
as it stands (no loading script):

::

    <out>/README.md                                  the dataset card: YAML configs, licence, prose
    <out>/data/<arena>_<table>/<unit>.parquet        the sealed file itself, one per card/epoch/event

One config per table, one ``train`` split each (a card's, epoch's or event's id is no split name:
``datasets`` wants ``\\w+``), the unit in a column every table already has. The Parquet bytes are the
record's own, copied, so their SHA-256 is the one the seal holds. A table with no rows yet is named in
the card's prose but is no config: ``datasets`` refuses a split without data.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import polars as pl
import yaml

from colosseum_core.exports import EXPORTS_RULES
from colosseum_core.record.layout import ArenaRecord, Record

# A rule's version as the record writes it: COLOSSEUM-SCORING-2.1, CHESS-GAME-1, SOO-STANDINGS-1 ...
_RULE = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d+(?:\.\d+)*\b")
CARD_LICENSE = {
    "license": "other",
    "license_name": "colosseum-record",
}


@dataclasses.dataclass(frozen=True)
class TableFiles:
    """One table's sealed files: ``files`` as (unit, path)."""

    config: str
    arena: str
    table: str
    files: tuple[tuple[str, Path], ...]


@dataclasses.dataclass(frozen=True)
class Dataset:
    folder: Path
    configs: dict[str, int]  # config -> rows
    empty: tuple[str, ...]
    versions: tuple[str, ...]


def sealed_tables(record: Record, arenas: Iterable[ArenaRecord]) -> list[TableFiles]:
    """Every table of every arena the record holds, with the files of its sealed partitions only
    (an open unit may still change: it is no download)."""
    found = []
    for arena in arenas:
        tables = record.tables(arena)
        sealed = {seal.partition for seal in record.seals(arena).seals()}
        for table in tables.tables():
            files = tuple(
                (unit, Path(str(tables.path(table, unit))))
                for unit in tables.partitions(table)
                if unit in sealed
            )
            if files:
                found.append(TableFiles(f"{arena.name}_{table}", arena.name, table, files))
    return found


def rule_versions(paths: Iterable[Path]) -> list[str]:
    """Every rule's version the Parquet files at ``paths`` name in their rules columns."""
    seen: set[str] = set()
    for path in paths:
        schema = pl.read_parquet_schema(path)
        columns = [
            c
            for c, t in schema.items()
            if t == pl.String and (c.endswith(("rules", "_format", "prompts")) or c == "formula")
        ]
        if not columns:
            continue
        for column in columns:
            for value in pl.read_parquet(path, columns=[column])[column].drop_nulls().unique():
                seen.update(_RULE.findall(value))
    return sorted(seen)


RECORD_ABOUT = (
    "Each config is one table of the sealed record, one Parquet file per sealed unit (a forecasting",
    "card, a debate epoch, an event), the very bytes the unit's seal hashes. Load one with:",
)


def dataset_card(
    title: str,
    configs: Mapping[str, int],
    empty: Sequence[str],
    versions: Sequence[str],
    *,
    paths: Mapping[str, Sequence[str]] | None = None,
    about: Sequence[str] = RECORD_ABOUT,
    folder: str = "<this folder>",
    written_by: str = EXPORTS_RULES,
) -> str:
    """A dataset card (README.md) whose YAML names every config's files: ``paths`` (relative to the
    folder, per config; by default ``data/<config>/*.parquet``), one ``train`` split each."""
    head = {
        "pretty_name": title,
        **CARD_LICENSE,
        "language": ["en"],
        "tags": ["evaluation", "llm-arena", "forecasting", "debate", "chess"],
        "configs": [
            {
                "config_name": c,
                "data_files": [
                    {"split": "train", "path": list(paths[c]) if paths else f"data/{c}/*.parquet"}
                ],
            }
            for c in configs
        ],
    }
    example = next(iter(configs), "CONFIG")
    lines = [
        "---",
        yaml.safe_dump(head, sort_keys=False, allow_unicode=True).rstrip(),
        "---",
        "",
        f"# {title}",
        "",
        *about,
        "",
        "```python",
        "from datasets import load_dataset",
        f'ds = load_dataset("{folder}", "{example}", split="train")',
        "```",
        "",
        "## Licence",
        "",
        "`license: other` until the record's own licence is chosen (the code that wrote it is",
        "Apache-2.0). Questions and market texts are quoted verbatim from the exchanges they came",
        "from, under those exchanges' terms.",
        "",
        "## Method versions",
        "",
        f"Written by {written_by}. The rules each row was produced under, as the rows name them:",
        "",
        *(f"- `{v}`" for v in versions),
        "",
        "## Configs",
        "",
        *(f"- `{c}`: {rows} rows" for c, rows in configs.items()),
    ]
    if empty:
        lines += ["", "No rows yet (so not configs): " + ", ".join(f"`{c}`" for c in empty)]
    return "\n".join(lines) + "\n"


def write_dataset(
    tables: Sequence[TableFiles], out: Path, *, title: str = "The Colosseum's record"
) -> Dataset:
    """Lay ``tables`` out at ``out``, replacing what was there whole: written beside it, then
    swapped in, so a reader never sees half a dataset."""
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.building-{uuid.uuid4().hex[:8]}")
    old = out.with_name(f".{out.name}.old-{uuid.uuid4().hex[:8]}")
    try:
        configs: dict[str, int] = {}
        empty = []
        for t in tables:
            rows = sum(pl.scan_parquet(p).select(pl.len()).collect().item() for _, p in t.files)
            if rows == 0:
                empty.append(t.config)
                continue
            folder = staging / "data" / t.config
            folder.mkdir(parents=True)
            for unit, path in t.files:
                shutil.copyfile(path, folder / f"{unit}.parquet")
            configs[t.config] = rows
        versions = rule_versions(p for t in tables for _, p in t.files)
        staging.mkdir(parents=True, exist_ok=True)
        (staging / "README.md").write_text(dataset_card(title, configs, empty, versions), encoding="utf-8")
        if out.exists():
            out.rename(old)
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return Dataset(out, configs, tuple(empty), tuple(versions))
