"""Is a model there? (COLOSSEUM-MODELS-CHECK-1): one short request through the model's own protocol,
read as the arenas read a reply, and said in one line.

The request is a tiny prompt with the arenas' equal settings (temperature 0, top_p 1, a small
max_tokens, seed 0), asked once (no re-ask), so the line can say which settings the model honoured
and which it refused (recorded ``OMITTED``, as the arenas record them), how long it took, and, when
it failed, exactly why: no key set, refused, unknown model, not a server of the protocol, timeout,
connection refused, unreachable (``call.diagnose``'s words). A model that answers through the
protocol is reachable even if its reply has no text or declines the prompt (a reasoning model may
spend 16 tokens thinking): the line says so beside "reachable".

``models check`` prints it for named models; every freeze and run that names a real model calls
``require_reachable`` first and refuses in one line before anything is frozen or sealed. The
receipts go to the store the caller gives (``models check``: a scratch folder unless ``--receipts``
keeps them; a freeze: a scratch folder, never the record, which a check must not touch).

Pure except the one call per model; the clocks are injected (``clock`` for the receipts,
``monotonic`` for the latency). Imported by: the ``models`` command, the arenas' freeze wiring and
the tests. Knows no arena.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import httpx

from colosseum_core.interrupts import run_async
from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import OMITTED, REPLY_2, AskingPolicy, CallSettings, chat
from colosseum_core.providers.models import ModelRef
from colosseum_core.record.receipts import ReceiptStore

MODELS_CHECK: Final = "COLOSSEUM-MODELS-CHECK-1"
CHECK_PROMPT: Final = "This is a connection check. Reply with the single word: ready"
# The arenas' equal settings, with a budget a check needs; the timeout is the caller's.
CHECK_MAX_TOKENS: Final = 16
DEFAULT_CHECK_TIMEOUT_S: Final = 30.0
# The settings a line names, in the order the arenas' files list them.
SETTINGS: Final = ("temperature", "top_p", "max_tokens", "seed")
# A check is asked once: a refusal is the answer, not a reason to ask again.
_ONCE: Final = AskingPolicy(max_asks=1, replies=REPLY_2)
# Reachable, with a note: the protocol answered, though not with text.
_REACHABLE_KINDS: Final = frozenset({"no_text", "declined"})
# What a house player's line says when the sparring server is not where it was looked for.
_SPARRING_DOWN: Final = frozenset({"connection_refused", "unreachable"})

Monotonic = Callable[[], float]
Clock = Callable[[], dt.datetime]


def check_settings(timeout_s: float = DEFAULT_CHECK_TIMEOUT_S) -> CallSettings:
    return CallSettings(temperature=0.0, top_p=1.0, max_tokens=CHECK_MAX_TOKENS, seed=0, timeout_s=timeout_s)


class ModelCheckError(ValueError):
    """A model a freeze or a run names did not answer its check; the message is the check's line."""


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """One model's check: where it was asked, whether it is reachable, and why not."""

    name: str
    protocol: str
    model: str
    url: str  # the base URL asked (a house player's: the sparring server's)
    reachable: bool
    kind: str | None  # the failure's class (``call.Failure``, or ``no_key``); None when it answered
    reason: str | None  # the exact reason, or a reachable model's note (no text, declined)
    honoured: tuple[str, ...]
    omitted: tuple[str, ...]
    latency_s: float | None  # None when nothing was sent
    receipt_ids: tuple[str, ...] = ()

    def line(self) -> str:
        """The one line ``models check`` prints."""
        where = f"{self.protocol} {self.model!r} at {self.url}"
        took = "" if self.latency_s is None else f" in {self.latency_s:.2f} s"
        if not self.reachable:
            return f"{self.name}: FAILED{took}: {self.reason} ({where})"
        honoured = ", ".join(self.honoured) or "none"
        omitted = ", ".join(self.omitted) or "none"
        note = f"; {self.reason}" if self.reason else ""
        return f"{self.name}: reachable{took} ({where}); honoured {honoured}; {OMITTED}: {omitted}{note}"

    def as_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "check": MODELS_CHECK}


