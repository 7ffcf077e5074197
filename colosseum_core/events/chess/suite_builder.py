"""The chess event's opening suite: book lines that reach balanced, distinct openings, built reproducibly.

The suite is built once and committed (``suites/COLOSSEUM-CHESS-SUITE-1.json``); games start from its
lines so that a model's result does not hinge on its opening preparation, and so that one suite
version names exactly one set of starting positions. Every step is deterministic given the same
book, the same ECO tables, the same engine binary and the same parameters:

1. ``walk_book``: every line from the initial position to ``depth_plies`` plies through the polyglot
   book, keeping at each node the moves whose share of the node's total book weight is at least
   ``min_weight_share``; a line's weight is the product of its moves' shares (the chance the book
   itself would play the line). Lines on which the book runs out before the depth are dropped, so
   every game starts at the same move number.
2. ``distinct_positions``: transpositions collapse to one line per final position, the one with the
   highest weight (ties: the smaller SAN text), because a position — not a move order — is what a
   game is played from.
3. ``evaluate_positions``: Stockfish at a fixed node count, one thread, a fixed hash and a new game
   (``ucinewgame``, which clears the hash) per position — the only settings under which its scores
   repeat run to run. Scores are centipawns from White's side.
4. ``classify`` and ``select_distinct_eco``: positions within ``bound_cp`` are named by the longest
   lichess opening whose moves are a prefix of the line; each ECO code keeps its heaviest line, the
   ``lines`` heaviest codes are taken, and ids ``L01``… follow ECO order.

``build_suite`` runs the four steps and returns the suite document; ``write_suite`` writes its
canonical bytes. python-chess (GPL-3.0-or-later) stays inside this package.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import queue
import re
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

import chess
import chess.engine
import chess.polyglot

from colosseum_core.events.chess.suite import DEFAULT_SUITE, SUITE_FORMAT
from colosseum_core.record.atomic import write_bytes_atomic

PACKAGE_DIR: Final = Path(__file__).resolve().parent
ECO_DIR: Final = PACKAGE_DIR / "data" / "eco"
SUITE_PATH: Final = DEFAULT_SUITE
SUITE_NAME: Final = DEFAULT_SUITE.stem
DEFAULT_BOOK: Final = Path("/usr/share/games/gnuchess/book.bin")
DEFAULT_ENGINE: Final = "/usr/games/stockfish"

# More threads make Stockfish's search order depend on timing; the hash size changes which entries
# survive, so both are pinned and recorded in the suite.
ENGINE_THREADS: Final = 1
ENGINE_HASH_MB: Final = 16

ECO_FILES: Final = ("a.tsv", "b.tsv", "c.tsv", "d.tsv", "e.tsv")
UNCLASSIFIED: Final = "?"

# Book weights are stored rounded: the exact products are what the selection used, but seventeen
# digits of a probability would only be noise to a reader.
WEIGHT_DIGITS: Final = 6

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BookLine:
    """One line from the initial position; ``weight`` is the product of its moves' book shares."""

    san: tuple[str, ...]
    weight: float
    fen_after: str
    epd_after: str

    @property
    def san_text(self) -> str:
        return " ".join(self.san)


@dataclass(frozen=True)
class Opening:
    eco: str
    name: str
    san: tuple[str, ...]


@dataclass(frozen=True)
class Candidate:
    """A balanced line with its name: what the distinct-ECO selection chooses among."""

    line: BookLine
    eval_cp: int
    opening: Opening


@dataclass(frozen=True)
class Evaluations:
    engine: str
    eval_cp: Mapping[str, int | None]  # by ``epd_after``; None: the engine saw a forced mate


def _heaviest_first(line: BookLine) -> tuple[float, str]:
    return (-line.weight, line.san_text)


# --- 1. the book walk -------------------------------------------------------------------------------


def _book_moves(
    reader: chess.polyglot.MemoryMappedReader, board: chess.Board
) -> list[tuple[chess.Move, int]]:
    """The book's legal moves at ``board`` with their weights, a move listed twice counted once."""
    weights: dict[chess.Move, int] = {}
    for entry in reader.find_all(board):
        weights[entry.move] = weights.get(entry.move, 0) + entry.weight
    # Heaviest first, then UCI text: the walk's output order must not depend on the file's entry order.
    return sorted(weights.items(), key=lambda item: (-item[1], item[0].uci()))


def walk_book(book_path: Path, *, depth_plies: int = 8, min_weight_share: float = 0.08) -> list[BookLine]:
    """Every line of exactly ``depth_plies`` plies the book plays with at least the given share per move.

    Sorted heaviest first (ties: SAN text).
    """
    # The threshold is compared in exact fractions so that a share of exactly 8 % is kept on any platform.
    threshold = Fraction(str(min_weight_share))
    lines: list[BookLine] = []
    board = chess.Board()
    with chess.polyglot.open_reader(book_path) as reader:

        def visit(san: tuple[str, ...], weight: Fraction) -> None:
            if len(san) == depth_plies:
                lines.append(BookLine(san, float(weight), board.fen(), board.epd()))
                return
            moves = _book_moves(reader, board)
            total = sum(w for _, w in moves)
            for move, w in moves:
                share = Fraction(w, total)
                if share < threshold:
                    continue
                text = board.san(move)
                board.push(move)
                visit((*san, text), weight * share)
                board.pop()

        visit((), Fraction(1))
    return sorted(lines, key=_heaviest_first)


