"""Epochs: 360 blocks of 12 seconds (72 minutes), numbered by block height, keyed for the record."""

from __future__ import annotations

import re
from typing import Final

EPOCH_BLOCKS: Final = 360
KEY_DIGITS: Final = 7
_KEY: Final = re.compile(rf"[0-9]{{{KEY_DIGITS}}}")


def epoch_of(block: int) -> int:
    if isinstance(block, bool) or not isinstance(block, int) or block < 0:
        raise ValueError(f"block {block!r} is not a block height")
    return block // EPOCH_BLOCKS


def first_block(epoch: int) -> int:
    return epoch * EPOCH_BLOCKS


def epoch_key(epoch: int) -> str:
    """The record's key of ``epoch``: its number, zero-padded so keys sort as numbers do."""
    if isinstance(epoch, bool) or not isinstance(epoch, int) or not 0 <= epoch < 10**KEY_DIGITS:
        raise ValueError(f"epoch {epoch!r} is not an epoch number (0 to {10**KEY_DIGITS - 1})")
    return f"{epoch:0{KEY_DIGITS}d}"


def epoch_from_key(key: str) -> int:
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(f"epoch key {key!r} is not {KEY_DIGITS} digits (epoch 14523 is 0014523)")
    return int(key)
