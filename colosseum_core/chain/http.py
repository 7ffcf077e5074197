"""The ledger and gists over HTTP: every answer stored as a receipt before it is read.

``HttpLedger`` speaks the local ledger's routes (``colosseum_standins.ledger.server``);
``HttpGists`` speaks GitHub's ``GET /gists/{gist_id}/{sha}`` (base ``https://api.github.com`` in
production, the local ledger offline). A caller that keeps receipts passes a ``ReceiptStore`` and
finds each answer's receipt id in ``receipt_ids``; a transport error, a timeout, a 429 or a 5xx
from a gist read is ``GistUnavailable`` (try again next epoch), a 404 ``GistNotFound``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any, Final

import httpx

from colosseum_core import json_values
from colosseum_core.chain.ledger import (
    Commitment,
    GistFile,
    GistNotFound,
    GistRevision,
    GistUnavailable,
    LedgerError,
    Neuron,
    WeightSet,
)
from colosseum_core.record.http import send_with_receipt
from colosseum_core.record.receipts import ReceiptStore

GITHUB_API: Final = "https://api.github.com"
Clock = Callable[[], dt.datetime]


def _wall_clock() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class _Reader:
    def __init__(
        self,
        base_url: str,
        *,
        receipts: ReceiptStore | None = None,
        client: httpx.Client | None = None,
        clock: Clock = _wall_clock,
        timeout_s: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.receipts = receipts
        self.client = client or httpx.Client(timeout=timeout_s)
        self.clock = clock
        self.receipt_ids: list[str] = []

    def get(self, path: str) -> httpx.Response:
        """GET ``path``; its receipt stored first (the transport error's, if there was no answer)."""
        request = self.client.build_request("GET", self.base_url + path)
        sent = send_with_receipt(self.client, request, receipts=self.receipts, clock=self.clock)
        if sent.receipt_id is not None:
            self.receipt_ids.append(sent.receipt_id)
        if sent.response is None:
            raise httpx.TransportError(sent.error or "no response")
        return sent.response

    def get_json(self, path: str) -> Any:
        try:
            response = self.get(path)
        except httpx.TransportError as exc:
            raise LedgerError(f"GET {self.base_url}{path}: no answer ({exc})") from exc
        if response.status_code != 200:
            raise LedgerError(
                f"GET {self.base_url}{path}: HTTP {response.status_code} {response.text[:200]!r}"
            )
        try:
            return json_values.loads(response.content)
        except ValueError as exc:
            raise LedgerError(f"GET {self.base_url}{path}: the answer is not JSON ({exc})") from exc


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LedgerError(f"{where}: expected a whole number, got {value!r}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise LedgerError(f"{where}: expected text, got {type(value).__name__} {value!r:.60}")
    return value


class HttpLedger(_Reader):
    """The ledger interface over the local ledger's HTTP routes."""

    def set_weights(self, validator: str, weights: Mapping[int, float]) -> WeightSet:
        """POST the weight vector (uid -> weight) as ``validator``; the receipt is stored first. The
        Bittensor adapter calls ``subtensor.set_weights`` instead."""
        body = {"validator": validator, "weights": {str(uid): w for uid, w in sorted(weights.items())}}
        request = self.client.build_request("POST", self.base_url + "/chain/weights", json=body)
        sent = send_with_receipt(self.client, request, receipts=self.receipts, clock=self.clock)
        if sent.receipt_id is not None:
            self.receipt_ids.append(sent.receipt_id)
        where = f"POST {self.base_url}/chain/weights"
        if sent.response is None:
            raise LedgerError(f"{where}: no answer ({sent.error})")
        if sent.response.status_code != 200:
            raise LedgerError(f"{where}: HTTP {sent.response.status_code} {sent.response.text[:200]!r}")
        try:
            answer = json_values.loads(sent.response.content)
        except ValueError as exc:
            raise LedgerError(f"{where}: the answer is not JSON ({exc})") from exc
        block = _int(answer.get("block") if isinstance(answer, dict) else None, f"{where} field block")
        return WeightSet(validator=validator, block=block, weights=dict(weights))

    def current_block(self) -> int:
        body = self.get_json("/chain/block")
        return _int(body.get("block") if isinstance(body, dict) else None, "/chain/block field block")

    def neurons(self) -> list[Neuron]:
        body = self.get_json("/chain/neurons")
        if not isinstance(body, list):
            raise LedgerError(f"/chain/neurons: expected a list, got {type(body).__name__}")
        return [
            Neuron(
                uid=_int(item.get("uid"), f"/chain/neurons[{i}] field uid"),
                hotkey=_text(item.get("hotkey"), f"/chain/neurons[{i}] field hotkey"),
                block_at_registration=_int(
                    item.get("block_at_registration"), f"/chain/neurons[{i}] field block_at_registration"
                ),
            )
            for i, item in enumerate(_objects(body, "/chain/neurons"))
        ]

    def commitments(self) -> dict[str, Commitment]:
        body = self.get_json("/chain/commitments")
        if not isinstance(body, dict):
            raise LedgerError(f"/chain/commitments: expected an object, got {type(body).__name__}")
        found = {}
        for hotkey, item in body.items():
            where = f"/chain/commitments hotkey {hotkey}"
            if not isinstance(item, dict):
                raise LedgerError(f"{where}: expected an object, got {item!r:.60}")
            found[hotkey] = Commitment(
                hotkey=hotkey,
                block=_int(item.get("block"), f"{where} field block"),
                data=_text(item.get("data"), f"{where} field data"),
            )
        return found

    def weights(self) -> list[WeightSet]:
        body = self.get_json("/chain/weights")
        sets = []
        for i, item in enumerate(_objects(body, "/chain/weights")):
            raw = item.get("weights")
            if not isinstance(raw, dict):
                raise LedgerError(f"/chain/weights[{i}] field weights: expected an object, got {raw!r:.60}")
            sets.append(
                WeightSet(
                    validator=_text(item.get("validator"), f"/chain/weights[{i}] field validator"),
                    block=_int(item.get("block"), f"/chain/weights[{i}] field block"),
                    weights={int(k): float(v) for k, v in raw.items()},
                )
            )
        return sets


def _objects(body: Any, where: str) -> list[Mapping[str, Any]]:
    if not isinstance(body, list) or not all(isinstance(item, dict) for item in body):
        raise LedgerError(f"{where}: expected a list of objects, got {str(body)[:80]!r}")
    return body


class HttpGists(_Reader):
    """GitHub's gist revisions, read by id and sha."""

    def __init__(self, base_url: str = GITHUB_API, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)

    def revision(self, gist_id: str, sha: str) -> GistRevision:
        path = f"/gists/{gist_id}/{sha}"
        try:
            response = self.get(path)
        except httpx.TransportError as exc:
            raise GistUnavailable(f"gist {gist_id} revision {sha}: no answer ({exc})") from exc
        status = response.status_code
        if status == 404:
            raise GistNotFound(f"gist {gist_id} revision {sha}: not found (HTTP 404)")
        if status == 429 or status >= 500 or status == 403:
            # GitHub answers a spent rate limit with 403 or 429: both pass, as a 5xx does.
            raise GistUnavailable(f"gist {gist_id} revision {sha}: HTTP {status}, try again later")
        if status != 200:
            raise LedgerError(f"gist {gist_id} revision {sha}: HTTP {status} {response.text[:200]!r}")
        try:
            body = json_values.loads(response.content)
        except ValueError as exc:
            raise LedgerError(f"gist {gist_id} revision {sha}: the answer is not JSON ({exc})") from exc
        files = body.get("files") if isinstance(body, dict) else None
        if not isinstance(files, dict):
            raise LedgerError(
                f"gist {gist_id} revision {sha}: field files: expected an object, got {files!r:.60}"
            )
        parsed = []
        for name, item in sorted(files.items()):
            where = f"gist {gist_id} revision {sha} file {name}"
            if not isinstance(item, dict):
                raise LedgerError(f"{where}: expected an object")
            parsed.append(
                GistFile(
                    filename=name,
                    content=_text(item.get("content"), f"{where} field content"),
                    size=_int(item.get("size"), f"{where} field size"),
                    truncated=bool(item.get("truncated", False)),
                )
            )
        return GistRevision(gist_id=gist_id, sha=sha, files=tuple(parsed))