async def check_model(
    ref: ModelRef,
    *,
    environ: Mapping[str, str],
    sparring_url: str,
    receipts: ReceiptStore,
    clock: Clock,
    monotonic: Monotonic,
    timeout_s: float = DEFAULT_CHECK_TIMEOUT_S,
    transport: httpx.AsyncBaseTransport | None = None,
) -> CheckResult:
    """Ask ``ref`` once (a house player on ``sparring_url``) and say what became of it."""
    url = ref.endpoint(sparring_url)
    same = {"name": ref.name, "protocol": ref.protocol, "model": ref.model, "url": url}
    missing = ref.missing_key(environ)
    if missing is not None:
        reason = f"no key set: ${missing} is not set"
        return CheckResult(
            **same, reachable=False, kind="no_key", reason=reason, honoured=(), omitted=(), latency_s=None
        )
    settings = check_settings(timeout_s)
    started = monotonic()
    result = await chat(
        ref.protocol,
        base_url=url,
        model=ref.model,
        api_key=ref.key(environ),
        messages=[Message("user", CHECK_PROMPT)],
        receipts=receipts,
        policy=_ONCE,
        settings=settings,
        clock=clock,
        transport=transport,
    )
    latency = monotonic() - started
    record = result.settings_record
    omitted = tuple(s for s in SETTINGS if record.get(s) == OMITTED)
    diagnosis = result.diagnosis
    if diagnosis is None and result.status != "answered":
        # Every call that did not answer has a diagnosis; this keeps a line true should one not.
        reason, kind = result.error or result.status, "error"
    elif diagnosis is None:
        reason, kind = None, None
    else:
        reason, kind = diagnosis.reason, diagnosis.kind
    reachable = kind is None or kind in _REACHABLE_KINDS
    if ref.house and kind in _SPARRING_DOWN:
        reason = f"the sparring server is not running at {url}: {reason}"
    honoured = tuple(s for s in SETTINGS if s not in omitted) if reachable else ()
    return CheckResult(
        **same,
        reachable=reachable,
        kind=None if reachable else kind,
        reason=reason,
        honoured=honoured,
        omitted=omitted,
        latency_s=latency,
        receipt_ids=result.receipt_ids,
    )


async def check_models(refs: Sequence[ModelRef], **keywords: Any) -> list[CheckResult]:
    """Every model's check, asked at once, in the order named."""
    return list(await asyncio.gather(*(check_model(ref, **keywords) for ref in refs)))


def require_reachable(
    refs: Sequence[ModelRef],
    *,
    environ: Mapping[str, str],
    sparring_url: str,
    clock: Clock,
    monotonic: Monotonic,
    timeout_s: float = DEFAULT_CHECK_TIMEOUT_S,
    transport: httpx.AsyncBaseTransport | None = None,
) -> list[CheckResult]:
    """Check every model before a freeze or a run; ``ModelCheckError`` with the first failure's line.

    The receipts go to a scratch folder, discarded: a check writes nothing to the record."""
    if not refs:
        return []
    with tempfile.TemporaryDirectory(prefix="colosseum-models-check-") as scratch:
        results = run_async(
            check_models(
                refs,
                environ=environ,
                sparring_url=sparring_url,
                receipts=ReceiptStore(Path(scratch)),
                clock=clock,
                monotonic=monotonic,
                timeout_s=timeout_s,
                transport=transport,
            )
        )
    failed = [r for r in results if not r.reachable]
    if failed:
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        raise ModelCheckError(f"model {failed[0].line()}{more}")
    return results


def require_entries_reachable(entries: Sequence[Mapping[str, Any]], **keywords: Any) -> list[CheckResult]:
    """``require_reachable`` for an arena's resolved entries (``id``, ``protocol``, ``model``,
    ``base_url``, ``key_env``: what its frozen documents record), each named by its id and model."""
    refs = [
        ModelRef(
            name=f"{entry['id']} ({entry['model']})",
            protocol=entry["protocol"],
            model=entry["model"],
            base_url=entry["base_url"],
            key_env=entry.get("key_env"),
        )
        for entry in entries
    ]
    return require_reachable(refs, **keywords)
