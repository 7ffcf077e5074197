"""The chess opening-suite builder: the book walk, ECO naming, the distinct-ECO pick, the committed suite."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path

import pytest

chess = pytest.importorskip("chess")

from colosseum_core.events.chess import suite_builder as sb  # noqa: E402

BOOK = sb.DEFAULT_BOOK
ENGINE = sb.DEFAULT_ENGINE
needs_book = pytest.mark.skipif(not BOOK.exists(), reason=f"gnuchess-book is not installed ({BOOK})")
needs_engine = pytest.mark.skipif(
    shutil.which(ENGINE) is None, reason=f"Stockfish is not installed ({ENGINE})"
)


def book_line(san: str, weight: float) -> sb.BookLine:
    board = sb.replay(san.split())
    return sb.BookLine(tuple(san.split()), weight, board.fen(), board.epd())


def candidate(san: str, weight: float, eco: str) -> sb.Candidate:
    line = book_line(san, weight)
    return sb.Candidate(line, 0, sb.Opening(eco, f"name of {eco}", line.san))


@pytest.fixture(scope="module")
def openings() -> dict[tuple[str, ...], sb.Opening]:
    return sb.load_openings(sb.ECO_DIR)


@pytest.fixture(scope="module")
def suite() -> dict:
    return json.loads(sb.SUITE_PATH.read_text(encoding="utf-8"))


# --- the book walk ---------------------------------------------------------------------------------


@needs_book
def test_walk_on_the_real_book_gives_legal_lines_of_the_depth() -> None:
    lines = sb.walk_book(BOOK, depth_plies=4, min_weight_share=0.1)
    assert lines
    for line in lines:
        assert len(line.san) == 4
        board = sb.replay(line.san)  # raises on an illegal move
        assert board.fen() == line.fen_after
        assert board.epd() == line.epd_after
        assert 0 < line.weight <= 1
    assert lines == sorted(lines, key=lambda x: (-x.weight, x.san_text))
    # The weights are probabilities of disjoint lines, so together they cannot exceed one.
    assert sum(line.weight for line in lines) <= 1 + 1e-9
    assert len({line.san for line in lines}) == len(lines)


@needs_book
def test_walk_threshold_prunes_and_is_repeatable() -> None:
    loose = sb.walk_book(BOOK, depth_plies=3, min_weight_share=0.05)
    strict = sb.walk_book(BOOK, depth_plies=3, min_weight_share=0.2)
    assert {x.san for x in strict} <= {x.san for x in loose}
    assert len(strict) < len(loose)
    assert sb.walk_book(BOOK, depth_plies=3, min_weight_share=0.2) == strict


def test_distinct_positions_keeps_the_heaviest_line_per_position() -> None:
    # Two move orders of one position, and a third line elsewhere.
    light = book_line("Nf3 Nf6 d4", 0.01)
    heavy = book_line("d4 Nf6 Nf3", 0.2)
    other = book_line("e4 e5 Nf3", 0.1)
    assert light.epd_after == heavy.epd_after
    assert sb.distinct_positions([light, other, heavy]) == [heavy, other]
    assert sb.distinct_positions([heavy, light, other]) == [heavy, other]
    # Equal weights: the smaller SAN text wins, whatever the input order.
    tie_a, tie_b = book_line("Nf3 Nf6 d4", 0.2), book_line("d4 Nf6 Nf3", 0.2)
    assert sb.distinct_positions([tie_a, tie_b]) == sb.distinct_positions([tie_b, tie_a]) == [tie_a]


# --- ECO names -------------------------------------------------------------------------------------


def test_pgn_moves_are_respelled_by_python_chess() -> None:
    assert sb.parse_pgn_moves("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7") == (
        "e4",
        "e5",
        "Qh5",
        "Nc6",
        "Bc4",
        "Nf6",
        "Qxf7#",
    )


def test_classify_takes_the_longest_prefix() -> None:
    table = {
        ("e4",): sb.Opening("B00", "King's Pawn", ("e4",)),
        ("e4", "c5"): sb.Opening("B20", "Sicilian", ("e4", "c5")),
        ("e4", "c5", "Nf3", "d6", "d4"): sb.Opening("B50", "Deep", ("e4", "c5", "Nf3", "d6", "d4")),
    }
    assert sb.classify(["e4", "c5", "Nf3", "d6"], table).eco == "B20"
    assert sb.classify(["e4", "c5", "Nf3", "d6", "d4", "cxd4"], table).eco == "B50"
    assert sb.classify(["e4", "e5"], table).eco == "B00"
    unnamed = sb.classify(["d4", "d5"], table)
    assert (unnamed.eco, unnamed.name) == (sb.UNCLASSIFIED, "d4 d5")


def test_classify_with_the_vendored_lichess_tables(openings) -> None:
    assert len(openings) > 3000
    najdorf_setup = ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6"]
    found = sb.classify(najdorf_setup, openings)
    assert found.eco == "B54"
    assert found.san == tuple(najdorf_setup)
    najdorf = sb.classify([*najdorf_setup, "Nc3", "a6"], openings)
    assert najdorf.name.startswith("Sicilian Defense: Najdorf")
    assert sb.eco_commit(sb.ECO_DIR) == "51b886249b9e418498d25b6e39b926c3de99c29a"


# --- the distinct-ECO selection --------------------------------------------------------------------


def test_select_distinct_eco_is_deterministic() -> None:
    pool = [
        candidate("e4 e5 Nf3 Nc6", 0.30, "C44"),
        candidate("e4 e5 Nf3 Nf6", 0.05, "C42"),
        candidate("e4 e5 Nc3 Nc6", 0.01, "C44"),  # lighter line of C44: never chosen
        candidate("d4 d5 c4 e6", 0.20, "D30"),
        candidate("d4 d5 c4 c6", 0.20, "D10"),  # ties D30 on weight: SAN text decides between them
        candidate("c4 e5 Nc3 Nf6", 0.10, "A20"),
        candidate("a3 a6 b3 b6", 0.90, sb.UNCLASSIFIED),  # unnamed: not a code
    ]
    picks = []
    for seed in range(20):
        shuffled = pool[:]
        random.Random(seed).shuffle(shuffled)
        picks.append(sb.select_distinct_eco(shuffled, 3))
    assert all(p == picks[0] for p in picks)
    chosen = picks[0]
    # The three heaviest codes (C44 0.30, then D10 and D30 at 0.20), returned in ECO order.
    assert [c.opening.eco for c in chosen] == ["C44", "D10", "D30"]
    assert chosen[0].line.san_text == "e4 e5 Nf3 Nc6"
    assert [c.opening.eco for c in sb.select_distinct_eco(pool, 2)] == ["C44", "D10"]
    assert [c.opening.eco for c in sb.select_distinct_eco(pool, 4)] == ["A20", "C44", "D10", "D30"]
    assert len(sb.select_distinct_eco(pool, 99)) == 5


# --- the committed suite ---------------------------------------------------------------------------


def test_committed_suite_lines_are_legal_and_fen_after_matches(suite) -> None:
    assert suite["format"] == sb.SUITE_FORMAT
    assert suite["name"] == sb.SUITE_NAME
    generator = suite["generator"]
    lines = suite["lines"]
    assert len(lines) == generator["lines"]
    assert [line["id"] for line in lines] == [f"L{n:02d}" for n in range(1, len(lines) + 1)]
    for line in lines:
        board = chess.Board()
        for move in line["san"]:
            board.push_san(move)  # raises on an illegal move
        assert board.fen() == line["fen_after"], line["id"]
        assert len(line["san"]) == generator["depth_plies"]
        assert abs(line["eval_cp"]) <= generator["bound_cp"]
        assert 0 < line["book_weight"] <= 1
    assert len({line["eco"] for line in lines}) == len(lines)
    assert [line["eco"] for line in lines] == sorted(line["eco"] for line in lines)
    assert len({line["fen_after"] for line in lines}) == len(lines)


def test_committed_suite_is_in_canonical_bytes(suite) -> None:
    raw = sb.SUITE_PATH.read_bytes()
    assert sb.suite_bytes(suite) == raw
    assert sb.suite_sha256(sb.SUITE_PATH) == hashlib.sha256(raw).hexdigest()


def test_committed_suite_names_match_the_vendored_tables(suite, openings) -> None:
    assert suite["generator"]["eco_source"] == f"lichess-org/chess-openings {sb.eco_commit(sb.ECO_DIR)} (CC0)"
    for line in suite["lines"]:
        found = sb.classify(line["san"], openings)
        assert (found.eco, found.name) == (line["eco"], line["name"]), line["id"]


@needs_book
def test_committed_suite_lines_come_from_the_book_walk(suite) -> None:
    generator = suite["generator"]
    if sb.file_sha256(BOOK) != generator["book_sha256"]:
        pytest.skip("the installed gnuchess-book differs from the one the suite was built from")
    walked = sb.walk_book(
        BOOK, depth_plies=generator["depth_plies"], min_weight_share=generator["min_weight_share"]
    )
    kept = {line.san: line for line in sb.distinct_positions(walked)}
    for line in suite["lines"]:
        source = kept[tuple(line["san"])]
        assert float(f"{source.weight:.{sb.WEIGHT_DIGITS}g}") == line["book_weight"], line["id"]


def test_write_suite_is_canonical_and_atomic(tmp_path: Path) -> None:
    document = {"name": "x", "format": sb.SUITE_FORMAT, "lines": [{"name": "Réti", "san": ["Nf3"]}]}
    target = tmp_path / "suites" / "s.json"
    sb.write_suite(document, target)
    raw = target.read_bytes()
    assert raw == (json.dumps(document, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode()
    assert "Réti".encode() in raw
    assert sb.suite_sha256(target) == hashlib.sha256(raw).hexdigest()
    assert [p.name for p in target.parent.iterdir()] == ["s.json"]


# --- the engine ------------------------------------------------------------------------------------


@needs_engine
def test_engine_scores_repeat_at_a_node_limit() -> None:
    lines = [book_line("e4 e5 Nf3 Nc6", 1.0), book_line("d4 d5 c4 e6", 1.0), book_line("e4 c5", 1.0)]
    messages: list[str] = []
    first = sb.evaluate_positions(lines, ENGINE, nodes=20_000, workers=2, progress=messages.append)
    second = sb.evaluate_positions(lines[::-1], ENGINE, nodes=20_000, workers=2)
    assert first.eval_cp == second.eval_cp
    assert set(first.eval_cp) == {line.epd_after for line in lines}
    assert first.engine.startswith("Stockfish")
    assert messages == ["evaluated 3/3 positions"]
