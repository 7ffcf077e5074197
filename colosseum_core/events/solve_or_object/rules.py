"""The Solve-or-Object event's rules, each a version the manifest freezes and every result cites.

- ``SOO_BANK`` (``bank``): the project's own bank of sound problems and defective twins.
- ``SOO_DRAW`` (``draw``): which pairs an event carries, and in what order its items are asked.
- ``SOO_PROMPT`` (``prompt``): what a contender is shown for one item, verbatim.
- ``TASK_REPLY`` (``reading``): how a reply becomes a verdict, an answer or an objection, and
  P(defective): the task events' shared reading (``tasks.reading``).
- ``SOO_SCORING`` (``scoring``): the points of a reply, and its Brier term.
- ``SOO_STANDINGS`` (``standings``): means with pair-clustered intervals, placements and medals.
- ``PLACEMENT`` (``placement``): COLOSSEUM-PLACEMENT-2, every kind's placements and medals
  (``statistics.placement``; a manifest that names none, ``events.manifest.placement_rule``).
"""

from __future__ import annotations

from typing import Final

from colosseum_core.events.tasks.reading import DEFECT_CLASSES, TASK_REPLY
from colosseum_core.statistics.placement import PLACEMENT

__all__ = ["DEFECT_CLASSES", "RULES", "SOUND", "TWIN"]

SOO_BANK: Final = "COLOSSEUM-SOO-BANK-1"
SOO_DRAW: Final = "SOO-DRAW-1"
SOO_PROMPT: Final = "SOO-PROMPT-1"
SOO_SCORING: Final = "SOO-SCORING-1"
SOO_STANDINGS: Final = "SOO-STANDINGS-1"

SOUND: Final = "sound"
TWIN: Final = "twin"

RULES: Final = {
    "bank": SOO_BANK,
    "draw": SOO_DRAW,
    "prompt": SOO_PROMPT,
    "reading": TASK_REPLY,
    "scoring": SOO_SCORING,
    "standings": SOO_STANDINGS,
    "placement": PLACEMENT,
}
