"""Fault injection for the simulated exchange, configured by a small text grammar.

Grammar::

    SPEC   := ITEM (";" ITEM)*            empty or whitespace-only SPEC = no faults
    ITEM   := KIND (":" OPTION)*          "," is accepted in place of ":" between options
    OPTION := NAME "=" VALUE | "always"

Kinds and their own options:

- ``429``          ``retry_after=S`` (int seconds, default 1): 429 JSON body and ``Retry-After: S``.
- ``500``          ``{"type":"internal error","error":"cannot get the information"}``.
- ``truncate``     200 with a valid JSON content type and the body cut in half.
- ``slow``         ``delay=SECONDS`` (float, default 2): sleep, then answer normally.
- ``reset``        drop the TCP connection without any response bytes.
- ``cursor_loop``  on a matching keyset page, ``next_cursor`` is the very cursor that was sent.
- ``ratelimit``    ``rate=R/S`` (default 300/10), ``burst=N`` (default 1), ``max_delay=S`` (default 2):
                   a GCRA limiter with emission interval S/R that *delays* each response until its
                   slot (as Cloudflare throttles), and answers 429 with an integer ``Retry-After``
                   (rounded up) when the wait would exceed ``max_delay``. R requests therefore take at
                   least (R - 1) x S/R seconds.

Options that select which requests a fault applies to (every kind):

- ``path=/prefix``  only request paths starting with the prefix (default: every path except
                    ``/status``, so readiness probes are never faulted unless asked for).
- ``page=N``        only the N-th page of a keyset listing (page 1 is the request without
                    ``after_cursor``; page N carries a cursor minted for page N).

Options that select which of the matching requests fire (not for ``ratelimit``); with none of them
the fault fires on every matching request. Counting is per fault item, over its matching requests:

- ``always``        every matching request (the default).
- ``n=K``           only the first K matching requests.
- ``every=K``       the K-th, 2K-th, ... matching request.
- ``p=X``           with probability X, drawn from ``random.Random(f"{seed}:{item}:{count}")``, so the
                    same server seed and request order give the same faults.

Conditions combine with AND. Examples: ``500:n=3``, ``429:p=0.05:retry_after=2;reset:every=50``,
``slow:delay=3:path=/markets/keyset:page=2``, ``ratelimit:rate=300/10:max_delay=2``.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

KINDS: Final = frozenset({"429", "500", "truncate", "slow", "reset", "cursor_loop", "ratelimit"})
_SELECT: Final = frozenset({"p", "n", "every", "always", "path", "page"})
_OWN: Final[dict[str, frozenset[str]]] = {
    "429": frozenset({"retry_after"}),
    "500": frozenset(),
    "truncate": frozenset(),
    "slow": frozenset({"delay"}),
    "reset": frozenset(),
    "cursor_loop": frozenset(),
    "ratelimit": frozenset({"rate", "burst", "max_delay"}),
}


@dataclass(frozen=True, slots=True)
class Fault:
    """One parsed fault item."""

    kind: str
    path: str | None = None
    page: int | None = None
    p: float | None = None
    n: int | None = None
    every: int | None = None
    retry_after: int = 1
    delay: float = 2.0
    rate_requests: int = 300
    rate_seconds: float = 10.0
    burst: int = 1
    max_delay: float = 2.0
    text: str = ""

    @property
    def interval(self) -> float:
        return self.rate_seconds / self.rate_requests


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """The parsed fault SPEC: an ordered tuple of fault items."""

    faults: tuple[Fault, ...] = ()
    spec: str = ""

    def __bool__(self) -> bool:
        return bool(self.faults)


def _num(item: str, name: str, value: str, conv: Callable[[str], float], lo: float, hi: float) -> float:
    try:
        x = conv(value)
    except ValueError:
        raise ValueError(f"fault {item!r}: option {name}={value!r} is not a number") from None
    if not lo <= x <= hi or (isinstance(x, float) and math.isnan(x)):
        raise ValueError(f"fault {item!r}: option {name}={value!r} is out of range [{lo}, {hi}]")
    return x


def parse_faults(spec: str | None) -> FaultPlan:
    """Parse a fault SPEC (see the module docstring); unknown kinds or options raise ValueError."""
    if spec is None or not spec.strip():
        return FaultPlan()
    faults: list[Fault] = []
    for raw in spec.split(";"):
        item = raw.strip()
        if not item:
            continue
        parts = [x.strip() for x in item.replace(",", ":").split(":")]
        kind = parts[0]
        if kind not in KINDS:
            raise ValueError(f"fault {item!r}: unknown kind {kind!r} (known: {', '.join(sorted(KINDS))})")
        kw: dict[str, object] = {"kind": kind, "text": item}
        seen: set[str] = set()
        for opt in parts[1:]:
            if not opt:
                raise ValueError(f"fault {item!r}: empty option")
            name, eq, value = opt.partition("=")
            name = name.strip()
            value = value.strip()
            if name not in _SELECT and name not in _OWN[kind]:
                allowed = sorted(
                    (_SELECT | _OWN[kind]) - ({"p", "n", "every", "always"} if kind == "ratelimit" else set())
                )
                raise ValueError(
                    f"fault {item!r}: unknown option {name!r} for {kind} (allowed: {', '.join(allowed)})"
                )
            if kind == "ratelimit" and name in ("p", "n", "every", "always"):
                raise ValueError(f"fault {item!r}: option {name!r} does not apply to ratelimit")
            if name in seen:
                raise ValueError(f"fault {item!r}: option {name!r} given twice")
            seen.add(name)
            if name == "always":
                if eq:
                    raise ValueError(f"fault {item!r}: 'always' takes no value")
                continue
            if not eq or not value:
                raise ValueError(f"fault {item!r}: option {name!r} needs a value")
            if name == "path":
                if not value.startswith("/"):
                    raise ValueError(f"fault {item!r}: path must start with '/'")
                kw["path"] = value
            elif name == "page":
                kw["page"] = int(_num(item, name, value, int, 1, 10**9))
            elif name == "p":
                kw["p"] = _num(item, name, value, float, 0.0, 1.0)
            elif name in ("n", "every"):
                kw[name] = int(_num(item, name, value, int, 1, 10**12))
            elif name == "retry_after":
                kw["retry_after"] = int(_num(item, name, value, int, 0, 86400))
            elif name == "delay":
                kw["delay"] = _num(item, name, value, float, 0.0, 3600.0)
            elif name == "max_delay":
                kw["max_delay"] = _num(item, name, value, float, 0.0, 3600.0)
            elif name == "burst":
                kw["burst"] = int(_num(item, name, value, int, 1, 10**6))
            elif name == "rate":
                req, slash, sec = value.partition("/")
                if not slash:
                    raise ValueError(f"fault {item!r}: rate must look like REQUESTS/SECONDS, e.g. 300/10")
                kw["rate_requests"] = int(_num(item, name, req, int, 1, 10**9))
                kw["rate_seconds"] = _num(item, name, sec, float, 1e-6, 86400.0)
        faults.append(Fault(**kw))  # type: ignore[arg-type]
    return FaultPlan(tuple(faults), spec)


@dataclass(slots=True)
class Decision:
    """What the injector decided for one request."""

    delay: float = 0.0  # seconds to wait before answering (slow, ratelimit throttling)
    action: str | None = None  # None, "429", "500", "truncate", "reset", "cursor_loop"
    retry_after: int = 1
    fired: list[str] = field(default_factory=list)


class FaultInjector:
    """Per-server fault state: request counters and the GCRA limiters. Thread-safe."""

    def __init__(
        self, plan: FaultPlan, seed: int = 0, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.plan = plan
        self.seed = seed
        self._now = monotonic
        self._lock = threading.Lock()
        self._counts = [0] * len(plan.faults)
        self._tat = [0.0] * len(plan.faults)  # GCRA theoretical arrival time per ratelimit item

    def decide(self, path: str, page: int | None) -> Decision:
        """Decide for a request to ``path``; ``page`` is its keyset page number (None if not keyset)."""
        out = Decision()
        with self._lock:
            now = self._now()
            for i, f in enumerate(self.plan.faults):
                if f.path is None:
                    if path == "/status":
                        continue
                elif not path.startswith(f.path):
                    continue
                if f.page is not None and page != f.page:
                    continue
                self._counts[i] += 1
                k = self._counts[i]
                if f.kind == "ratelimit":
                    ok, wait = self._gcra(i, f, now + out.delay)
                    if not ok:
                        if out.action is None:
                            out.action = "429"
                            out.retry_after = max(1, math.ceil(wait))
                            out.fired.append(f.text)
                    elif wait > 0:
                        out.delay += wait
                        out.fired.append(f.text)
                    continue
                if f.n is not None and k > f.n:
                    continue
                if f.every is not None and k % f.every:
                    continue
                if f.p is not None and random.Random(f"{self.seed}:{i}:{k}").random() >= f.p:
                    continue
                if f.kind == "slow":
                    out.delay += f.delay
                    out.fired.append(f.text)
                elif out.action is None:
                    out.action = f.kind
                    out.retry_after = f.retry_after
                    out.fired.append(f.text)
        return out

    def _gcra(self, i: int, f: Fault, t: float) -> tuple[bool, float]:
        """Reserve the next slot at time ``t``: (True, wait) or, past max_delay, (False, wait) unreserved."""
        interval = f.interval
        tau = (f.burst - 1) * interval
        tat = max(self._tat[i], t)
        wait = max(0.0, tat - tau - t)
        if wait > f.max_delay:
            return False, wait
        self._tat[i] = tat + interval
        return True, wait
