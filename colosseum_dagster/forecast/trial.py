"""The forecast trial's wiring: on a record where no card has been answered yet (a fresh clone after
``make run``, whose card schedule waits for the next seal), the latest card is run first, as
``colosseum forecast card run latest`` runs it (the configured exchange, else a simulated one; the
house gladiators on the sparring server), so the trial seat has a sealed packet to answer.

The part itself is the core's (``colosseum_core.forecast.trial.ForecastTrial``); the registry's
(``colosseum_core.arenas.TRIAL_PARTS``) cannot run a Dagster job and reports ``skipped`` instead.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json

from colosseum_core.forecast.trial import ForecastTrial
from colosseum_core.trial import TrialError, TrialRequest


def seal_latest_card(request: TrialRequest) -> None:
    """Run the latest card through ``card_job`` in this process, on this command's Dagster instance;
    TrialError naming the card and why when it does not seal."""
    from colosseum_dagster.cli.forecast import cmd_card_run

    args = argparse.Namespace(
        keys=["latest"],
        exchange=None,
        seed=0,
        markets=3000,
        data=str(request.data_dir),
        json=True,
        verbose=False,
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cmd_card_run(args)
    cards = json.loads(out.getvalue())["cards"]
    for card in cards:
        request.progress(f"forecast: card {card['card']}: {card['status']} in {card.get('seconds', 0):.1f}s")
    if code != 0 or not all(c["success"] and c["status"] == "sealed" for c in cards):
        why = "; ".join(
            f"card {c['card']} {c['status']}: {'; '.join(c.get('failures') or [])}" for c in cards
        )
        raise TrialError(
            f"forecast trial: the latest card did not seal, so there is nothing to answer ({why})"
        )


def forecast_trial_parts() -> tuple[ForecastTrial, ...]:
    """The forecast's part of a trial with the latest card run first where none is answered yet."""
    return (ForecastTrial(seal_card=seal_latest_card),)
