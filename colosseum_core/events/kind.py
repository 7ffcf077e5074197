"""What the multi-event arena needs to know of a kind of event, as the platform knows an arena
(``colosseum_core.arenas``): its tables in the order its steps write them, which of them seal, its
journals of calls, its part of the audit, its pages on the board and its house players.

A kind is its own package under ``events/`` that exports one ``EventKind`` as ``KIND`` from its
``kind`` module; the registry (``events.kinds``) lists those modules. A kind's module stays light:
it names tables and hands over functions that import the kind's rules only when called, so the
record knows every kind's tables without importing any kind's rules (nor python-chess, the chess
event's optional extra).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    import polars as pl

    from colosseum_core.events.manifest import FrozenManifest
    from colosseum_core.events.site.downloads import Download
    from colosseum_core.providers.house_models import Persona
    from colosseum_core.record.receipts import ReceiptStore
    from colosseum_core.verify.report import Outcome


@dataclasses.dataclass(frozen=True)
class Step:
    """One step of an event after its freeze, in the order an event runs them: the tables it writes
    once (a chess event's games; a challenge event's authoring, admission, … reveal)."""

    name: str
    tables: tuple[str, ...]


class AuditEvent(Protocol):
    """A kind's part of ``colosseum verify`` for one event: ``present`` holds every table of the
    event's kind the record has, read and checked; ``sealed``, whether the event is sealed."""

    def __call__(
        self,
        out: Outcome,
        frozen: FrozenManifest,
        present: Mapping[str, pl.DataFrame],
        receipts: ReceiptStore,
        *,
        sealed: bool,
    ) -> None: ...


# Writes one page of the board: its path under the board, its title and its body.
Page = Callable[[str, str, str], None]
# The board's plain table (``events.site.build.html_table``): caption, head, escaped rows, and the
# numeric columns and header tips by keyword.
HtmlTable = Callable[..., str]
HouseReply = Callable[["Persona", list[tuple[str, str]]], str]
# What a kind publishes beside its tables and the recipes, from the manifest and the tables.
Derive = Callable[[Mapping[str, Any], Mapping[str, "pl.DataFrame"]], Sequence["Download"]]


@dataclasses.dataclass(frozen=True)
class DownloadsCopy:
    """A site's copy of one event's downloads, as a kind's check of what it derives reads it:
    ``where`` is the downloads folder as the site names it, ``frames`` the Parquet downloads by
    table, ``files`` every download's path under ``root`` by its name in the folder."""

    where: str
    manifest: Mapping[str, Any]
    frames: Mapping[str, pl.DataFrame]
    files: Mapping[str, str]
    root: Path


# A kind's check of what it derives, on a site's copy of an event's downloads.
CheckDownloads = Callable[["Outcome", DownloadsCopy], None]


@dataclasses.dataclass(frozen=True)
class ImportedWhenCalled:
    """``module.name``, imported at its first call rather than where the kind is declared: the registry
    reads every kind's description without importing its rules (nor python-chess). A value, not a
    closure, so that verify's worker processes can be handed it."""

    module: str
    name: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(self.module), self.name)(*args, **kwargs)

    @property
    def __name__(self) -> str:
        return f"{self.module}.{self.name}"


def standings_and_scoring(manifest: Mapping[str, Any]) -> list[str]:
    """The rules a kind's standings are made under when its manifest names them as most do: the
    standings' rule and the scoring's."""
    return [manifest["rules"]["standings"], manifest["rules"]["scoring"]]


def derives_nothing(manifest: Mapping[str, Any], frames: Mapping[str, pl.DataFrame]) -> list[Download]:
    return []


def checks_nothing(out: Outcome, copy: DownloadsCopy) -> None:
    return None


@dataclasses.dataclass(frozen=True)
class EventPages:
    """What the events board hands a kind to draw one sealed event's own pages with: ``page`` writes
    one, ``frames`` are the event's tables as published, ``downloads`` the links its standings page
    lists."""

    page: Page
    event: str
    manifest: Mapping[str, Any]
    frames: Mapping[str, pl.DataFrame]
    downloads: Sequence[str]
    html_table: HtmlTable
    medals: Mapping[str, str]


@dataclasses.dataclass(frozen=True)
class Drawn:
    """What a kind's pages tell the board's index: the standings its medals are read from (one row
    per contender, with ``contender`` and ``medal``), what the event played (games, items or tasks)
    and the game pages it wrote."""

    standings: pl.DataFrame
    played: int
    games: int = 0


@dataclasses.dataclass(frozen=True)
class EventKind:
    """A kind of event. ``name`` is the manifest's ``kind``; ``steps`` write its tables once each, in
    order, before the seal; the seal writes ``standings``, and ``sealing`` (one of them) is the table
    without which nothing seals. ``journals``: its journals of calls by name, each with the fields
    that key one call. ``counts``: what its audit counts, in the order a report lists them."""

    name: str
    steps: tuple[Step, ...]
    standings: tuple[str, ...]
    sealing: str
    journals: Mapping[str, tuple[str, ...]]
    counts: tuple[str, ...]
    audit: AuditEvent
    pages: Callable[[EventPages], Drawn]
    # The house players it brings to the sparring server, by family; importing them may be costly
    # (or need an optional extra), so they are asked for only when a server starts.
    houses: Callable[[], Mapping[str, HouseReply]]
    # The behaviour suffixes its house players read (``house-solver-sharp``), beyond the sparring
    # server's own; known without importing them, so a model name parses the same either way.
    house_behaviours: tuple[str, ...] = ()
    # Its downloads beyond its tables (``events.site.downloads``): the versions of the rules its
    # standings are made under (their recipes are published), the files it derives (their names in
    # the event's ``downloads/``), how it derives them and how a site's copy of them is checked.
    recipes: Callable[[Mapping[str, Any]], list[str]] = standings_and_scoring
    derived: tuple[str, ...] = ()
    downloads: Derive = derives_nothing
    check_downloads: CheckDownloads = checks_nothing
    # The recipes (title, what it governs, the recipe in words) of rules only this kind uses, by
    # version, beside the board's shared ones (``events.site.downloads.RECIPE_TEXT``).
    recipe_text: Mapping[str, tuple[str, str, str]] = dataclasses.field(default_factory=dict)
    # The module that wires it in Dagster (exporting ``WIRING``, ``colosseum_dagster.events.wiring``):
    # named, never imported here; empty, a kind the record and the board know but no job runs.
    wiring: str = ""
    # The module of its ``colosseum events <kind>`` commands (exporting ``COMMANDS``,
    # ``colosseum_dagster.cli.events.commands.EventCommands``): named, never imported here; empty, a
    # kind with the shared commands alone (event freeze, event run, standings).
    commands: str = ""

    @property
    def written(self) -> tuple[str, ...]:
        """The tables its steps write once each, in their order."""
        return tuple(t for step in self.steps for t in step.tables)

    @property
    def tables(self) -> tuple[str, ...]:
        """Every table of an event of this kind after its manifest, as the board publishes them."""
        return (*self.written, *self.standings)

    def __post_init__(self) -> None:
        if self.sealing not in self.standings:
            raise ValueError(
                f"event kind {self.name}: its sealing table {self.sealing!r} is not among its standings "
                f"tables {self.standings}"
            )
        if len(set(self.tables)) != len(self.tables):
            raise ValueError(f"event kind {self.name}: a table is named twice in {self.tables}")
