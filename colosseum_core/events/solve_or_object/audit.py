"""The Solve-or-Object event's part of ``colosseum verify``: every reply re-read, re-scored, re-ranked.

- The bank the manifest froze is read from the repository and must hash to the frozen SHA-256; the
  drawn pairs and the items' order are drawn again from the seed (SOO-DRAW-1).
- Every contender has exactly one reply row per item. A model's reply names its receipts, which the
  record must hold: the request carries the item's prompt verbatim, and the reply's text is what the
  last receipt answered.
- ``soo_replies`` is computed again from those texts (the reading, the scoring, the witness runs in
  the sandbox) and must equal the record row for row; a sealed event's ``soo_standings`` is computed
  again from the replies and must equal the record bit for bit (the bootstrap is exact).
"""

from __future__ import annotations

import polars as pl

from colosseum_core.events.asking import Asked, call_problems, recorded_call
from colosseum_core.events.manifest import FrozenManifest
from colosseum_core.events.solve_or_object.bank import BankError, load_bank
from colosseum_core.events.solve_or_object.draw import drawn_items, drawn_pairs
from colosseum_core.events.solve_or_object.event import replies_table
from colosseum_core.events.solve_or_object.prompt import item_prompt
from colosseum_core.events.solve_or_object.run import DEFAULT_CONTENDERS
from colosseum_core.events.solve_or_object.standings import soo_standings
from colosseum_core.events.tasks.checking import sandbox_runner
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.sandbox.bubblewrap import unavailable_reason
from colosseum_core.verify.canonical import rederived_differences
from colosseum_core.verify.report import Outcome

KEY = ("contender", "item_id")


def _check_receipts(out: Outcome, event: str, asked: Asked, prompt: str, receipts: ReceiptStore) -> None:
    where = f"soo_replies event {event} contender {asked.where[0]} item {asked.where[1]}"
    out.problems += call_problems(where, asked, prompt, receipts)
    out.count("soo_replies")


def check_event(
    out: Outcome,
    frozen: FrozenManifest,
    replies: pl.DataFrame,
    standings: pl.DataFrame | None,
    receipts: ReceiptStore,
) -> None:
    manifest, event = frozen.document, frozen.event
    frozen_bank = manifest["bank"]
    try:
        bank = load_bank(DEFAULT_CONTENDERS.parent / frozen_bank["file"], root=DEFAULT_CONTENDERS.parent)
    except BankError as exc:
        out.problems.append(f"event {event}: its bank cannot be read: {exc}")
        return
    if bank.sha256 != frozen_bank["sha256"]:
        out.problems.append(
            f"event {event}: its manifest froze bank {frozen_bank['file']} with SHA-256 "
            f"{frozen_bank['sha256']}; "
            f"the repository's hashes to {bank.sha256} (verify with the project at the event's commit)"
        )
        return
    seed = int(manifest["seeds"]["draw"])
    pairs = drawn_pairs(bank, len(frozen_bank["pairs"]), seed)
    items = drawn_items(bank, pairs, seed)
    if pairs != frozen_bank["pairs"] or [i.item_id for i in items] != frozen_bank["items"]:
        out.problems.append(f"event {event}: its manifest's pairs or items are not the draw of seed {seed}")
        return
    contenders = [c["id"] for c in manifest["contenders"]]
    expected = {(c, i.item_id) for c in contenders for i in items}
    recorded = {(str(r["contender"]), str(r["item_id"])) for r in replies.select(*KEY).iter_rows(named=True)}
    if recorded != expected or replies.height != len(expected):
        extra, lacking = sorted(recorded - expected), sorted(expected - recorded)
        out.problems.append(
            f"soo_replies event {event}: {replies.height} rows for {len(expected)} (contender, item) pairs"
            + (f"; no reply of {lacking[0][0]} to {lacking[0][1]}" if lacking else "")
            + (f"; a reply of {extra[0][0]} to {extra[0][1]}, which the event never asked" if extra else "")
        )
        return
    kinds = {c["id"]: c.get("kind", "model") for c in manifest["contenders"]}
    prompts = {item.item_id: item_prompt(item) for item in items}
    asked = [
        recorded_call(row, str(row["contender"]), (str(row["contender"]), str(row["item_id"])))
        for row in replies.iter_rows(named=True)
    ]
    for one in asked:
        if kinds[one.who] == "model":
            _check_receipts(out, event, one, prompts[one.where[1]], receipts)
    reason = unavailable_reason()
    runner = sandbox_runner() if reason is None else None
    again = replies_table(manifest, frozen.sha256, items, asked, runner)
    compared, recompared = replies, again
    if runner is None:
        # Without a sandbox a witness cannot be run again: those rows are left out, and said so.
        witnessed = pl.col("witness").is_not_null()
        skipped = replies.filter(witnessed).height
        if skipped:
            out.notes.append(f"event {event}: {skipped} replies with a witness were not re-run ({reason})")
        compared, recompared = replies.filter(~witnessed), again.filter(~witnessed)
    out.problems += rederived_differences(compared, recompared, f"soo_replies event {event}", KEY)
    if standings is not None:
        computed = soo_standings(manifest, frozen.sha256, replies)
        out.problems += rederived_differences(
            standings, computed, f"soo_standings event {event}", "contender"
        )
        out.count("standings")