# --- 2. transpositions ------------------------------------------------------------------------------


def distinct_positions(lines: Iterable[BookLine]) -> list[BookLine]:
    """One line per final position (EPD: placement, side, castling, en passant): the heaviest."""
    best: dict[str, BookLine] = {}
    for line in lines:
        kept = best.get(line.epd_after)
        if kept is None or _heaviest_first(line) < _heaviest_first(kept):
            best[line.epd_after] = line
    return sorted(best.values(), key=_heaviest_first)


# --- 3. the engine ----------------------------------------------------------------------------------


def replay(san: Sequence[str]) -> chess.Board:
    """The board after ``san`` from the initial position; raises ``ValueError`` on an illegal move."""
    board = chess.Board()
    for move in san:
        board.push_san(move)
    return board


def evaluate_positions(
    lines: Sequence[BookLine],
    engine_path: str,
    *,
    nodes: int = 200_000,
    workers: int = 2,
    progress: Progress | None = None,
) -> Evaluations:
    """Each line's final position scored by the engine, in centipawns from White's side.

    ``workers`` engine processes run side by side; which process takes which position is left to
    timing, which is harmless because every analysis starts from a cleared hash.
    """
    engines = [chess.engine.SimpleEngine.popen_uci(engine_path) for _ in range(workers)]
    try:
        names = {engine.id.get("name", "unknown engine") for engine in engines}
        if len(names) != 1:
            raise RuntimeError(f"engine processes disagree on their identity: {sorted(names)}")
        idle: queue.Queue[chess.engine.SimpleEngine] = queue.Queue()
        for engine in engines:
            engine.configure({"Threads": ENGINE_THREADS, "Hash": ENGINE_HASH_MB})
            idle.put(engine)

        def analyse(line: BookLine) -> int | None:
            engine = idle.get()
            try:
                # The move history goes along (not just the FEN) so that the engine knows about
                # repetitions exactly as a game from this line would; a fresh ``game`` object makes
                # python-chess send ``ucinewgame``, which clears the previous position's hash.
                info = engine.analyse(replay(line.san), chess.engine.Limit(nodes=nodes), game=object())
            finally:
                idle.put(engine)
            return info["score"].white().score()

        scores: dict[str, int | None] = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(analyse, line): line for line in lines}
            for done, future in enumerate(concurrent.futures.as_completed(futures), start=1):
                scores[futures[future].epd_after] = future.result()
                if progress is not None and (done % 25 == 0 or done == len(futures)):
                    progress(f"evaluated {done}/{len(futures)} positions")
        return Evaluations(engine=names.pop(), eval_cp=scores)
    finally:
        for engine in engines:
            engine.quit()


# --- 4. names and the selection ---------------------------------------------------------------------


def parse_pgn_moves(pgn: str) -> tuple[str, ...]:
    """The SAN moves of a movetext such as ``1. e4 e5 2. Nf3``, re-spelled by python-chess.

    Re-spelling makes the table's SAN compare equal to the walk's (check marks, disambiguation).
    """
    board = chess.Board()
    out: list[str] = []
    for token in re.sub(r"\d+\.+", " ", pgn).split():
        move = board.parse_san(token)
        out.append(board.san(move))
        board.push(move)
    return tuple(out)


def load_openings(eco_dir: Path) -> dict[tuple[str, ...], Opening]:
    """The lichess tables by move sequence; should two rows share one, the smaller (eco, name) wins."""
    openings: dict[tuple[str, ...], Opening] = {}
    for filename in ECO_FILES:
        text = (eco_dir / filename).read_text(encoding="utf-8")
        rows = text.splitlines()
        if not rows or rows[0].split("\t") != ["eco", "name", "pgn"]:
            raise ValueError(f"{eco_dir / filename}: expected the header eco, name, pgn")
        for number, row in enumerate(rows[1:], start=2):
            if not row.strip():
                continue
            fields = row.split("\t")
            if len(fields) != 3:
                raise ValueError(f"{eco_dir / filename}:{number}: expected 3 tab-separated fields")
            eco, name, pgn = fields
            opening = Opening(eco, name, parse_pgn_moves(pgn))
            kept = openings.get(opening.san)
            if kept is None or (opening.eco, opening.name) < (kept.eco, kept.name):
                openings[opening.san] = opening
    return openings


def eco_commit(eco_dir: Path) -> str:
    """The lichess-org/chess-openings commit the vendored tables came from, as their README records it."""
    readme = eco_dir / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    found = re.search(r"commit:\s*([0-9a-f]{40})", text)
    return found.group(1) if found else "unknown commit"


def classify(san: Sequence[str], openings: Mapping[tuple[str, ...], Opening]) -> Opening:
    """The opening with the longest move sequence that is a prefix of ``san``; unnamed: eco ``?``."""
    moves = tuple(san)
    for length in range(len(moves), 0, -1):
        opening = openings.get(moves[:length])
        if opening is not None:
            return opening
    return Opening(UNCLASSIFIED, " ".join(moves), ())


