"""What a verification found: counts of everything checked, and every problem, each naming its record."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from typing import Any

# How many differences one comparison of one table of one card lists before summarising the rest:
# a card re-derived against the wrong history can differ on every row, and the first lines say why.
MAX_LINES_PER_COMPARISON = 20


@dataclasses.dataclass
class VerifyReport:
    """The outcome of ``verify_record`` or ``verify_site``."""

    kind: str  # "record" | "site"
    checked: dict[str, int]
    problems: list[str]
    seconds: float
    path: str = ""
    notes: list[str] = dataclasses.field(default_factory=list)
    cpu_seconds: float = 0.0  # processor time of the work itself, over every worker

    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> dict[str, Any]:
        """JSON-ready: what was checked, how long it took, and every problem."""
        return {
            "kind": self.kind,
            "path": self.path,
            "ok": self.ok(),
            "checked": dict(sorted(self.checked.items())),
            "problem_count": len(self.problems),
            "problems": list(self.problems),
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

    def count(self, what: str, n: int = 1) -> None:
        self.checked[what] += n

    def merge(self, other: Outcome) -> None:
        self.checked.update(other.checked)
        self.problems.extend(other.problems)
        self.notes.extend(other.notes)
        self.cpu_seconds += other.cpu_seconds


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
