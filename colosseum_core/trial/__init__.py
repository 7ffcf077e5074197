"""A model maker's trial (COLOSSEUM-TRIAL-1): one model, named as the field names it, run as a
CALIBRATION contender against the house field in every arena, each arena's part an ordinary unit of
that arena (a card, an epoch, an event) with its own seal, and one report over them all.

The platform knows no arena: each arena offers a :class:`~colosseum_core.trial.part.TrialPart`
(through ``colosseum_core.arenas.TRIAL_PARTS``; ``registry`` adds those ``$COLOSSEUM_TRIAL_PARTS``
names), and the trial asks each in turn (``report.run_trial``), after ``providers.check`` saw the
model answer; ``prepared``: a part whose arena needs a unit made first (by the wiring).
``entries``: the trial's own entry in the record (a journal: the model, the parts, their
units), from which ``report.rebuild_report`` writes the report again, for ``colosseum trial report``
and the site's trial pages (``colosseum_core.site.trials``).

Imported by: the arenas' trial parts, the arenas' registry, the ``trial`` command, the site's trial
pages, the tests.
"""

from colosseum_core.trial.part import (
    TRIAL,
    JobOutcome,
    PartReport,
    RunJob,
    Standing,
    TrialError,
    TrialPart,
    TrialRequest,
    trial_id,
)

__all__ = [
    "TRIAL",
    "JobOutcome",
    "PartReport",
    "RunJob",
    "Standing",
    "TrialError",
    "TrialPart",
    "TrialRequest",
    "trial_id",
]
