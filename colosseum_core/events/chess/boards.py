"""SVG boards for the site's game pages, drawn with python-chess's own artwork (``chess.svg``).

``chess.svg.board`` writes a whole document per position (about 17 kB: the squares and every piece's
paths each time), so a game of 200 plies would weigh 3.4 MB. Here the squares and the twelve pieces
(``chess.svg.PIECES``, its colours) are defined once per page (``board_definitions``) and each
position (``board_svg``) is the board and one ``<use>`` per piece, about 1.5 kB, the last move's
squares marked. The same position always gives the same bytes.
"""

from __future__ import annotations

from typing import Final

import chess
import chess.svg

SQUARE: Final = chess.svg.SQUARE_SIZE  # 45, the size chess.svg's pieces are drawn for
SIZE: Final = 8 * SQUARE
_COLORS = chess.svg.DEFAULT_COLORS
_NAMES: Final = {
    symbol: piece.split('id="', 1)[1].split('"', 1)[0] for symbol, piece in chess.svg.PIECES.items()
}


def _square(file: int, row: int, colour: str) -> str:
    return (
        f'<rect x="{file * SQUARE}" y="{row * SQUARE}" width="{SQUARE}" height="{SQUARE}" fill="{colour}"/>'
    )


def board_definitions() -> str:
    """The hidden SVG every board of a page draws from: the 64 squares and the 12 pieces."""
    squares = "".join(
        _square(f, r, _COLORS["square light"] if (f + r) % 2 == 0 else _COLORS["square dark"])
        for r in range(8)
        for f in range(8)
    )
    pieces = "".join(chess.svg.PIECES[s] for s in sorted(chess.svg.PIECES))
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" class="defs" aria-hidden="true">'
        f'<defs><g id="chess-squares">{squares}</g>{pieces}</defs></svg>'
    )


def board_svg(board: chess.Board, *, label: str, size: int = 180) -> str:
    """One position, White at the bottom, the last move's squares marked; ``label`` its text alternative."""
    marks = []
    if board.move_stack:
        last = board.peek()
        for square in (last.from_square, last.to_square):
            f, r = chess.square_file(square), 7 - chess.square_rank(square)
            light = (f + r) % 2 == 0
            colour = _COLORS["square light lastmove" if light else "square dark lastmove"]
            marks.append(_square(f, r, colour))
    pieces = []
    for square, piece in sorted(board.piece_map().items()):
        f, r = chess.square_file(square), 7 - chess.square_rank(square)
        pieces.append(f'<use href="#{_NAMES[piece.symbol()]}" x="{f * SQUARE}" y="{r * SQUARE}"/>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}" width="{size}" height="{size}" '
        f'role="img" aria-label="{label}"><title>{label}</title><use href="#chess-squares"/>'
        + "".join(marks)
        + "".join(pieces)
        + "</svg>"
    )
