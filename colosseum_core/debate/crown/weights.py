"""The weights (COMPELLE-WEIGHTS-1): winner-take-all to the king, with a tail after a change.

Every epoch the validator's whole weight goes to the king. For the ``TAIL_EPOCHS`` epochs after a
title fight changes hands (the epoch of the change is the first), the deposed king keeps
``TAIL_SHARE`` and the new king has the rest, so a flip is not a cliff. A deposed king no longer
registered keeps nothing (its share goes to the king). With no king, nobody is weighted.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

TAIL_EPOCHS: Final = 5
TAIL_SHARE: Final = 0.05
KING, DEPOSED = "king", "deposed"


def weights(
    king: str | None, deposed: str | None, tail_left: int, registered: Collection[str]
) -> list[tuple[str, str, float]]:
    """(rating key, role, weight) for the epoch; ``tail_left``: the tail's epochs still to pay,
    this one included."""
    if king is None:
        return []
    if deposed is not None and tail_left > 0 and deposed in registered and deposed != king:
        return [(king, KING, 1.0 - TAIL_SHARE), (deposed, DEPOSED, TAIL_SHARE)]
    return [(king, KING, 1.0)]
