"""What a verification found: counts of everything checked, and every problem, each naming its record.

Some problems are causes: a receipt whose bytes do not hash to its name, a file whose bytes are not
the ones its ledger records or that no decoder can read, a journal whose chain is broken. Whatever
reads such a thing finds problems of its own (a card re-derived from a sweep with a page missing
differs on every question), so the report leads with each cause and lists under it the problems
that follow from it: those that name it, and those of the partitions that read it (``causes.py``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from typing import Any

# How many differences one comparison of one table of one card lists before summarising the rest:
# a card re-derived against the wrong history can differ on every row, and the first lines say why.
MAX_LINES_PER_COMPARISON = 20
OK, FAILED, UNPINNED = "OK", "FAILED", "UNPINNED"


@dataclasses.dataclass(frozen=True)
class Cause:
    """A problem other problems may follow from, and how to know them."""

    problem: str
    # What a problem that follows from it names: a receipt's id, a file's path in the record.
    names: tuple[str, ...]
    # The partitions that read it, by their noun and key (("card", "2026-11-20-1000")).
    partitions: tuple[tuple[str, str], ...] = ()


@dataclasses.dataclass(frozen=True)
class CauseGroup:
    problem: str
    downstream: tuple[str, ...]
    # The partitions that read the cause ("card 2026-11-20-1000").
    readers: tuple[str, ...] = ()

    def document(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "read_by": list(self.readers),
            "downstream_count": len(self.downstream),
            "downstream": list(self.downstream),
        }


@dataclasses.dataclass(frozen=True)
class Signer:
    """Who signed a site, and what (if anything) that was checked against."""

    key_id: str | None
    # What vouches for the signer: "the pinned key", "the arena keys of the record at …"; None: nothing
    # but the site itself (its own keys/arena.pem), so the signer is self-declared.
    anchor: str | None
    trusted: tuple[str, ...] = ()

    @property
    def pinned(self) -> bool:
        return self.anchor is not None

    def document(self) -> dict[str, Any]:
        return {
            "key_id": self.key_id,
            "pinned": self.pinned,
            "anchor": self.anchor,
            "trusted_key_ids": list(self.trusted),
        }

    def describe(self) -> str:
        if self.key_id is None:
            return "signed by no key that could be read"
        if self.pinned:
            return f"signed by arena key {self.key_id}, checked against {self.anchor}"
        return (
            f"signed by key {self.key_id}, UNPINNED: only the site itself declares it (its keys/arena.pem); "
            "pin it with --key <key id> or check it against the record with --record <data dir>"
        )


@dataclasses.dataclass
class VerifyReport:
    """The outcome of ``verify_record`` or ``verify_site``."""

    kind: str  # "record" | "site"
    checked: dict[str, int]
    # Every problem: causes first, then those that follow from none, then those that follow from a cause.
    problems: list[str]
    seconds: float
    path: str = ""
    notes: list[str] = dataclasses.field(default_factory=list)
    cpu_seconds: float = 0.0  # processor time of the work itself, over every worker
    causes: list[CauseGroup] = dataclasses.field(default_factory=list)
    # Counts kept per arena (its seals, missed partitions, journals and their entries).
    per_arena: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    signer: Signer | None = None  # a site's

    def ok(self) -> bool:
        """No problem was found (a site's signer may still be unpinned: see ``verdict``)."""
        return not self.problems

    def verdict(self) -> str:
        """FAILED with any problem; a site whose signer nothing but the site vouches for is UNPINNED;
        else OK."""
        if self.problems:
            return FAILED
        if self.kind == "site" and (self.signer is None or not self.signer.pinned):
            return UNPINNED
        return OK

    def summary(self) -> dict[str, Any]:
        """JSON-ready: what was checked, how long it took, and every problem, causes first."""
        return {
            "kind": self.kind,
            "path": self.path,
            "ok": self.verdict() == OK,
            "verdict": self.verdict(),
            "checked": dict(sorted(self.checked.items())),
            "per_arena": {a: dict(sorted(c.items())) for a, c in sorted(self.per_arena.items())},
            "signer": None if self.signer is None else self.signer.document(),
            "problem_count": len(self.problems),
            "problems": list(self.problems),
            "causes": [c.document() for c in self.causes],
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }


@dataclasses.dataclass
class Outcome:
    """One unit of work's findings; small and picklable, merged by the parent."""

    checked: Counter[str] = dataclasses.field(default_factory=Counter)
    problems: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    cpu_seconds: float = 0.0
    causes: list[Cause] = dataclasses.field(default_factory=list)
    by_arena: Counter[tuple[str, str]] = dataclasses.field(default_factory=Counter)

    def count(self, what: str, n: int = 1) -> None:
        self.checked[what] += n

    def count_for(self, arena: str, what: str, n: int = 1) -> None:
        """Count ``what`` in the totals and in ``arena``'s own counts."""
        self.checked[what] += n
        self.by_arena[(arena, what)] += n

    def cause(self, problem: str, names: Iterable[str], partitions: Iterable[tuple[str, str]] = ()) -> None:
        """A problem that others may follow from (see ``Cause``)."""
        self.problems.append(problem)
        self.causes.append(Cause(problem, tuple(names), tuple(partitions)))

    def merge(self, other: Outcome) -> None:
        self.checked.update(other.checked)
        self.problems.extend(other.problems)
        self.notes.extend(other.notes)
        self.cpu_seconds += other.cpu_seconds
        self.causes.extend(other.causes)
        self.by_arena.update(other.by_arena)


def capped(lines: Iterable[str], what: str, limit: int = MAX_LINES_PER_COMPARISON) -> list[str]:
    """At most ``limit`` lines, then one line counting the rest, so one bad card cannot flood the report."""
    shown: list[str] = []
    more = 0
    for line in lines:
        if len(shown) < limit:
            shown.append(line)
        else:
            more += 1
    if more:
        shown.append(f"{what}: … and {more} more difference(s) like the above")
    return shown
