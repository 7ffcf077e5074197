"""SOO-DRAW-1: which pairs an event carries, and the order its items are asked in.

Both items of every drawn pair are asked, each in a conversation of its own, so a contender never
sees a twin beside its original; half the items are defective. The draw is a pure function of the
bank and the manifest's seed, written so that anyone can repeat it without this code:

- the pairs are ordered by SHA-256 of ``"<seed>:pair:<pair id>"`` (its hex digits, ascending) and the
  first ``pairs`` are drawn;
- the drawn items (``<pair id>/sound`` and ``<pair id>/twin``) are asked in the order of SHA-256 of
  ``"<seed>:item:<item id>"``.
"""

from __future__ import annotations

import hashlib

from colosseum_core.events.solve_or_object.bank import Bank, Item


def _key(seed: int, kind: str, name: str) -> str:
    return hashlib.sha256(f"{seed}:{kind}:{name}".encode()).hexdigest()


def drawn_pairs(bank: Bank, pairs: int, seed: int) -> list[str]:
    if not 1 <= pairs <= len(bank.pairs):
        raise ValueError(f"an event draws 1 to {len(bank.pairs)} pairs of bank {bank.name}, not {pairs}")
    ordered = sorted(bank.pairs, key=lambda pair: _key(seed, "pair", pair.pair_id))
    return [pair.pair_id for pair in ordered[:pairs]]


def drawn_items(bank: Bank, pair_ids: list[str], seed: int) -> list[Item]:
    items = [item for pair_id in pair_ids for item in (bank.pair(pair_id).sound, bank.pair(pair_id).twin)]
    return sorted(items, key=lambda item: _key(seed, "item", item.item_id))
