"""The built site as a Hugging Face dataset (COLOSSEUM-SITE-DATASET-1): its Parquet downloads, where
the boards put them, named by a dataset card (``README.md`` at the site's root) whose YAML configs
list every file, so ``datasets.load_dataset(<site folder>, <config>)`` reads the site as it stands.

A config is one download table of one arena's board: ``<board>/data/<table>.parquet`` and
``<board>/<…>/downloads/<table>.parquet`` are ``<board>_<table>``; the files of a folder under
``data/`` or ``downloads/`` (one per card, epoch or event) are ``<board>_<folder>``. A table with no
rows is named in the card's prose but is no config (``datasets`` refuses a split without data), and
files of one table whose columns differ are split into one config per shape, each named by its
first file, so every config loads. The card is the site's own file, written again by ``verify``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Final

import polars as pl

from colosseum_core.exports.hf import dataset_card, rule_versions

SITE_DATASET: Final = "COLOSSEUM-SITE-DATASET-1"
DATASET_CARD: Final = "README.md"
_DOWNLOAD_FOLDERS: Final = ("data", "downloads")
_ABOUT: Final = (
    f"The public boards' downloads ({SITE_DATASET}): every Parquet file the boards publish, one config",
    "per table, one file per card, epoch or event where the board splits it. Each board's pages say",
    "what every column means and how its numbers re-derive. Load one with:",
)


def _config(path: str, folders: Collection[str]) -> str | None:
    """The config a site file belongs to, or None when it is no download of a board."""
    parts = path.split("/")
    if parts[0] not in folders or not path.endswith(".parquet"):
        return None
    at = next((i for i, p in enumerate(parts) if p in _DOWNLOAD_FOLDERS), None)
    if at is None:
        return None
    rest = parts[at + 1 :]
    name = "_".join(rest[:-1]) if len(rest) > 1 else rest[0].removesuffix(".parquet")
    return re.sub(r"\W+", "_", f"{parts[0]}_{name}").strip("_")


def site_dataset_card(
    site: Path, folders: Sequence[str], *, vouched: Collection[str] | None = None
) -> bytes | None:
    """The dataset card of the boards' downloads at ``site`` (``folders``: the boards' folders;
    ``vouched``: only these files are read), or None when the site has no download yet."""
    files = sorted(
        p.relative_to(site).as_posix()
        for folder in folders
        if (site / folder).is_dir()
        for p in (site / folder).rglob("*.parquet")
        if p.is_file()
    )
    grouped: dict[str, list[str]] = {}
    for name in files:
        if vouched is not None and name not in vouched:
            continue
        config = _config(name, folders)
        if config is not None:
            grouped.setdefault(config, []).append(name)
    if not grouped:
        return None
    configs: dict[str, int] = {}
    paths: dict[str, list[str]] = {}
    empty: list[str] = []
    for config, names in grouped.items():
        shapes: dict[tuple[tuple[str, str], ...], list[str]] = {}
        for name in names:
            shape = tuple((c, str(t)) for c, t in pl.read_parquet_schema(site / name).items())
            shapes.setdefault(shape, []).append(name)
        for index, shaped in enumerate(shapes.values()):
            named = config if index == 0 else f"{config}_{index + 1}"
            rows = sum(pl.scan_parquet(site / n).select(pl.len()).collect().item() for n in shaped)
            if rows == 0:
                empty.append(named)
                continue
            configs[named], paths[named] = rows, shaped
    if not configs:
        return None
    versions = rule_versions(site / n for names in paths.values() for n in names)
    card = dataset_card(
        "The Colosseum's public boards",
        configs,
        empty,
        versions,
        paths=paths,
        about=_ABOUT,
        folder=".",
        written_by=SITE_DATASET,
    )
    return card.encode("utf-8")
