"""The debate arena's part of a model maker's trial (COMPELLE-TRIAL-1, ``colosseum_core.trial``).

One trial is one unit of its own record (``arena.DEBATE_TRIALS``, partition ``trial=<trial id>``),
sealed like an epoch and CALIBRATION always: no board, crown or rating of the epochs reads it.

- ``plan``: what the trial plays, frozen once before any game: the first ``TRIAL_MOTIONS`` motions
  of the latest sealed rotation begun, both sides of each under each of ``HOUSE_STRATEGIES``, the
  model against the house debater (both sides argue the same strategy, so the model is what
  differs), the house panel judging;
- ``vote``: the model asked as a judge beside the panel on every game the panel judged, with the
  panel's own prompt and fenced transcript; its vote is recorded and never counted;
- ``derive``: the trial's tables and its manifest (standings with Wilson 95 % intervals, format
  failures by class, refusals, calls, tokens from the receipts' usage, time) from the plan, the
  journals and the receipts alone, which is what ``verify`` runs again (``audit``);
- ``part``: ``DebateTrialPart``, the ``TrialPart`` the platform's trial asks.

Imported by: the arenas' registry (``colosseum_core.arenas.TRIAL_PARTS``, ``AUDITS``), the ``trial``
command through it, the tests.
"""

from colosseum_core.debate.trial.part import DebateTrialPart

__all__ = ["DebateTrialPart"]
