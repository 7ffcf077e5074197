"""Check 2, the strategy resolves to immutable text: ``pinned_revision`` and ``revision_unavailable``.

Inline text is immutable by being on chain. A gist pointer must name a revision, and the revision's
text is fetched and hashed: a pointer without a revision, a revision that does not exist, content
that is truncated, missing, too large or not text, is rejected (``pinned_revision``, with the
reason). A fetch that failed for now (no answer, a 5xx, a rate limit) is no fault of the miner's: it
is ``revision_unavailable``, PENDING, and tried again next epoch.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from colosseum_core.debate.entry.names import PINNED_REVISION, REVISION_UNAVAILABLE
from colosseum_core.screens import Screen

# What resolving a commitment came to (``entry.resolve``).
RESOLVED, INVALID, UNAVAILABLE = "resolved", "invalid", "unavailable"
RESOLUTIONS: Final = (RESOLVED, INVALID, UNAVAILABLE)


def pinned_revision_screen() -> Screen:
    return Screen(
        rule=PINNED_REVISION,
        excludes=pl.col("resolution").eq_missing(INVALID),
        value=pl.col("problem").fill_null("invalid"),
    )


def revision_unavailable_screen() -> Screen:
    return Screen(
        rule=REVISION_UNAVAILABLE,
        excludes=pl.col("resolution").eq_missing(UNAVAILABLE),
        value=pl.col("problem").fill_null("unavailable"),
    )
