"""Who argues whom, on which side and which motion, in which game: a ``Pairing``, and the pairings
that need no bracket. The Swiss bracket (``swiss``) pairs a round into the same ``Pairing``; the
games (``game``) play them, the close and verify read them, so they sit below all three.

A round's pairing before the Swiss bracket exists (COMPELLE-PAIRING-SHUFFLE-1) is a seeded shuffle.
The seed is the SHA-256 of the rule's version and the epoch's key, so anyone can re-derive every
pairing from the record. Each round shuffles the entered miners (sorted by hotkey first, so the
input's order does not matter) with its own generator, reshuffling up to ``RESHUFFLES`` times to
avoid a rematch within the epoch; an odd miner out sits the round out with a bye. Sides: whoever
has argued Pro less in the epoch argues Pro, ties by the round's coin. Each pair gets the first
motion of the rotation, from a seeded offset, that the pair has not yet argued.

The title fight's (COMPELLE-TITLE-FIGHT-1, decided in ``crown.fight``): both sides of every motion,
the challenger on Pro first, then the king; game ``t`` is round ``t``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Sequence
from typing import Final

from colosseum_core.debate.rules import COMPELLE_PAIRING

RESHUFFLES: Final = 50
ROUNDS: Final = 3


@dataclasses.dataclass(frozen=True)
class Pairing:
    round: int
    game_id: str
    pro: str
    con: str
    motion_id: str


def pairing_seed(epoch: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{COMPELLE_PAIRING}\n{epoch}".encode()).digest()[:8], "big")


def game_id(epoch: str, round_number: int, index: int) -> str:
    return f"{epoch}-r{round_number}-g{index:02d}"


def shuffle_pairings(
    epoch: str, hotkeys: Sequence[str], motion_ids: Sequence[str], rounds: int = ROUNDS
) -> tuple[list[Pairing], list[tuple[int, str]]]:
    """The epoch's games and its byes (round, hotkey)."""
    if len(set(hotkeys)) != len(hotkeys):
        raise ValueError("a miner is entered twice in one epoch")
    if not motion_ids:
        raise ValueError("the rotation has no motions to argue")
    players = sorted(hotkeys)
    seed = pairing_seed(epoch)
    met: set[frozenset[str]] = set()
    pro_count = dict.fromkeys(players, 0)
    argued: dict[frozenset[str], set[str]] = {}
    games: list[Pairing] = []
    byes: list[tuple[int, str]] = []
    for round_number in range(1, rounds + 1):
        rng = random.Random(seed + round_number)
        order = players[:]
        for _ in range(RESHUFFLES):
            rng.shuffle(order)
            pairs = [frozenset(order[i : i + 2]) for i in range(0, len(order) - 1, 2)]
            if not met.intersection(pairs):
                break
        if len(order) % 2:
            byes.append((round_number, order[-1]))
        offset = rng.randrange(len(motion_ids))
        for index in range(len(order) // 2):
            a, b = order[2 * index], order[2 * index + 1]
            pair = frozenset((a, b))
            met.add(pair)
            if pro_count[a] != pro_count[b]:
                pro, con = (a, b) if pro_count[a] < pro_count[b] else (b, a)
            else:
                pro, con = (a, b) if rng.random() < 0.5 else (b, a)
            pro_count[pro] += 1
            used = argued.setdefault(pair, set())
            ordered = [motion_ids[(offset + index + k) % len(motion_ids)] for k in range(len(motion_ids))]
            motion = next((m for m in ordered if m not in used), ordered[0])
            used.add(motion)
            games.append(Pairing(round_number, game_id(epoch, round_number, index + 1), pro, con, motion))
    return games, byes


def fight_game_id(epoch: str, number: int) -> str:
    return f"{epoch}-t{number:03d}"


def fight_pairings(epoch: str, challenger: str, king: str, motion_ids: list[str]) -> list[Pairing]:
    """Both sides of every motion: the challenger (hotkey) on Pro first, then the king."""
    pairings = []
    for index, motion_id in enumerate(motion_ids):
        for side, (pro, con) in enumerate(((challenger, king), (king, challenger))):
            number = 2 * index + side + 1
            pairings.append(Pairing(number, fight_game_id(epoch, number), pro, con, motion_id))
    return pairings
