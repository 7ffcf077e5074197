"""Does the model answer? One short request through its real protocol before a trial asks anything of
any arena, so a wrong URL, a missing key or an unknown model is refused in one line, before anything
is frozen or sealed.

A stand-in for ``colosseum_core.providers.check`` (``colosseum models check``): the trial calls
:func:`precheck` only, so the one can replace the other without the trial changing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import tempfile
from collections.abc import Callable, Mapping

from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import AskingPolicy, CallSettings, chat
from colosseum_core.providers.models import ModelRef
from colosseum_core.record.receipts import ReceiptStore

CHECK_PROMPT = "Reply with the single word: ready."
CHECK_TIMEOUT_S = 30.0


def endpoint_of(model: ModelRef, sparring_url: str) -> str:
    """Where the model is served: the sparring server's URL for a house player."""
    return sparring_url if model.house else model.base_url


def precheck(
    model: ModelRef,
    *,
    sparring_url: str,
    environ: Mapping[str, str],
    clock: Callable[[], dt.datetime],
    timeout_s: float = CHECK_TIMEOUT_S,
) -> str | None:
    """None when the model answered one short request; else why not, in one line.

    The request's receipt is kept in a scratch store, not the record: a check is not part of any
    unit, and a model that fails it has no unit to keep it in."""
    missing = model.missing_key(environ)
    if missing is not None:
        return f"{model.name}: no key: ${missing} is not set"
    with tempfile.TemporaryDirectory(prefix="colosseum-precheck-") as scratch:
        result = asyncio.run(
            chat(
                model.protocol,
                base_url=endpoint_of(model, sparring_url),
                model=model.model,
                api_key=model.key(environ),
                messages=[Message("user", CHECK_PROMPT)],
                receipts=ReceiptStore(scratch),
                policy=AskingPolicy(max_asks=1),
                settings=CallSettings(max_tokens=16, timeout_s=timeout_s),
                clock=clock,
            )
        )
    if result.status == "answered":
        return None
    said = str(result.diagnosis) if result.diagnosis is not None else (result.error or result.status)
    where = endpoint_of(model, sparring_url)
    return f"{model.name} at {where} does not answer: {' '.join(said.split())}"
