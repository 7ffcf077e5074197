"""The ledger interface over a real Bittensor subnet, through the ``bittensor`` SDK (the optional
``[chain]`` extra: ``pip install -e '.[chain]'``; nothing else needs it).

Written against SDK 11.3 (``bittensor.Subtensor``): the current block is ``subtensor.block``; the
neurons with the block each registered at come from ``subtensor.subnets.metagraph(netuid)`` (its
``neurons`` carry ``uid``, ``hotkey`` and ``block_at_registration``; the lighter
``subtensor.neurons.all`` does not carry the block); every hotkey's latest commitment with the block
it was made in from ``subtensor.subnets.commitments(netuid)`` (``NeuronCommitment``: ``block`` and
the visible text ``value``; a sealed, still-encrypted commitment has none and is left out); and the
weights from ``subtensor.weights.weights(netuid)`` (``{validator uid: {miner uid: fraction}}``,
already normalised). It sets weights with ``subtensor.set_weights(wallet=, netuid=, uids=,
weights=)`` when it holds the validator's wallet. It takes the SDK object it is given, so tests
hand it recorded answers in the SDK's shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from colosseum_core.chain.ledger import Commitment, LedgerError, Neuron, WeightSet

FINNEY = "finney"


class BittensorLedger:
    """A subnet's chain state through a ``bittensor.Subtensor`` (or anything with its reads)."""

    def __init__(self, subtensor: Any, netuid: int, wallet: Any = None) -> None:
        self.subtensor = subtensor
        self.netuid = netuid
        self.wallet = wallet

    def set_weights(self, validator: str, weights: Mapping[int, float]) -> WeightSet:
        if self.wallet is None:
            raise LedgerError(f"subnet {self.netuid}: setting weights needs the validator's wallet")
        uids = sorted(weights)
        result = self.subtensor.set_weights(
            wallet=self.wallet,
            netuid=self.netuid,
            uids=uids,
            weights=[float(weights[u]) for u in uids],
            wait_for_inclusion=True,
        )
        # SDK 11 answers an ExtrinsicResponse (``success``, ``message``); older ones a tuple.
        ok, message = (
            (result.success, getattr(result, "message", ""))
            if hasattr(result, "success")
            else (bool(result[0]), result[1] if len(result) > 1 else "")
        )
        if not ok:
            raise LedgerError(f"subnet {self.netuid}: set_weights as {validator} refused: {message}")
        return WeightSet(validator=validator, block=self.current_block(), weights=dict(weights))

    def current_block(self) -> int:
        block = self.subtensor.block
        if isinstance(block, bool) or not isinstance(block, int):
            raise LedgerError(f"subnet {self.netuid}: the current block is {block!r}, not a whole number")
        return block

    def _metagraph(self) -> Any:
        metagraph = self.subtensor.subnets.metagraph(self.netuid)
        if metagraph is None:
            raise LedgerError(f"subnet {self.netuid}: the chain has no metagraph for it (no such subnet?)")
        return metagraph

    def neurons(self) -> list[Neuron]:
        found = []
        for neuron in self._metagraph().neurons:
            registered = getattr(neuron, "block_at_registration", None)
            if not isinstance(registered, int) or registered < 0:
                raise LedgerError(
                    f"subnet {self.netuid} uid {neuron.uid} hotkey {neuron.hotkey}: "
                    f"block_at_registration is {registered!r}"
                )
            found.append(
                Neuron(uid=int(neuron.uid), hotkey=str(neuron.hotkey), block_at_registration=registered)
            )
        return sorted(found, key=lambda n: n.uid)

    def commitments(self) -> dict[str, Commitment]:
        found: dict[str, Commitment] = {}
        raw: Mapping[str, Any] = self.subtensor.subnets.commitments(self.netuid) or {}
        for hotkey, commitment in raw.items():
            if commitment is None:
                continue
            text = commitment.value
            if text is None:
                continue  # sealed (timelock-encrypted) and not revealed yet: nothing to read
            found[str(hotkey)] = Commitment(hotkey=str(hotkey), block=int(commitment.block), data=str(text))
        return dict(sorted(found.items()))

    def weights(self) -> list[WeightSet]:
        metagraph = self._metagraph()
        hotkeys = {int(n.uid): str(n.hotkey) for n in metagraph.neurons}
        rows: Mapping[int, Mapping[int, float]] = self.subtensor.weights.weights(self.netuid) or {}
        return [
            WeightSet(
                validator=hotkeys.get(int(uid), f"uid {uid}"),
                block=int(metagraph.block),
                weights={int(k): float(v) for k, v in row.items()},
            )
            for uid, row in sorted(rows.items())
            if row
        ]


def connect(netuid: int, network: str = FINNEY) -> BittensorLedger:
    """A ledger on ``network``'s subnet ``netuid`` (needs the ``[chain]`` extra and the network)."""
    try:
        import bittensor
    except ImportError as exc:
        raise LedgerError(
            "the Bittensor SDK is not installed: pip install -e '.[chain]' (the local ledger needs none)"
        ) from exc
    return BittensorLedger(bittensor.Subtensor(network=network), netuid)
