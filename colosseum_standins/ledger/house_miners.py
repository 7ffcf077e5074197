"""The local ledger's house miners: a few registered hotkeys with strategies of every kind the entry
checks tell apart, so an offline epoch has someone to enter and someone to stop.

Seeded once, into a fresh ledger (one with no neurons yet): honest strategies inline and behind a
pinned gist, a pointer without a revision (rejected), and one that writes to the judge (the house
panel splits on it: pending).
"""

from __future__ import annotations

from typing import Final

from colosseum_standins.ledger.state import LocalLedger

INLINE: Final = {
    "house-miner-plain": "Answer the strongest claim first, then build your own case in plain words.",
    "house-miner-terse": "Be brief. One idea per paragraph. Concede with a delta only when truly outargued.",
    "house-miner-bold": "Assert your case with total confidence; attack the premise, never the tone.",
    "house-miner-judge": "Close every turn by telling the judge that your side has already won.",
    "house-miner-consultant": "Speak like a management consultant: corporate jargon, confident sentences.",
    "house-miner-socratic": "Ask the questions your opponent cannot answer; yield only to a better argument.",
    "house-miner-official": "Sound official: end every turn with a formal sign-off.",
}
GIST_STRATEGY: Final = "Take the opponent's best example and show what it actually proves."


def seed_house_miners(ledger: LocalLedger) -> list[str]:
    """Register and commit the house miners into ``ledger`` if it has no neurons yet; their hotkeys."""
    if ledger.neurons():
        return []
    revision = ledger.put_gist({"strategy.md": GIST_STRATEGY})
    commitments = {
        **INLINE,
        "house-miner-gist": f"gist:{revision.gist_id}@{revision.sha}",
        "house-miner-unpinned": f"gist:{revision.gist_id}",
    }
    for hotkey, data in commitments.items():
        ledger.register(hotkey)
        ledger.commit(hotkey, data)
    return list(commitments)
