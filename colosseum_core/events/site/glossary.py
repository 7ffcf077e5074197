"""The events board's words: who played, the keys in plain language and the column tooltips.

**Who played.** In a CALIBRATION event a model contender (``openai-frontier``) is played by its house
stand-in (``house-chess-greedy``), as the frozen manifest records it (``model`` and ``stands_in_for``
beside the contender's ``id``). The record files the stand-in's rows under the contender's id; a page
names the player that actually played first, with what it stands in for beside it
("house-chess-greedy, standing in for openai-frontier (gpt-5.1)"), so no house player's result is
ever shown under a company's name. ``players`` reads that from the manifest, judges included.

**The keys.** Each kind's standings page opens with a key (``CHESS_KEY``, ``SOO_KEY``,
``CHALLENGE_KEY``; the index ``INDEX_KEY``): one entry per column of its standings, named as the
column is headed (a term naming several columns lists them, separated by commas), then the terms the
cells use. Every column header of every table carries a tooltip (``title``) from the same wording:
a standings column's is its key entry; other tables' are in ``TIPS`` and the kinds' own maps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final


@dataclasses.dataclass(frozen=True)
class Player:
    """A contender (or a judge) as a page names it.

    ``contender``: the id the record files its rows under; ``played``: who actually played (the house
    player for a stand-in, else the id); ``stands_in_for``: what a house player stands in for (the
    contender's id and the model it names), empty when it plays as itself; ``plays_as``: the model
    or engine that answered.
    """

    contender: str
    played: str
    stands_in_for: str = ""
    plays_as: str = ""

    @property
    def label(self) -> str:
        """The name a page shows: the player first, what it stands in for beside it."""
        return f"{self.played}, {self.beside}" if self.stands_in_for else self.played

    @property
    def beside(self) -> str:
        """What a standings table writes beside the player ("Plays as"): what a house player stands
        in for, else the model or engine that answered."""
        return f"standing in for {self.stands_in_for}" if self.stands_in_for else self.plays_as


def _plays_as(entry: Mapping[str, Any]) -> str:
    if entry.get("kind") == "engine":
        return f"{entry.get('engine', 'engine')}, {int(entry.get('nodes', 0)):,} nodes a move"
    return str(entry.get("model") or "")


def player(entry: Mapping[str, Any]) -> Player:
    """A manifest's contender or judge entry as a page names it."""
    contender = str(entry["id"])
    company = entry.get("stands_in_for")
    if company:
        house = str(entry.get("model") or contender)
        return Player(contender, house, f"{contender} ({company})", house)
    return Player(contender, contender, "", _plays_as(entry))


def players(manifest: Mapping[str, Any]) -> dict[str, Player]:
    """Every contender and judge of a frozen manifest, by id."""
    entries = [*manifest.get("contenders", []), *manifest.get("judges", [])]
    return {str(e["id"]): player(e) for e in entries}


class Names:
    """A page's way to name whoever the record files under an id (an id the manifest does not know
    is shown as it stands)."""

    def __init__(self, manifest: Mapping[str, Any]) -> None:
        self.players = players(manifest)

    def __call__(self, contender: str | None) -> str:
        if contender is None:
            return "–"
        known = self.players.get(contender)
        return known.label if known else contender

    def of(self, contender: str) -> Player:
        return self.players.get(contender) or Player(contender, contender)

    def listed(self, contenders: Sequence[str]) -> str:
        """Several players in one cell, in the order of their names: a label holds a comma, so they
        are parted by semicolons."""
        return "; ".join(sorted(self(c) for c in contenders))


STANDING_IN: Final = (
    "Standing in for",
    "In a CALIBRATION event a model contender is played by a house player, a deterministic player on "
    "the arena's own sparring server: the house player is named first, then the contender it stands "
    "in for and the model that contender names. Its results are the house player's, never the "
    "model's.",
)
CLASS_TERM: Final = (
    "FIGHT and CALIBRATION",
    "A FIGHT event is played by the real models. When any model's key is missing the event is "
    "CALIBRATION: house players stand in and join, and no real model plays. The two are never mixed.",
)
PLACE: Final = (
    "Place",
    "Where the contender finished. Contenders the 95 % intervals cannot tell apart may share a place "
    "(the paragraph above the table states the rule this event was sealed under); a contender with "
    "nothing counted has none (–).",
)
MEDAL: Final = ("Medal", "Gold, silver and bronze go to places 1, 2 and 3, written beside the place.")
PLAYER: Final = (
    "Player",
    "Who played: the contender, or in a CALIBRATION event the house player standing in for it.",
)
PLAYS_AS: Final = (
    "Plays as",
    "The model that answered, or the engine and its node limit; for a house player standing in, the "
    "contender it stands in for and the model that contender names.",
)
INTERVAL_WORDS: Final = (
    "the results are drawn again at random, cluster by cluster, as many times as the paragraph above "
    "says, and the middle 95 % of what comes out is kept. Where two contenders' intervals overlap, "
    "the results do not yet tell them apart."
)

CHESS_KEY: Final[tuple[tuple[str, str], ...]] = (
    PLACE,
    MEDAL,
    PLAYER,
    PLAYS_AS,
    (
        "Rating",
        "Bradley–Terry–Davidson strength on the Elo scale: the rating that best explains every "
        "game's result at once (a draw half a win, a forfeit a loss). 400 points apart, the stronger "
        "side is expected to win ten games for each one it loses.",
    ),
    ("95 % interval", "How sure the rating is: " + INTERVAL_WORDS + " A cluster is a pair of games."),
    ("Games", "Games played, each pair of contenders twice on every line with colours swapped."),
    ("Points", "1 a win, ½ a draw, 0 a loss."),
    ("W–D–L", "Wins, draws and losses."),
    (
        "Forfeits",
        "Games lost by three rejected attempts at one move (a timeout or an error counts as one), "
        "and their share of the games.",
    ),
    (
        "Rejected attempts",
        "Attempts that gave no legal move in canonical SAN (a timeout or an error included), of "
        "every attempt made, and their share.",
    ),
    (
        "Without forfeits",
        "The rating and interval fitted again without the games lost by forfeit, with their n: how "
        "much the forfeits alone moved the rating.",
    ),
    (
        "Verified to specification",
        "The evidence of every game: the rules engine decided it, nobody's judgement.",
    ),
    STANDING_IN,
    CLASS_TERM,
)
SOO_KEY: Final[tuple[tuple[str, str], ...]] = (
    PLACE,
    MEDAL,
    PLAYER,
    PLAYS_AS,
    (
        "Points (mean)",
        "The mean points per item: +1 a correct answer or an upheld objection, 0 an abstention, −1 "
        "anything else.",
    ),
    (
        "95 % interval",
        "How sure the mean is: " + INTERVAL_WORDS + " A cluster is a sound problem and its twin.",
    ),
    ("Items", "Items asked: each pair's sound problem and its defective twin."),
    ("Solved", "Sound problems answered correctly."),
    (
        "Objections upheld",
        "Defective twins objected to with the right class and words that overlap the edit, or with a "
        "witness of several answers.",
    ),
    ("Abstained", "Items the contender declined to answer: 0 points."),
    (
        "Penalised",
        "Every item that cost a point: wrong answers, missed defects, objections that did not hold, "
        "and the unreadable or silent replies counted beside it.",
    ),
    ("Unreadable or silent", "Replies that could not be read, or no reply at all: −1 each."),
    (
        "Brier [95 %]",
        "How well the stated chance that an item is defective matched what it was: 0 perfect, 1 the "
        "worst, lower is better; with its interval. It ranks nothing.",
    ),
    (
        "Verified",
        "The evidence of every outcome: an exact checker, the edit's place or a sandboxed run decided it.",
    ),
    STANDING_IN,
    CLASS_TERM,
)
CHALLENGE_KEY: Final[tuple[tuple[str, str], ...]] = (
    PLACE,
    (
        "Medal",
        "Gold, silver and bronze go to places 1, 2 and 3, written beside the place; an authoring medal "
        "also needs 80 % of the author's slots verified.",
    ),
    PLAYER,
    PLAYS_AS,
    (
        "Score (mean)",
        "Solving: the mean points per task (+1 correct or an upheld objection, 0 an abstention, −1 "
        "otherwise). Authoring: the mean per registered slot (0 a failed submission, −1 a defective "
        "task, else 0.25 + 0.75 × the share of opponents who did not solve it).",
    ),
    (
        "95 % interval",
        "How sure the mean is: " + INTERVAL_WORDS + " A cluster is a task (for authoring, a slot).",
    ),
    ("Counted", "Outcomes counted on this basis: the n behind the score."),
    (
        "Excluded",
        "Outcomes left out on this basis: Unresolved ones, and Reviewed ones on the Verified basis.",
    ),
    ("Verified slots", "The author's slots whose task was admitted, of every slot it registered."),
    (
        "Verified",
        "Decided by a machine: a checker, a witness the task's own predicate accepts, or a sandboxed run.",
    ),
    ("Reviewed", "Decided by the two judges, blinded, who agreed on an objection."),
    ("Unresolved", "The judges split, or a checker failed: excluded from both bases, and counted."),
    STANDING_IN,
    CLASS_TERM,
)
INDEX_KEY: Final[tuple[tuple[str, str], ...]] = (
    ("Event", "The event's name; it opens the event's standings."),
    ("Kind", "chess, solve-or-object or challenge."),
    CLASS_TERM,
    ("Class", "FIGHT or CALIBRATION, as the event was frozen."),
    ("Contenders", "How many contenders the frozen manifest names."),
    (
        "Games or items",
        "Chess: the games played. Solve or Object: the items asked. Challenge: the tasks revealed.",
    ),
    (
        "Gold, Silver, Bronze",
        "Who holds places 1, 2 and 3 in the event's standings (challenge: solving, Verified).",
    ),
    (
        "Placed by",
        "The placement rule the event was sealed under. COLOSSEUM-PLACEMENT-2: 1 + the number of "
        "contenders whose interval lies wholly above; events sealed earlier keep COLOSSEUM-PLACEMENT-1.",
    ),
    STANDING_IN,
)


def tips_of(key: Sequence[tuple[str, str]]) -> dict[str, str]:
    """A key's meanings as column tooltips, by each header its terms name."""
    return {header: meaning for term, meaning in key for header in term.split(", ")}


# The other tables' columns, where they mean one thing on every kind's pages.
TIPS: Final[dict[str, str]] = {
    "Game": "The game: its line, the pair of contenders and which of the two games",
    "Round": "The round it was played in",
    "Line": "The opening line of the suite it started from, and its ECO code",
    "White": "Who played White",
    "Black": "Who played Black",
    "Result": "1-0, 0-1 or 1/2-1/2",
    "Ended by": "What ended the game: checkmate, a draw rule, the ply cap or a forfeit",
    "Plies": "Half-moves played, the line's included",
    "Rejected (W / B)": "Rejected attempts by White and by Black",
    "Fit": "All games, or the games without a forfeit",
    "Draws": "Drawn games",
    "Game pairs": "Clusters of the bootstrap: a pair of games on one line with colours swapped",
    "ν [95 %]": "Davidson's ν: how drawish the field is (0: no draws), with its interval",
    "Degenerate replicates": "Bootstrap replicates whose fit had no finite answer",
    "White's share of the points": "White's share of the points, its interval and the Elo it is worth",
    "Ply": "The half-move the attempt was for",
    "Attempt": "The try at this move: up to three",
    "Side": "White or Black",
    "Token": "The move read from the reply's last line",
    "Move or rejection": "The move in canonical SAN, or why it was rejected",
    "Reply": "The reply, as received",
    "Receipts": "Stored HTTP exchanges behind the attempt",
    "P(defective)": "The stated chance, in percent, that the item is defective",
    "Outcome": "How the reply was scored",
    "Author": "Who wrote the task",
    "Slot": "The author's authoring slot",
    "Task": "The task's id: the SHA-256 of its canonical JSON, first 16 hex digits",
    "Solver": "Who answered the task",
    "Phase": "Admission, the reveal's run again, or solving (with the solver)",
    "Step": "What was run: the reference, a wrong answer, a case",
    "Answer": "The answer checked",
    "Checker": "The checker that decided",
    "Verdict": "What the checker decided",
    "Sandbox": "How the sandboxed run ended",
    "Judge": "The judge who reviewed the objection, blinded",
    "Objector": "Who objected to the task",
    "Vote": "SUBSTANTIATED or NOT_SUBSTANTIATED",
    "Why": "The reason, as recorded",
}
CHESS_TIPS: Final[dict[str, str]] = {
    **TIPS,
    **tips_of(CHESS_KEY),
    "Player": "Who played the move: in a CALIBRATION event, the house player standing in",
}
CHESS_STANDINGS_TIPS: Final[dict[str, str]] = {**TIPS, **tips_of(CHESS_KEY)}
CHESS_FIT_TIPS: Final[dict[str, str]] = {
    **TIPS,
    "Status": "How the fit went: ok, or why not (no_draws: ν is 0)",
    "Games": "Games in the fit",
}
SOO_TIPS: Final[dict[str, str]] = {
    **TIPS,
    **tips_of(SOO_KEY),
    "Points": "+1, 0 or −1 for this reply",
}
CHALLENGE_TIPS: Final[dict[str, str]] = {
    **TIPS,
    **tips_of(CHALLENGE_KEY),
    "Status": "verified (admitted), or why the submission failed",
    "Points": "+1, 0 or −1 for this reply, with its evidence",
}
INDEX_TIPS: Final[dict[str, str]] = tips_of(INDEX_KEY)