def select_distinct_eco(candidates: Iterable[Candidate], count: int) -> list[Candidate]:
    """Each ECO code's heaviest line, then the ``count`` heaviest codes; returned in ECO order.

    Ties are broken by SAN text, so the result depends only on the candidates, not their order.
    Unnamed lines take no part: ``?`` is not a code.
    """
    per_code: dict[str, Candidate] = {}
    for candidate in candidates:
        code = candidate.opening.eco
        if code == UNCLASSIFIED:
            continue
        kept = per_code.get(code)
        if kept is None or _heaviest_first(candidate.line) < _heaviest_first(kept.line):
            per_code[code] = candidate
    heaviest = sorted(per_code.values(), key=lambda c: _heaviest_first(c.line))[:count]
    # ECO order puts one family's lines next to each other in the suite file.
    return sorted(heaviest, key=lambda c: c.opening.eco)


# --- the document -----------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def debian_version(package: str) -> str:
    """The installed Debian package's version, so the suite names the exact book it came from."""
    try:
        result = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, check=False
        )
    except OSError:
        return "unknown version"
    return result.stdout.strip() if result.returncode == 0 and result.stdout.strip() else "unknown version"


def selection_rule(*, depth_plies: int, min_weight_share: float, bound_cp: int, lines: int) -> str:
    return (
        f"Lines of {depth_plies} book plies, each move holding at least {min_weight_share:g} of its node's "
        "book weight, one per final position (the highest product of weight shares); positions Stockfish "
        f"scores within ±{bound_cp} cp for White are named by the longest lichess opening prefix; each ECO "
        f"code keeps its heaviest line and the {lines} heaviest codes are taken (ties by SAN text), "
        "ids in ECO order."
    )


def build_suite(
    book_path: Path,
    engine_path: str,
    eco_dir: Path,
    *,
    depth_plies: int = 8,
    min_weight_share: float = 0.08,
    nodes: int = 200_000,
    bound_cp: int = 60,
    lines: int = 40,
    workers: int = 2,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The suite document; raises ``ValueError`` when fewer than ``lines`` distinct codes qualify."""

    def say(message: str) -> None:
        if progress is not None:
            progress(message)

    walked = walk_book(book_path, depth_plies=depth_plies, min_weight_share=min_weight_share)
    say(f"walked {len(walked)} book lines of {depth_plies} plies")
    positions = distinct_positions(walked)
    say(f"{len(positions)} distinct final positions")
    openings = load_openings(eco_dir)
    evaluations = evaluate_positions(positions, engine_path, nodes=nodes, workers=workers, progress=progress)
    balanced: list[Candidate] = []
    for line in positions:
        score = evaluations.eval_cp[line.epd_after]
        if score is not None and abs(score) <= bound_cp:
            balanced.append(Candidate(line, score, classify(line.san, openings)))
    say(f"{len(balanced)} positions within ±{bound_cp} cp")
    codes = {c.opening.eco for c in balanced} - {UNCLASSIFIED}
    say(f"{len(codes)} distinct ECO codes among them")
    chosen = select_distinct_eco(balanced, lines)
    if len(chosen) < lines:
        raise ValueError(f"only {len(chosen)} distinct ECO codes qualify, {lines} were asked for")
    say(f"chose {len(chosen)} lines")

    return {
        "format": SUITE_FORMAT,
        "name": SUITE_NAME,
        "generator": {
            "book": f"gnuchess-book {debian_version('gnuchess-book')} (public domain)",
            "book_path": str(book_path),
            "book_sha256": file_sha256(book_path),
            "depth_plies": depth_plies,
            "min_weight_share": min_weight_share,
            "engine": evaluations.engine,
            "nodes": nodes,
            "threads": ENGINE_THREADS,
            "hash_mb": ENGINE_HASH_MB,
            "bound_cp": bound_cp,
            "lines": lines,
            "eco_source": f"lichess-org/chess-openings {eco_commit(eco_dir)} (CC0)",
            "selection": selection_rule(
                depth_plies=depth_plies, min_weight_share=min_weight_share, bound_cp=bound_cp, lines=lines
            ),
        },
        "lines": [
            {
                "id": f"L{number:02d}",
                "name": c.opening.name,
                "eco": c.opening.eco,
                "san": list(c.line.san),
                "fen_after": c.line.fen_after,
                "eval_cp": c.eval_cp,
                "book_weight": float(f"{c.line.weight:.{WEIGHT_DIGITS}g}"),
            }
            for number, c in enumerate(chosen, start=1)
        ],
    }


def suite_bytes(document: Mapping[str, Any]) -> bytes:
    """The canonical bytes: one spelling per document, so its SHA-256 can name the suite."""
    return (json.dumps(document, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def write_suite(document: Mapping[str, Any], path: Path) -> None:
    write_bytes_atomic(path, suite_bytes(document))


def suite_sha256(path: Path) -> str:
    return file_sha256(path)
