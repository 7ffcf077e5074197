"""Each registered miner's commitment resolved to its strategy: the input of the entry checks.

One row per neuron: its hotkey, uid and registration block; its latest commitment and that
commitment's block; what the commitment says (``strategy.read_commitment``); and what resolving it
came to: ``resolved`` (the strategy text and its SHA-256), ``invalid`` (why, naming the hotkey, the
gist, the file and the value) or ``unavailable`` (the fetch failed for now). A pinned gist is fetched
only when the commitment is inside its registration window: a late commitment is out either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from colosseum_core.chain.ledger import Commitment, GistNotFound, Gists, GistUnavailable, LedgerError, Neuron
from colosseum_core.debate.entry.pinned import INVALID, RESOLVED, UNAVAILABLE
from colosseum_core.debate.entry.window import WINDOW_BLOCKS
from colosseum_core.debate.strategy import (
    INLINE,
    PINNED,
    UNPINNED,
    gist_text,
    read_commitment,
    strategy_hash,
    text_problem,
)

ENTRY_SCHEMA: Final[dict[str, pl.DataType]] = {
    "hotkey": pl.String(),
    "uid": pl.Int64(),
    "block_at_registration": pl.Int64(),
    "commitment_block": pl.Int64(),
    "commitment": pl.String(),
    "pointer": pl.String(),
    "gist_id": pl.String(),
    "gist_sha": pl.String(),
    "resolution": pl.String(),
    "problem": pl.String(),
    "strategy": pl.String(),
    "strategy_hash": pl.String(),
}


def _resolve(neuron: Neuron, commitment: Commitment | None, gists: Gists) -> dict[str, Any]:
    row: dict[str, Any] = {
        "hotkey": neuron.hotkey,
        "uid": neuron.uid,
        "block_at_registration": neuron.block_at_registration,
        **dict.fromkeys(("commitment_block", "commitment", "pointer", "gist_id", "gist_sha")),
        **dict.fromkeys(("resolution", "problem", "strategy", "strategy_hash")),
    }
    if commitment is None:
        return row
    where = f"commitment of hotkey {neuron.hotkey}"
    pointer = read_commitment(commitment.data)
    row |= {
        "commitment_block": commitment.block,
        "commitment": commitment.data,
        "pointer": pointer.kind,
        "gist_id": pointer.gist_id,
        "gist_sha": pointer.sha,
    }
    text: str | None = None
    problem: str | None = None
    if pointer.kind == INLINE:
        text, problem = commitment.data, text_problem(commitment.data, where)
    elif pointer.kind == UNPINNED:
        problem = f"{where}: gist {pointer.gist_id} is named without a revision; a pointer must pin one"
    elif commitment.block - neuron.block_at_registration > WINDOW_BLOCKS:
        return row  # out by the window: nothing is fetched for it
    else:
        assert pointer.kind == PINNED and pointer.gist_id and pointer.sha
        try:
            text, problem = gist_text(gists.revision(pointer.gist_id, pointer.sha))
        except GistUnavailable as exc:
            return row | {"resolution": UNAVAILABLE, "problem": f"{where}: {exc}"}
        except GistNotFound as exc:
            problem = f"{where}: {exc}"
        except LedgerError as exc:
            return row | {
                "resolution": UNAVAILABLE,
                "problem": f"{where}: the gist's answer could not be read ({exc})",
            }
        if problem is not None:
            text = None
    if problem is not None or text is None:
        return row | {"resolution": INVALID, "problem": problem}
    return row | {"resolution": RESOLVED, "strategy": text, "strategy_hash": strategy_hash(text)}


def resolve_entries(
    neurons: Sequence[Neuron], commitments: Mapping[str, Commitment], gists: Gists
) -> pl.DataFrame:
    """Every neuron's commitment resolved, in uid order (``ENTRY_SCHEMA``)."""
    rows = [_resolve(n, commitments.get(n.hotkey), gists) for n in sorted(neurons, key=lambda n: n.uid)]
    return pl.DataFrame(rows, schema=ENTRY_SCHEMA, orient="row")
