"""A Solve-or-Object event: its manifest (what is frozen), its asking, and its replies table.

``soo_manifest`` is the document ``events.manifest.freeze`` hashes and signs: the contenders, the
rules and the prompt verbatim, the bank's file and SHA-256, the drawn pairs and the order of the
items, the seeds. ``questions`` asks every contender every item once, each in a conversation of its
own (``events.asking``: the journal makes a resumed run ask nothing twice), and ``replies_table`` reads and
scores every reply: one ``soo_replies`` row per contender and item, a pure function of the reply's
text, the bank and the manifest (``verify`` computes it again).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from colosseum_core.events.asking import CALL_SCHEMA, Asked, Question
from colosseum_core.events.manifest import manifest_head
from colosseum_core.events.solve_or_object.bank import Bank, Item, ProgramRunner
from colosseum_core.events.solve_or_object.draw import drawn_items, drawn_pairs
from colosseum_core.events.solve_or_object.prompt import PROMPT_TEMPLATE, item_prompt, prompt_sha256
from colosseum_core.events.solve_or_object.rules import RULES
from colosseum_core.events.solve_or_object.scoring import score_reply
from colosseum_core.events.tasks.reading import MAX_REPLY_CHARS, read_reply
from colosseum_core.record import with_ids

KIND: Final = "solve-or-object"
BOOTSTRAP_REPLICATES: Final = 1999
JOURNAL_FIELDS: Final = ("contender", "item")


class SooEventError(ValueError):
    """An event that cannot be frozen or asked as it stands; names the event and what does not fit."""


def soo_manifest(
    *,
    event: str,
    resolved: Mapping[str, Any],
    bank: Bank,
    pairs: int,
    seed: int,
    frozen_at: dt.datetime,
    replicates: int = BOOTSTRAP_REPLICATES,
) -> dict[str, Any]:
    """The manifest of a Solve-or-Object event: everything its replies and standings depend on."""
    try:
        chosen = drawn_pairs(bank, pairs, seed)
    except ValueError as exc:
        raise SooEventError(f"event {event}: {exc}") from None
    items = drawn_items(bank, chosen, seed)
    return {
        **manifest_head(event, KIND, resolved, frozen_at),
        "contenders": [dict(c) for c in resolved["contenders"]],
        "rules": {**RULES, "prompt_template": PROMPT_TEMPLATE, "max_reply_chars": MAX_REPLY_CHARS},
        "bank": {
            "name": bank.name,
            "file": bank.path,
            "sha256": bank.sha256,
            "pairs": chosen,
            "items": [item.item_id for item in items],
        },
        "seeds": {"draw": seed, "bootstrap": seed},
        "standings": {"bootstrap_replicates": replicates, "level": 0.95},
    }


def event_items(manifest: Mapping[str, Any], bank: Bank) -> list[Item]:
    """The manifest's items from ``bank``, which must be the bank it froze."""
    frozen = manifest["bank"]
    if bank.sha256 != frozen["sha256"]:
        raise SooEventError(
            f"event {manifest['event']}: its manifest froze bank {frozen['file']} with SHA-256 "
            f"{frozen['sha256']}; the bank at hand hashes to {bank.sha256}"
        )
    return [bank.item(item_id) for item_id in frozen["items"]]


def questions(manifest: Mapping[str, Any], items: Sequence[Item]) -> list[Question]:
    """Every contender asked every item, in (contender, item) order of the manifest."""
    return [
        Question(c["id"], (c["id"], item.item_id), item_prompt(item))
        for c in manifest["contenders"]
        for item in items
    ]


REPLY_SCHEMA: Final[dict[str, pl.DataType]] = {
    "event": pl.String(),
    "contender": pl.String(),
    "item_id": pl.String(),
    "pair_id": pl.String(),
    "role": pl.String(),
    **CALL_SCHEMA,
    "verdict": pl.String(),
    "answer": pl.String(),
    "defect": pl.String(),
    "span": pl.String(),
    "witness": pl.String(),
    "p_defective": pl.Int64(),
    "failure": pl.String(),
    "outcome": pl.String(),
    "points": pl.Int64(),
    "brier_units": pl.Int64(),
    "evidence": pl.String(),
    "reason": pl.String(),
    "prompt_sha256": pl.String(),
    "rules": pl.String(),
    "manifest_sha256": pl.String(),
}


def replies_table(
    manifest: Mapping[str, Any],
    cited: str,
    items: Sequence[Item],
    asked: Sequence[Asked],
    runner: ProgramRunner | None,
) -> pl.DataFrame:
    """``soo_replies``: every reply read (COLOSSEUM-TASK-REPLY-1) and scored (SOO-SCORING-1)."""
    by_id = {item.item_id: item for item in items}
    rules = ",".join(manifest["rules"][k] for k in ("prompt", "reading", "scoring"))
    rows = []
    for reply in asked:
        contender, item_id = reply.where
        item = by_id[item_id]
        answered = reply.status == "answered" and reply.text is not None
        reading = read_reply(reply.text if answered else None)
        score = score_reply(item, reading, answered=answered, runner=runner)
        rows.append(
            {
                "event": manifest["event"],
                "contender": contender,
                "item_id": item.item_id,
                "pair_id": item.pair_id,
                "role": item.role,
                "model": reply.model,
                "protocol": reply.protocol,
                "status": reply.status,
                "text": reply.text,
                "receipt_ids": list(reply.receipt_ids),
                "settings": json.dumps(dict(reply.settings), sort_keys=True) if reply.settings else None,
                "error": reply.error,
                "verdict": reading.verdict,
                "answer": reading.answer,
                "defect": reading.defect,
                "span": reading.span,
                "witness": reading.witness,
                "p_defective": reading.p_defective,
                "failure": reading.failure,
                "outcome": score.outcome,
                "points": score.points,
                "brier_units": score.brier_units,
                "evidence": score.evidence,
                "reason": score.reason,
                "prompt_sha256": prompt_sha256(item_prompt(item)),
                "rules": rules,
                "manifest_sha256": cited,
            }
        )
    return with_ids(pl.DataFrame(rows, schema=REPLY_SCHEMA))
