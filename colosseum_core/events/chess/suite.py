"""The opening suite: fixed lines from the initial position, committed as JSON, cited by its SHA-256.

The suite is built once from Debian's ``gnuchess-book`` (public domain) by ``suite_builder`` and
committed (``suites/COLOSSEUM-CHESS-SUITE-1.json``). What is checked every time it is used, and in
CI, is only what can not drift: the file's SHA-256 (the manifest freezes it) and that every line
is legal from the initial position and ends at its recorded FEN. Re-running the builder needs
Stockfish and the book, and is not part of any run.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any, Final

import chess

from colosseum_core.events.documents import read_document

SUITE_FORMAT: Final = "colosseum-chess-suite/1"
SUITES_DIR: Final = Path(__file__).resolve().parent / "suites"
DEFAULT_SUITE: Final = SUITES_DIR / "COLOSSEUM-CHESS-SUITE-1.json"


class SuiteError(ValueError):
    """A suite file that is not a suite, or a line in it that does not replay; names the line and field."""


@dataclasses.dataclass(frozen=True)
class Line:
    id: str
    name: str
    eco: str
    san: tuple[str, ...]
    fen_after: str
    eval_cp: int | None


@dataclasses.dataclass(frozen=True)
class Suite:
    name: str
    sha256: str
    path: str
    lines: tuple[Line, ...]
    generator: dict[str, Any]

    def line(self, line_id: str) -> Line:
        for line in self.lines:
            if line.id == line_id:
                return line
        raise KeyError(f"suite {self.name} has no line {line_id!r}")


def _line(index: int, raw: Any, where: str) -> Line:
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: lines[{index}] is not an object")
    for field, kind in (("id", str), ("name", str), ("eco", str), ("san", list), ("fen_after", str)):
        if not isinstance(raw.get(field), kind):
            raise SuiteError(f"{where}: lines[{index}].{field} is {raw.get(field)!r}, not a {kind.__name__}")
    board = chess.Board()
    for ply, san in enumerate(raw["san"], start=1):
        try:
            move = board.parse_san(san) if isinstance(san, str) else None
        except ValueError as exc:
            raise SuiteError(f"{where}: line {raw['id']} ply {ply} {san!r} is not legal ({exc})") from None
        if move is None or not move or board.san(move) != san:
            raise SuiteError(f"{where}: line {raw['id']} ply {ply} {san!r} is not a move in canonical SAN")
        board.push(move)
    if board.fen() != raw["fen_after"]:
        raise SuiteError(
            f"{where}: line {raw['id']} fen_after is {raw['fen_after']!r}; its moves reach {board.fen()!r}"
        )
    if board.is_game_over(claim_draw=True):
        raise SuiteError(f"{where}: line {raw['id']} ends a game before it starts")
    evaluation = raw.get("eval_cp")
    return Line(
        raw["id"],
        raw["name"],
        raw["eco"],
        tuple(raw["san"]),
        raw["fen_after"],
        evaluation if isinstance(evaluation, int) else None,
    )


def load_suite(path: Path | str = DEFAULT_SUITE) -> Suite:
    """The suite at ``path``, every line replayed; ``SuiteError`` naming what does not fit."""
    path = Path(path)
    data, document, raw_lines = read_document(path, "suite", SUITE_FORMAT, "lines", SuiteError)
    lines = tuple(_line(i, raw, f"suite {path}") for i, raw in enumerate(raw_lines))
    ids = [line.id for line in lines]
    if len(set(ids)) != len(ids):
        raise SuiteError(f"suite {path}: line ids repeat")
    return Suite(
        name=str(document.get("name", path.stem)),
        sha256=hashlib.sha256(data).hexdigest(),
        path=path.name,
        lines=lines,
        generator=dict(document.get("generator") or {}),
    )
