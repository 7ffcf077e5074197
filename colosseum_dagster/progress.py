"""A Dagster logger for people at a terminal: one line per step, and what the steps themselves say.

The console logger prints every Dagster event at DEBUG, which is what an operator reading a run's
log in the UI wants and what someone who typed `colosseum forecast card run` does not. The CLI selects this
logger instead (``-v`` brings the console back): each step's start and end with its time, and the
warnings and errors the assets log (a partial sweep, a missed card, a failed check).
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import dagster as dg

PROGRESS_LOGGER = "progress"


class _StepLines(logging.Handler):
    def __init__(self, step_words: dict[str, str]) -> None:
        super().__init__(level=logging.DEBUG)
        self._started: dict[str, float] = {}
        self._words = step_words

    def emit(self, record: logging.LogRecord) -> None:
        meta: dict[str, Any] = getattr(record, "dagster_meta", None) or {}
        event = meta.get("dagster_event")
        step = meta.get("step_key") or ""
        if event is None:
            if record.levelno >= logging.WARNING:
                said = meta.get("orig_message", record.getMessage())
                print(f"  {record.levelname.lower()}: {said}", file=sys.stderr)
            return
        kind = event.event_type_value
        words = self._words.get(step, step)
        if kind == "STEP_START":
            self._started[step] = time.monotonic()
            print(f"  {words}…", file=sys.stderr)
        elif kind == "STEP_SUCCESS":
            took = time.monotonic() - self._started.pop(step, time.monotonic())
            print(f"  {words}: done in {took:.1f}s", file=sys.stderr)
        elif kind == "STEP_FAILURE":
            from dagster._core.execution.plan.objects import ErrorSource

            source = getattr(event.event_specific_data, "error_source", None)
            # Ctrl-C is not the step's failure: the command's last line says what it canceled.
            said = "interrupted" if source == ErrorSource.INTERRUPT else "FAILED"
            print(f"  {words}: {said}", file=sys.stderr)


@dg.logger(
    config_schema={"step_words": dg.Field(dg.Permissive(), is_required=False, default_value={})},
    description="One line per step and the steps' own warnings and errors (what the CLI shows).",
)
def progress_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    log = logging.Logger(PROGRESS_LOGGER, level=logging.DEBUG)
    log.addHandler(_StepLines(dict(init_context.logger_config.get("step_words") or {})))
    return log


def logger_config(verbose: bool, step_words: dict[str, str] | None = None) -> dict[str, Any]:
    """Run config choosing how a CLI run talks: every Dagster event (verbose), or the step lines, each
    step called by ``step_words`` (the arena's words for its step keys) or else by its key."""
    if verbose:
        return {"loggers": {"console": {"config": {"log_level": "DEBUG"}}}}
    return {"loggers": {PROGRESS_LOGGER: {"config": {"step_words": dict(step_words or {})}}}}
