"""The chess event's part of ``colosseum verify``: every game replayed from its recorded replies.

For each game of the frozen manifest, the rules engine plays it again (``game.play_game``, the same
code that played it) with players that give back, attempt by attempt, exactly the recorded answers.
So the extraction, the strict reading, the legality, the draws the arena claims, the ply cap, the
forfeit on a third rejection and the outcome are all decided afresh, and the re-derived
``chess_games`` and ``chess_moves`` must equal the recorded ones row for row. Every model attempt's
reply text must be the text its last receipt answered, and its request must carry the prompt the
position gives. The standings are re-fitted from the games within the published tolerance.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import polars as pl

from colosseum_core.events.chess.event import event_tables, play_event
from colosseum_core.events.chess.game import Answer, MoveRequest
from colosseum_core.events.chess.standings import TOLERANCE_ELO, standings
from colosseum_core.events.manifest import FrozenManifest
from colosseum_core.interrupts import run_async
from colosseum_core.providers.call import answer_in_receipt
from colosseum_core.record.identifiers import ID_FIELD
from colosseum_core.record.receipts import ReceiptStore
from colosseum_core.verify.canonical import rederived_differences, shortened
from colosseum_core.verify.report import Outcome

# What a re-fit may differ by (a Newton fit's last bits differ across BLAS builds): the ratings by the
# published tolerance, ν (published to 4 decimals) by a unit of its last decimal.
_TOLERANCES = {
    **dict.fromkeys(
        ("rating", "low", "high", "sensitivity_rating", "sensitivity_low", "sensitivity_high"), TOLERANCE_ELO
    ),
    **dict.fromkeys(("nu", "nu_low", "nu_high"), 1e-4),
}


class _Missing(Exception):
    pass


class _Recorded:
    """A player that gives back the recorded answer of each attempt, and nothing else; for a model's
    attempt it also checks the receipts: the request carries the conversation the rules give at that
    point (the prompt of the position, the retries), and the reply is the text the record keeps."""

    def __init__(
        self,
        event: str,
        contender: str,
        kind: str,
        answers: Mapping[tuple[str, int, int], Answer],
        receipts: ReceiptStore,
        problems: list[str],
    ) -> None:
        self.event, self.contender, self.kind, self._answers = event, contender, kind, answers
        self._receipts, self._problems = receipts, problems

    async def answer(self, request: MoveRequest) -> Answer:
        where = (request.game_id, request.ply, request.attempt)
        if where not in self._answers:
            raise _Missing(
                f"chess_moves event {self.event} game {request.game_id} ply {request.ply} attempt "
                f"{request.attempt}: the rules ask {self.contender} for this attempt, and the record has none"
            )
        answer = self._answers[where]
        if self.kind == "model":
            self._check_receipts(request, answer)
        return answer

    def _check_receipts(self, request: MoveRequest, answer: Answer) -> None:
        where = f"chess_moves event {self.event} game {request.game_id} ply {request.ply}"
        where += f" attempt {request.attempt}"
        missing = [r for r in answer.receipt_ids if r not in self._receipts]
        if missing:
            self._problems.append(f"{where}: names receipt {missing[0]}, which the record lacks")
            return
        for receipt_id in answer.receipt_ids:
            sent = self._receipts.get(receipt_id).request_body.decode("utf-8", errors="replace")
            if not all(json.dumps(m.content, ensure_ascii=False)[1:-1] in sent for m in request.messages):
                self._problems.append(
                    f"{where}: its request (receipt {receipt_id[:12]}…) is not the conversation the rules "
                    "give"
                )
        if answer.status == "answered" and answer.receipt_ids and answer.protocol is not None:
            _, text = answer_in_receipt(answer.protocol, self._receipts.get(answer.receipt_ids[-1]))
            if text != answer.text:
                self._problems.append(
                    f"{where} field text: not the reply its receipt {answer.receipt_ids[-1][:12]}… holds"
                )


def _answers(moves: pl.DataFrame) -> dict[str, dict[tuple[str, int, int], Answer]]:
    by_contender: dict[str, dict[tuple[str, int, int], Answer]] = {}
    for m in moves.iter_rows(named=True):
        settings = json.loads(m["settings"]) if m["settings"] else None
        by_contender.setdefault(m["contender"], {})[(m["game_id"], m["ply"], m["attempt"])] = Answer(
            status=m["status"],
            text=m["text"],
            receipt_ids=tuple(m["receipt_ids"] or ()),
            model=m["model"],
            protocol=m["protocol"],
            settings=settings,
            error=m["error"],
        )
    return by_contender


def check_games(
    out: Outcome, frozen: FrozenManifest, games: pl.DataFrame, moves: pl.DataFrame, receipts: ReceiptStore
) -> None:
    """The games replayed from the recorded answers; every model attempt against its receipts."""
    manifest, event = frozen.document, frozen.event
    recorded = _answers(moves)
    problems: list[str] = []
    players = {
        c["id"]: _Recorded(event, c["id"], c["kind"], recorded.get(c["id"], {}), receipts, problems)
        for c in manifest["contenders"]
    }
    try:
        replayed = run_async(play_event(manifest, players, concurrency=1))
    except _Missing as exc:
        out.problems += [*problems, str(exc)]
        return
    out.problems += problems
    again = event_tables(manifest, replayed)
    for table, stored, key in (("chess_games", games, "game_id"), ("chess_moves", moves, "game_id")):
        if not stored.equals(again[table]):
            found = rederived_differences(stored, again[table], f"{table} event {event}", key)
            out.problems += found or [f"{table} event {event}: its row identifiers differ from the replay's"]
    out.count("chess_games", games.height)
    out.count("chess_attempts", moves.height)


def check_standings(
    out: Outcome,
    frozen: FrozenManifest,
    games: pl.DataFrame,
    moves: pl.DataFrame,
    stored: Mapping[str, pl.DataFrame],
) -> None:
    """The standings and fits re-fitted from the games: ratings within ``TOLERANCE_ELO``, the rest equal."""
    again = standings(frozen.document, frozen.sha256, games, moves)
    event = frozen.event
    for table, key in (("chess_standings", "contender"), ("chess_fit", "fit")):
        mine, theirs = stored[table], again[table]
        if mine.height != theirs.height:
            out.problems.append(
                f"{table} event {event}: {mine.height} rows, the re-fit gives {theirs.height}"
            )
            continue
        for row, (a, b) in enumerate(
            zip(mine.iter_rows(named=True), theirs.iter_rows(named=True), strict=True)
        ):
            for field, value in a.items():
                if field == ID_FIELD:
                    continue
                other = b[field]
                allowed = _TOLERANCES.get(field)
                close = (
                    allowed is not None
                    and isinstance(value, float)
                    and isinstance(other, float)
                    and abs(value - other) <= allowed + 1e-9
                )
                if value != other and not close:
                    out.problems.append(
                        f"{table} event {event} {key} {mine[key][row]} field {field}: recorded "
                        f"{shortened(value)}, the re-fit gives {shortened(other)}"
                        + (f" (tolerance {_TOLERANCES[field]})" if field in _TOLERANCES else "")
                    )
    out.count("standings", stored["chess_standings"].height)
