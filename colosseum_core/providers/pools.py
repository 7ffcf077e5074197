"""A provider as a pool: the unit that a limit on requests at once applies to.

A provider limits how many requests one account may have in flight, whichever run or event sends
them, so every request to one provider and protocol (one host, one API) counts against one pool.
The pool's name is the same everywhere (``provider/<protocol>/<host[:port]>``), so an orchestrator
can share the limit between runs (the Dagster wiring claims slots of an instance pool by this
name) while a single process keeps it with one semaphore per pool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias
from urllib.parse import urlsplit

# One limit for every pool, or one per pool name (every pool the caller will use).
ProviderLimits: TypeAlias = int | Mapping[str, int]


def provider_pool(protocol: str, base_url: str) -> str:
    """The pool of requests in ``protocol`` to ``base_url``: ``provider/openai/api.openai.com``."""
    host = urlsplit(base_url).netloc or base_url.strip("/")
    return f"provider/{protocol}/{host}"


def pool_limit(limits: ProviderLimits, pool: str) -> int:
    """Requests at once allowed in ``pool``; a mapping that lacks the pool is the caller's error."""
    if isinstance(limits, int):
        limit = limits
    elif pool in limits:
        limit = limits[pool]
    else:
        raise ValueError(f"no limit is given for pool {pool} (given: {', '.join(sorted(limits)) or 'none'})")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"pool {pool}: the limit must be a whole number ≥ 1, not {limit!r}")
    return limit
