"""An epoch's entries: every registered miner's commitment resolved and checked (COMPELLE-ENTRY-1),
the intent panel asked about every strategy the first two checks let through, once per strategy.

``judge_entries`` is the one function the epoch's asset calls. It reads the chain as it stands (the
block it read is recorded with every row), resolves each commitment, asks the panel, and returns the
``entries`` and ``panel_calls`` tables. Each row names the models document (by its SHA-256) and the
prompt version it was judged under; every panel call names the receipts of its requests. A strategy
the panel already judged GOOD or BAD under the same models document is not asked again: its entry
names the epoch (``panel_epoch``) whose panel calls hold the votes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any, Final

import httpx
import polars as pl

from colosseum_core.chain.ledger import Gists, Ledger
from colosseum_core.debate.entry import PANEL_COLUMNS, admitted_to_panel, entries, resolve_entries
from colosseum_core.debate.entry.intent_panel import PanelCall, ask_panel, panel_counts
from colosseum_core.debate.entry.kept import KEPT_COLUMNS, kept_verdicts
from colosseum_core.debate.models import SPARRING, ModelsConfig
from colosseum_core.debate.prompts import INTENT
from colosseum_core.record import ReceiptStore, with_ids

FIGHT, CALIBRATION = "FIGHT", "CALIBRATION"
PANEL_CALL_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "strategy_hash": pl.String(),
    "slot": pl.String(),
    "model": pl.String(),
    "protocol": pl.String(),
    "status": pl.String(),
    "reply": pl.String(),
    "vote": pl.String(),
    "reason": pl.String(),
    "problem": pl.String(),
    "fell_back": pl.Boolean(),
    "attempts": pl.Int64(),
    "receipt_ids": pl.List(pl.String()),
    "settings": pl.String(),
    "error": pl.String(),
    "prompt": pl.String(),
    "models_sha256": pl.String(),
}


@dataclasses.dataclass(frozen=True)
class EpochEntries:
    entries: pl.DataFrame
    panel_calls: pl.DataFrame
    block: int
    kind: str


def kind_of(models: ModelsConfig) -> str:
    """FIGHT when every model is a real one; CALIBRATION when any of them is a house player."""
    house = any(link.base_url == SPARRING for slot in models.slots() for link in slot.chain)
    return CALIBRATION if house else FIGHT


def _call_row(epoch: str, strategy_hash: str, call: PanelCall, models: ModelsConfig) -> dict[str, Any]:
    return {
        "epoch": epoch,
        "strategy_hash": strategy_hash,
        "slot": call.slot,
        "model": call.model,
        "protocol": call.protocol,
        "status": call.status,
        "reply": call.reply,
        "vote": call.vote.verdict,
        "reason": call.vote.reason,
        "problem": call.vote.problem,
        "fell_back": call.fell_back,
        "attempts": call.attempts,
        "receipt_ids": list(call.receipt_ids),
        "settings": json.dumps(dict(call.settings_record), sort_keys=True),
        "error": call.error,
        "prompt": INTENT.version,
        "models_sha256": models.sha256,
    }


async def judge_entries(
    epoch: str,
    *,
    ledger: Ledger,
    gists: Gists,
    models: ModelsConfig,
    receipts: ReceiptStore,
    clock: Callable[[], dt.datetime],
    sparring_url: str,
    keys: Mapping[str, str],
    king: str | None = None,
    king_demoted: bool = False,
    earlier: pl.DataFrame | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> EpochEntries:
    """``earlier``: the entries of earlier epochs, whose decided verdicts under ``models`` are kept
    (``entry.kept``) rather than asked again."""
    block = ledger.current_block()
    resolved = resolve_entries(ledger.neurons(), ledger.commitments(), gists)
    asked = admitted_to_panel(resolved)
    kept = kept_verdicts(earlier, models.sha256)
    if king:
        # The king is never locked out on an old verdict: its retry asks the panel again (docs/decisions.md).
        kings = resolved.filter(pl.col("hotkey") == king)["strategy_hash"].drop_nulls().implode()
        kept = kept.filter(~pl.col("strategy_hash").is_in(kings))
    calls: dict[str, list[PanelCall]] = {}
    for strategy_hash, strategy in (
        asked.select("strategy_hash", "strategy")
        .unique("strategy_hash")
        .filter(~pl.col("strategy_hash").is_in(kept["strategy_hash"].implode()))
        .sort("strategy_hash")
        .iter_rows()
    ):
        calls[strategy_hash] = await ask_panel(
            models.intent_panel,
            strategy,
            sparring_url=sparring_url,
            keys=keys,
            receipts=receipts,
            clock=clock,
            transport=transport,
        )
    counts = pl.concat(
        [
            pl.DataFrame(
                [(h, *panel_counts(c), epoch) for h, c in calls.items()], orient="row", schema=KEPT_COLUMNS
            ),
            kept.filter(pl.col("strategy_hash").is_in(asked["strategy_hash"].implode())),
        ]
    )
    panel = resolved.join(counts, on="strategy_hash", how="left").with_columns(
        is_king=pl.col("hotkey") == pl.lit(king) if king else pl.lit(False),
        king_demoted=pl.lit(king_demoted) & (pl.col("hotkey") == pl.lit(king or "")),
    )
    # Only the asked miners have panel counts; the others were stopped by checks 1 and 2.
    panel = panel.with_columns(
        [
            pl.when(pl.col("hotkey").is_in(asked["hotkey"].implode()))
            .then(pl.col(c))
            .otherwise(None)
            .alias(c)
            for c in (*PANEL_COLUMNS, "panel_epoch")
        ]
    )
    kind = kind_of(models)
    judged = entries(panel).with_columns(
        epoch=pl.lit(epoch),
        block=pl.lit(block),
        kind=pl.lit(kind),
        models_sha256=pl.lit(models.sha256),
        panel_epoch=panel["panel_epoch"],
    )
    ordered = judged.select("epoch", *[c for c in judged.columns if c != "epoch"]).sort("uid")
    call_rows = [_call_row(epoch, h, call, models) for h, cs in calls.items() for call in cs]
    return EpochEntries(
        entries=with_ids(ordered),
        panel_calls=with_ids(pl.DataFrame(call_rows, schema=PANEL_CALL_SCHEMA, orient="row")),
        block=block,
        kind=kind,
    )
