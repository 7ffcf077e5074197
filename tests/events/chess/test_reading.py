"""CHESS-READING-1: the answer line, then strict SAN against every lenient form python-chess accepts."""

from __future__ import annotations

import pytest

from colosseum_core.events.chess.reading import MAX_REPLY_CHARS, read_move, read_reply
from tests.support.chess import chess


def board(*sans: str, fen: str | None = None) -> chess.Board:
    b = chess.Board(fen) if fen else chess.Board()
    for san in sans:
        b.push_san(san)
    return b


@pytest.mark.parametrize("null", ["--", "0000", "Z0", "@@@@"])
def test_every_null_move_spelling_is_rejected_as_null(null: str) -> None:
    b = board("e4", "e5")
    assert not b.parse_san(null)  # python-chess reads it as a null move, without raising
    assert read_reply(f"MOVE: {null}", b).failure == "null"


@pytest.mark.parametrize(
    ("token", "why"),
    [
        ("g1f3", "UCI"),
        ("Ng1f3", "long algebraic"),
        ("Ng1-f3", "long algebraic with a hyphen"),
        ("Nf3+", "a false check mark"),
        ("Nf3#", "a false mate mark"),
        ("Nxf3", "a false capture mark"),
    ],
)
def test_lenient_forms_parse_but_are_not_canonical(token: str, why: str) -> None:
    b = board("e4", "e5")
    try:
        b.parse_san(token)
    except ValueError:
        assert read_reply(f"MOVE: {token}", b).failure in {"invalid", "non_canonical"}, why
        return
    assert read_reply(f"MOVE: {token}", b).failure == "non_canonical", why


def test_castling_with_zeros_is_rejected_and_with_letters_accepted() -> None:
    b = board("e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5")
    assert b.parse_san("0-0")  # lenient
    assert read_reply("MOVE: 0-0", b).failure == "non_canonical"
    assert read_reply("MOVE: O-O", b).san == "O-O"


def test_a_missing_check_mark_is_accepted_a_wrong_one_is_not() -> None:
    b = board("e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6")
    assert read_reply("MOVE: Qxf7", b).san == "Qxf7#"
    assert read_reply("MOVE: Qxf7#", b).san == "Qxf7#"
    assert read_reply("MOVE: Qxf7+", b).failure == "non_canonical"  # it is mate, not check


def test_promotion_needs_its_equals_sign() -> None:
    b = board(fen="8/4P3/8/8/8/8/k7/4K3 w - - 0 1")
    assert read_reply("MOVE: e8=Q", b).san == "e8=Q"
    assert read_reply("MOVE: e8=N", b).san == "e8=N"
    assert read_reply("MOVE: e8Q", b).failure == "non_canonical"
    assert read_reply("MOVE: e7e8q", b).failure == "non_canonical"


def test_en_passant_is_read_as_the_capture_it_is() -> None:
    b = board("e4", "a6", "e5", "d5")
    reading = read_reply("MOVE: exd6", b)
    assert reading.san == "exd6" and reading.uci == "e5d6"
    assert read_reply("MOVE: exd6e.p.", b).failure == "invalid"


def test_ambiguous_and_illegal_moves_have_their_classes() -> None:
    b = board(fen="4k3/8/8/8/8/8/4K3/R6R w - - 0 1")
    assert read_reply("MOVE: Rd1", b).failure == "ambiguous"
    assert read_reply("MOVE: Rad1", b).san == "Rad1"
    assert read_reply("MOVE: Ke3", board("e4", "e5")).failure == "illegal"


@pytest.mark.parametrize(
    ("reply", "failure"),
    [
        ("", "no_answer"),
        ("   \n\n", "no_answer"),
        ("I think e4 is best.", "no_answer"),
        ("```\nMOVE: e4\n```", "no_answer"),
        ("**MOVE: e4**", "no_answer"),
        ("MOVE: e4 d4", "two_moves"),
        ("MOVE: e4 or d4", "two_moves"),
        ("MOVE:", "no_answer"),
        ("MOVE: Sf3", "invalid"),  # German notation
        ("MOVE: Cf3", "invalid"),  # French
        ("MOVE: ♘f3", "invalid"),  # figurine
        ("move: e4", "no_answer"),
        ("x" * (MAX_REPLY_CHARS + 1), "too_long"),
        ("thinking " * 30_000 + "\nMOVE: e4", "too_long"),  # 200 kB of text
    ],
)
def test_bad_replies_get_a_recorded_class(reply: str, failure: str) -> None:
    assert read_reply(reply, board()).failure == failure


def test_the_last_line_is_the_answer_earlier_drafts_are_not_read() -> None:
    reading = read_reply("MOVE: d4\nOn reflection, the king's pawn.\n\nMOVE: e4\n", board())
    assert reading.san == "e4" and reading.token == "e4"


def test_read_move_names_the_move_a_non_canonical_token_meant() -> None:
    reading = read_move("g1f3", board())
    assert reading.failure == "non_canonical" and "Nf3" in (reading.detail or "")
