"""The challenge event's rules, each a version the manifest freezes and every result cites.

- ``CHALLENGE_AUTHORING`` (``authoring``): the authoring prompt, and how a reply becomes a task.
- ``TASK_VERIFIED`` (``admission``): a submission is admitted when its task is verified (``tasks``).
- ``CHALLENGE_COMMIT`` (``commitments``): every admitted task committed with a salted SHA-256
  before solving starts, revealed after the event closes; and, from version 2, everything the event
  learns before its reveal sealed in the record under the event's key (``sealing``), which the
  reveal publishes. Version 1 kept the tasks in the record in the clear before the reveal; events
  run under it keep it.
- ``CHALLENGE_SOLVING`` (``solving``): the public package and the prompt each solver gets per task.
- ``TASK_REPLY`` (``reading``): a solver's reply read as an answer, an objection or an abstention.
- ``CHALLENGE_REVIEW`` (``review``): an objection no mechanical check decides, before two blinded judges.
- ``CHALLENGE_SCORING`` (``scoring``): solving and authoring points, and their evidence.
- ``CHALLENGE_STANDINGS`` (``standings``): means with task-clustered intervals, placements, medals.
- ``PLACEMENT`` (``placement``): COLOSSEUM-PLACEMENT-2, every kind's placements and medals
  (``statistics.placement``; a manifest that names none, ``events.manifest.placement_rule``).
"""

from __future__ import annotations

from typing import Final

from colosseum_core.events.tasks.reading import TASK_REPLY
from colosseum_core.events.tasks.verification import TASK_VERIFIED
from colosseum_core.statistics.placement import PLACEMENT

CHALLENGE_AUTHORING: Final = "CHALLENGE-AUTHORING-1"
CHALLENGE_COMMIT: Final = "CHALLENGE-COMMIT-2"
CHALLENGE_COMMIT_1: Final = "CHALLENGE-COMMIT-1"
CHALLENGE_SOLVING: Final = "CHALLENGE-SOLVING-1"
CHALLENGE_REVIEW: Final = "CHALLENGE-REVIEW-1"
CHALLENGE_SCORING: Final = "CHALLENGE-SCORING-1"
CHALLENGE_STANDINGS: Final = "CHALLENGE-STANDINGS-1"
COMMIT_DOMAIN: Final = "colosseum/challenge-task"

RULES: Final = {
    "authoring": CHALLENGE_AUTHORING,
    "admission": TASK_VERIFIED,
    "commitments": CHALLENGE_COMMIT,
    "solving": CHALLENGE_SOLVING,
    "reading": TASK_REPLY,
    "review": CHALLENGE_REVIEW,
    "scoring": CHALLENGE_SCORING,
    "standings": CHALLENGE_STANDINGS,
    "placement": PLACEMENT,
}
